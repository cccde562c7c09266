import { Effect, Exit, Fiber } from "effect"
import * as t from "io-ts"
import { describe, expect, it } from "vitest"
import { Hook, HookContext, StopSignal } from "@hookline/core"
import { AgentLoop, Tool } from "@hookline/agent"
import { ScriptedDriver } from "@hookline/testing"
import { add, messages, on, stackOf, trail } from "./support.js"

describe("AgentLoop abort", () => {
  it("ends the run stopped with UserRequested when the signal aborts during a model call, keeping what was committed", async () => {
    const { seen, hook, options } = trail()
    const controller = new AbortController()
    const driver = ScriptedDriver.make([ScriptedDriver.toolCalls([{ name: "add", arguments: { a: 1, b: 1 } }]), ScriptedDriver.hang()])
    const abortOnSecondCall = Hook.observe((ctx) => {
      if (ctx.state.execution.steps.length === 1) setTimeout(() => controller.abort(), 5)
    })
    const loop = AgentLoop.make({ interceptor: stackOf([hook, options], [abortOnSecondCall, on("BeforeInference", "abort_soon")]), tools: [add] })
    const final = await Effect.runPromise(AgentLoop.run(loop, "hi", { signal: controller.signal }).pipe(Effect.provide(driver.layer)))
    expect(final.execution.status).toBe("stopped")
    expect(StopSignal.highest(final.execution.stopSignals)?.reason).toBe("UserRequested")
    expect(messages(final)).toEqual(["user:hi", 'assistant:add({"a":1,"b":1})', "tool:2"])
    expect(seen.filter((s) => s === "AfterExecution")).toHaveLength(1)
    expect(driver.aborted).toBe(1)
  })

  it("stops at once when the signal is already aborted", async () => {
    const driver = ScriptedDriver.make([ScriptedDriver.text("never")])
    const final = await Effect.runPromise(
      AgentLoop.run(AgentLoop.make(), "hi", { signal: AbortSignal.abort() }).pipe(Effect.provide(driver.layer)),
    )
    expect(final.execution.status).toBe("stopped")
    expect(final.context.messages.length).toBe(1)
  })

  it("never runs a tool whose permission hook was interrupted", async () => {
    let ran = 0
    const guarded = Tool.make({ name: "deploy", parameters: t.type({}), execute: () => ++ran })
    const controller = new AbortController()
    const askHuman = Hook.promise((ctx, signal) =>
      new Promise<HookContext>((resolve) => {
        setTimeout(() => controller.abort(), 5)
        signal.addEventListener("abort", () => resolve(ctx)) // an "approval" that arrives only as the run is torn down
      })
    )
    const driver = ScriptedDriver.make([ScriptedDriver.toolCalls([{ name: "deploy", arguments: {} }]), ScriptedDriver.text("deployed")])
    const loop = AgentLoop.make({ interceptor: stackOf([askHuman, on("BeforeToolUse", "approval")]), tools: [guarded] })
    const final = await Effect.runPromise(AgentLoop.run(loop, "ship it", { signal: controller.signal }).pipe(Effect.provide(driver.layer)))
    expect(ran).toBe(0)
    expect(final.execution.status).toBe("stopped")
    // The call is answered only by a cancellation marker (issue 12, item 6), never by a result.
    expect([...final.context.messages].filter((m) => m.role === "tool").map((m) => m.content)).toEqual(["Cancelled: the run was aborted before it ran"])
  })

  it("fires AfterExecution when the run's fiber is interrupted", async () => {
    const { seen, hook, options } = trail()
    const driver = ScriptedDriver.make([ScriptedDriver.hang()])
    const program = Effect.gen(function*() {
      const fiber = yield* Effect.forkChild(AgentLoop.run(AgentLoop.make({ interceptor: stackOf([hook, options]) }), "hi"), {
        startImmediately: true,
      })
      yield* Effect.yieldNow
      yield* Fiber.interrupt(fiber)
      return yield* Fiber.await(fiber)
    })
    const exit = await Effect.runPromise(program.pipe(Effect.provide(driver.layer)))
    expect(Exit.hasInterrupts(exit)).toBe(true)
    expect(seen.filter((s) => s === "AfterExecution")).toHaveLength(1)
  })
})
