// A resumed run's time limit counts from the resume (each call of run or resume gets
// the whole budget: docs/decisions.md, "Resumes"); its steps and tokens carry over.
// Time is TestClock's.
import { Guards, HookContext, StopSignal, type AgentState } from "@hookline/core"
import { ScriptedDriver } from "@hookline/testing"
import { Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import * as t from "io-ts"
import { describe, expect, it } from "vitest"
import { AgentBuilder, Decision, Tool, UseDriver, UseGuards, UseHook, UseTools } from "../src/index.js"

const agentOf = (afterApproval: ScriptedDriver.Turn) =>
  AgentBuilder.make(
    UseDriver(ScriptedDriver.make([ScriptedDriver.toolCalls([{ id: "c1", name: "pay", arguments: {} }]), afterApproval], {
      usage: { inputTokens: 10, outputTokens: 4 },
    })),
    UseTools([Tool.make({ name: "pay", parameters: t.type({}), execute: () => "paid" })]),
    UseGuards({ maxExecutionTime: "10 seconds", maxTokens: 1000 }),
    UseHook((ctx) => ctx.toolCall !== undefined ? HookContext.suspend(ctx, "approve") : ctx, { triggers: "BeforeToolUse", name: "test:approval" }),
  )

const tokens = (state: AgentState) => state.execution.usage.inputTokens + state.execution.usage.outputTokens

const onTestClock = <A, E>(program: Effect.Effect<A, E>) => Effect.runPromise(program.pipe(Effect.provide(TestClock.layer())))

describe("a resumed run's time limit", () => {
  it("counts from the resume: a run approved the next day completes", async () => {
    const agent = agentOf(ScriptedDriver.text("paid"))
    const { suspended, final } = await onTestClock(Effect.gen(function*() {
      const suspended = yield* agent.runEffect("pay")
      yield* TestClock.adjust("1 day")
      const final = yield* agent.resumeEffect(suspended, [Decision.approve("c1")])
      return { suspended, final }
    }))
    expect(suspended.execution.status).toBe("suspended")
    expect(final.execution.status).toBe("completed")
    expect(final.execution.stopReason).toBe("Completed")
    // The run's first start is kept; this call's start is a day later.
    expect(final.execution.startedAt).toBe(suspended.execution.startedAt)
    expect((final.execution.runningSince ?? 0) - (suspended.execution.startedAt ?? 0)).toBe(86_400_000)
    // Its other counters carry over: both model calls count.
    expect(tokens(final)).toBe(28)
    expect(final.execution.steps.length).toBe(2)
  })

  it("closes the open step when the time limit ends the resumed call while a decided tool hangs", async () => {
    const agent = AgentBuilder.make(
      UseDriver(ScriptedDriver.make([ScriptedDriver.toolCalls([{ id: "c1", name: "pay", arguments: {} }]), ScriptedDriver.text("paid")])),
      UseTools([Tool.make({ name: "pay", parameters: t.type({}), execute: () => Effect.never })]),
      UseGuards({ maxExecutionTime: "10 seconds" }),
      UseHook((ctx) => ctx.toolCall !== undefined ? HookContext.suspend(ctx, "approve") : ctx, { triggers: "BeforeToolUse", name: "test:approval" }),
    )
    const final = await onTestClock(Effect.gen(function*() {
      const suspended = yield* agent.runEffect("pay")
      const fiber = yield* Effect.forkChild(agent.resumeEffect(suspended, [Decision.approve("c1")]), { startImmediately: true })
      for (let i = 0; i < 5; i++) yield* Effect.yieldNow
      yield* TestClock.adjust("10 seconds")
      return yield* Fiber.join(fiber)
    }))
    expect(final.execution.status).toBe("stopped")
    expect(final.execution.stopReason).toBe("TimeLimitReached")
    expect(final.execution.suspendedStep).toBeUndefined()
    expect(final.execution.steps.toArray().map((s) => [s.index, s.finishReason])).toEqual([[0, "error"]])
    expect(final.context.messages.last()).toMatchObject({ role: "tool", toolCallId: "c1", content: "Cancelled: the run reached its time limit before it ran" })
  })

  it("bounds the resumed call: a model call that hangs after the approval is stopped 10 seconds after the resume", async () => {
    const agent = agentOf(ScriptedDriver.hang())
    const outcome = await onTestClock(Effect.gen(function*() {
      const suspended = yield* agent.runEffect("pay")
      yield* TestClock.adjust("1 day")
      const fiber = yield* Effect.forkChild(agent.resumeEffect(suspended, [Decision.approve("c1")]), { startImmediately: true })
      for (let i = 0; i < 5; i++) yield* Effect.yieldNow
      yield* TestClock.adjust("9999 millis")
      const early = fiber.pollUnsafe()
      yield* TestClock.adjust("1 millis")
      return { early, final: yield* Fiber.join(fiber) }
    }))
    expect(outcome.early).toBeUndefined()
    const final = outcome.final
    expect(final.execution.status).toBe("stopped")
    expect(StopSignal.highest(final.execution.stopSignals)).toMatchObject({
      reason: "TimeLimitReached",
      source: Guards.names.time,
      message: "Time limit reached: 10000 ms/10000 ms",
    })
    // The approved call ran and its step was recorded before the hung model call.
    expect(final.context.messages.toArray().some((m) => m.role === "tool" && m.toolCallId === "c1" && m.content === "paid")).toBe(true)
  })
})
