import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { AgentError, Hook, HookContext, StopSignal } from "@hookline/core"
import { AgentLoop } from "@hookline/agent"
import { ScriptedDriver } from "@hookline/testing"
import { on, runWith, stackOf, trail } from "./support.js"

const boom = (message: string): Hook => () => {
  throw new Error(message)
}

describe("AgentLoop errors", () => {
  it("ends the run failed when a hook under 'fail' throws and no OnError hook handles it", async () => {
    const { seen, hook, options } = trail()
    const { final, driver } = await runWith(
      AgentLoop.make({ interceptor: stackOf([boom("bad hook"), on("BeforeInference", "bad")], [hook, options]) }),
      [ScriptedDriver.text("never")],
    )
    expect(driver.requests).toHaveLength(0)
    expect(final.execution.status).toBe("failed")
    expect(final.execution.errors).toEqual([expect.objectContaining({ _tag: "HookFailed", hook: "bad", trigger: "BeforeInference" })])
    expect(StopSignal.highest(final.execution.stopSignals)?.reason).toBe("ErrorForbade")
    expect(seen.slice(-2)).toEqual(["OnError", "AfterExecution"])
  })

  it("passes the errors to OnError hooks", async () => {
    let errors: ReadonlyArray<AgentError.AgentError> = []
    const spy = Hook.observe((ctx) => {
      errors = ctx.errors
    })
    await runWith(AgentLoop.make({ interceptor: stackOf([spy, on("OnError", "spy")]) }), [ScriptedDriver.failure("rate limited", { status: 429, retryable: true })])
    expect(errors).toEqual([expect.objectContaining({ _tag: "InferenceFailed", status: 429, retryable: true })])
  })

  it("goes on when an OnError hook marks the errors handled (a retry)", async () => {
    const retry = (ctx: HookContext) => ctx.errors.every((e) => e._tag === "InferenceFailed" && e.retryable) ? HookContext.markErrorsHandled(ctx) : ctx
    const { final, driver } = await runWith(
      AgentLoop.make({ interceptor: stackOf([retry, on("OnError", "retry")]) }),
      [ScriptedDriver.failure("overloaded", { status: 503, retryable: true }), ScriptedDriver.text("second try")],
    )
    expect(driver.requests).toHaveLength(2)
    expect(final.execution.status).toBe("completed")
    expect(final.context.messages.last()?.content).toBe("second try")
    expect(final.execution.errors).toEqual([expect.objectContaining({ _tag: "InferenceFailed", status: 503 })])
    expect([...final.execution.steps].map((s) => s.finishReason)).toEqual(["error", "stop"])
  })

  it("counts failed attempts as steps, so the steps guard ends endless retries", async () => {
    const retry = (ctx: HookContext) => HookContext.markErrorsHandled(ctx)
    const limit = (ctx: HookContext) =>
      ctx.state.execution.steps.length >= 3 ? HookContext.withStopSignal(ctx, StopSignal.make("StepsLimitReached", "3/3", "test:limit")) : ctx
    const driver = ScriptedDriver.make([ScriptedDriver.failure("down")], { repeatLast: true })
    const final = await Effect.runPromise(
      AgentLoop.run(AgentLoop.make({ interceptor: stackOf([retry, on("OnError", "retry")], [limit, on("BeforeStep", "limit", 200)]) }), "hi")
        .pipe(Effect.provide(driver.layer)),
    )
    expect(driver.requests).toHaveLength(3)
    expect(final.execution.status).toBe("stopped")
  })

  it("fails the run when the driver fails and nothing handles it", async () => {
    const { final } = await runWith(AgentLoop.make(), [ScriptedDriver.failure("invalid api key", { status: 401 })])
    expect(final.execution.status).toBe("failed")
    expect(final.execution.errors).toEqual([expect.objectContaining({ _tag: "InferenceFailed", status: 401, message: "invalid api key" })])
  })

  it("reports a throw inside an OnError hook without hiding the original error", async () => {
    const { final } = await runWith(
      AgentLoop.make({ interceptor: stackOf([boom("handler broke"), on("OnError", "broken_handler")]) }),
      [ScriptedDriver.failure("original")],
    )
    expect(final.execution.status).toBe("failed")
    // In the order they happened: the error, then the handler's failure.
    expect(final.execution.errors.map((e) => [e._tag, e.message.includes("original") || e.message.includes("handler broke")])).toEqual([
      ["InferenceFailed", true],
      ["HookFailed", true],
    ])
    expect(StopSignal.highest(final.execution.stopSignals)?.message).toBe("original")
  })

  it("reports a throw inside an AfterExecution hook and keeps the run's outcome", async () => {
    const { final } = await runWith(
      AgentLoop.make({ interceptor: stackOf([boom("flush failed"), on("AfterExecution", "persist")]) }),
      [ScriptedDriver.text("fine")],
    )
    expect(final.execution.status).toBe("completed")
    expect(final.execution.errors).toEqual([expect.objectContaining({ _tag: "HookFailed", hook: "persist", trigger: "AfterExecution" })])
  })

  it("skips a throwing hook under 'skip' and the run goes on", async () => {
    const { final } = await runWith(
      AgentLoop.make({ interceptor: stackOf([boom("flaky"), { triggers: "BeforeStep", name: "flaky", onError: "skip" }]) }),
      [ScriptedDriver.text("fine")],
    )
    expect(final.execution.status).toBe("completed")
    expect(final.execution.errors).toEqual([])
  })

  it("runs AfterExecution exactly once on every path", async () => {
    const paths = [
      [ScriptedDriver.text("done")],
      [ScriptedDriver.failure("down")],
    ]
    for (const script of paths) {
      const { seen, hook, options } = trail()
      await runWith(AgentLoop.make({ interceptor: stackOf([hook, options]) }), script)
      expect(seen.filter((s) => s === "AfterExecution")).toHaveLength(1)
    }
  })
})
