// The steps limit holds even when a BeforeStep hook fails before the steps guard can run
// (docs/guarantees.md): the loop raises the guard's own signal after a failed step.
import { Effect, pipe } from "effect"
import { describe, expect, it } from "vitest"
import { AgentError, Guards, HookContext, HookStack, type Hook } from "@hookline/core"
import { AgentBuilder, AgentLoop, UseDriver, UseGuards, UseHook, UseTools } from "@hookline/agent"
import { ScriptedDriver } from "@hookline/testing"
import { echo, echoForever, withSafety } from "./support.js"

const boom: Hook = () => {
  throw new Error("boom")
}

// Without the fix such a run never ends: a safety abort after 5 s (withSafety) ends it,
// and the test fails on its stop reason.
const safely = <A>(run: (signal: AbortSignal) => Promise<A>): Promise<A> => withSafety(run, 5_000)

const afterExecutions = () => {
  let count = 0
  const hook: Hook = (ctx) => {
    count++
    return ctx
  }
  return { hook, count: () => count }
}

const summary = (final: import("@hookline/core").AgentState) => ({
  status: final.execution.status,
  steps: final.execution.steps.length,
  signals: final.execution.stopSignals.map((s) => `${s.reason} ${s.source}`),
})

describe("steps limit held by the loop", () => {
  it("ends a run whose BeforeStep hook always fails before the guard, under an OnError hook that handles everything", async () => {
    const ends = afterExecutions()
    const agent = AgentBuilder.make(
      UseDriver(echoForever()),
      UseTools([echo]),
      UseGuards({ maxSteps: 3, maxExecutionTime: null }),
      UseHook(boom, { triggers: "BeforeStep", priority: 300, name: "test:boom" }),
      UseHook(HookContext.markErrorsHandled, { triggers: "OnError", name: "test:retry" }),
      UseHook(ends.hook, { triggers: "AfterExecution", name: "test:end" }),
    )
    const final = await safely((signal) => agent.run("loop", { signal }))
    expect(summary(final)).toEqual({ status: "stopped", steps: 3, signals: [`StepsLimitReached ${Guards.names.steps}`] })
    expect([...final.execution.steps].every((s) => s.finishReason === "error")).toBe(true)
    expect(ends.count()).toBe(1)
  })

  it("records no failed step past the limit when the hook fails only once the limit is reached", async () => {
    const failAtLimit: Hook = (ctx) => (ctx.state.execution.steps.length >= 2 ? boom(ctx) : ctx)
    const agent = AgentBuilder.make(
      UseDriver(echoForever()),
      UseTools([echo]),
      UseGuards({ maxSteps: 2, maxExecutionTime: null }),
      UseHook(failAtLimit, { triggers: "BeforeStep", priority: 300, name: "test:fail_at_limit" }),
      UseHook(HookContext.markErrorsHandled, { triggers: "OnError", name: "test:retry" }),
    )
    const final = await safely((signal) => agent.run("loop", { signal }))
    expect(summary(final)).toEqual({ status: "stopped", steps: 2, signals: [`StepsLimitReached ${Guards.names.steps}`] })
    expect([...final.execution.steps].map((s) => s.finishReason)).toEqual(["tool-calls", "tool-calls"])
    // The failure is still reported to OnError and kept with the run.
    expect(final.execution.errors.map((e) => e._tag)).toContain("HookFailed")
  })

  it("holds AgentLoop.make's maxSteps for a loop built without the builder", async () => {
    const stack = pipe(
      Guards.useGuards({ maxSteps: 2, maxExecutionTime: null }),
      HookStack.with(boom, { triggers: "BeforeStep", priority: 300, name: "test:boom" }),
      HookStack.with(HookContext.markErrorsHandled, { triggers: "OnError", name: "test:retry" }),
    )
    const driver = ScriptedDriver.make([ScriptedDriver.toolCalls([{ name: "echo", arguments: { text: "x" } }])], { repeatLast: true })
    const final = await safely((signal) =>
      Effect.runPromise(
        AgentLoop.run(AgentLoop.make({ interceptor: stack, tools: [echo], maxSteps: 2 }), "hi", { signal }).pipe(Effect.provide(driver.layer)),
      )
    )
    expect(summary(final)).toEqual({ status: "stopped", steps: 2, signals: [`StepsLimitReached ${Guards.names.steps}`] })
  })

  it("is turned off with the guard (maxSteps: null), and refuses a limit that is not a whole number", () => {
    expect(AgentBuilder.make(UseDriver(echoForever()), UseGuards({ maxSteps: null })).loop.maxSteps).toBeUndefined()
    expect(AgentBuilder.make(UseDriver(echoForever())).loop.maxSteps).toBe(Guards.defaults.maxSteps)
    expect(() => AgentLoop.make({ maxSteps: 1.5 })).toThrow(AgentError.HooklineError)
    expect(() => AgentLoop.make({ maxSteps: -1 })).toThrow(/maxSteps: expected a whole number >= 0, got -1/)
  })
})
