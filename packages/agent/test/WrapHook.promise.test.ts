// The Promise forms of wrap hooks (WrapHook.inferencePromise, WrapHook.toolUsePromise)
// in real runs: retry, answer itself, throw; and `next` runs with the run's services
// (its clock) and lets an inner hook's failure through as that hook's.
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { describe, expect, it } from "vitest"
import {
  AgentError,
  HookExecuted,
  HookStack,
  InferenceResponse,
  ToolExecution,
  Usage,
  WrapHook,
  type AgentState,
  type ToolCall,
} from "@hookline/core"
import { AgentLoop, Driver } from "@hookline/agent"
import { ScriptedDriver } from "@hookline/testing"
import { add } from "./support.js"

const run = (loop: AgentLoop, driver: Driver.DriverShape, options?: AgentLoop.RunOptions): Promise<AgentState> =>
  Effect.runPromise(AgentLoop.run(loop, "question", options).pipe(Effect.provideService(Driver.Driver, driver), Effect.provide(TestClock.layer())))

const loopWith = (...wraps: ReadonlyArray<readonly [WrapHook.WrapHook<unknown>, HookStack.WrapOptions]>) =>
  AgentLoop.make({ interceptor: wraps.reduce((s, [w, o]) => HookStack.withWrap(s, w, o), HookStack.empty as HookStack.HookStack), tools: [add] })

const isInferenceFailed = (u: unknown): boolean => typeof u === "object" && u !== null && (u as { _tag?: unknown })._tag === "InferenceFailed"

// Calls next again after a failed model call, at most `times` calls in all.
const promiseRetry = (times: number) =>
  WrapHook.inferencePromise(async (ctx, next) => {
    for (let n = 1;; n++) {
      try {
        return await next(ctx)
      } catch (error) {
        if (n >= times || !isInferenceFailed(error)) throw error
      }
    }
  })

describe("WrapHook.inferencePromise in a run", () => {
  it("retries a failed model call inside one step, each attempt recorded", async () => {
    const driver = ScriptedDriver.make([ScriptedDriver.failure("busy", { status: 503 }), ScriptedDriver.text("hello", { modelId: "m1" })])
    const final = await run(loopWith([promiseRetry(3), { name: "p:retry" }]), driver)
    expect(final.execution.status).toBe("completed")
    expect(final.execution.steps.length).toBe(1)
    expect(final.execution.steps.at(0)?.response?.text).toBe("hello")
    expect(final.execution.steps.at(0)?.attempts?.map((a) => [a.modelId, a.error?.status])).toEqual([["scripted", 503], ["m1", undefined]])
  })

  it("answers itself without calling the model", async () => {
    let calls = 0
    const driver = Driver.make({
      generate: () => Effect.sync(() => (calls++, InferenceResponse.make({ text: "from the model" }))),
    })
    const cached = WrapHook.inferencePromise(async () => InferenceResponse.make({ text: "cached", usage: Usage.make(1, 1), modelId: "cache" }))
    const final = await run(loopWith([cached, { name: "p:cache" }]), driver)
    expect(calls).toBe(0)
    expect(final.execution.status).toBe("completed")
    expect(final.execution.steps.at(0)?.response?.text).toBe("cached")
    expect(final.execution.steps.at(0)?.attempts).toEqual([])
  })

  it("fails the step with the hook's HookFailed when it throws (policy fail), and is skipped under skip", async () => {
    const throws = WrapHook.inferencePromise(async () => {
      throw new Error("the cache is down")
    })
    const failed = await run(loopWith([throws, { name: "p:throws" }]), ScriptedDriver.make([ScriptedDriver.text("hello")]))
    expect(failed.execution.status).toBe("failed")
    expect(failed.execution.errors.map((e) => e._tag === "HookFailed" && [e.hook, e.trigger])).toEqual([["p:throws", "WrapInference"]])
    const skipped = await run(loopWith([throws, { name: "p:throws", onError: "skip" }]), ScriptedDriver.make([ScriptedDriver.text("hello")]))
    expect(skipped.execution.status).toBe("completed")
    expect(skipped.execution.steps.at(0)?.response?.text).toBe("hello")
  })

  it("lets an inner wrap hook's failure through as that hook's, reported once", async () => {
    const events = HookExecuted.collect()
    const inner = WrapHook.inference(() => Effect.fail(new Error("inner bug")))
    // Passes every failure on, as most Promise code does.
    const outer = WrapHook.inferencePromise((ctx, next) => next(ctx))
    const final = await run(
      loopWith([outer, { name: "p:outer", priority: 10 }], [inner, { name: "e:inner" }]),
      ScriptedDriver.make([ScriptedDriver.text("hello")]),
      { sink: events.sink },
    )
    expect(final.execution.status).toBe("failed")
    expect(final.execution.errors.map((e) => e._tag === "HookFailed" && e.hook)).toEqual(["e:inner"])
    expect(events.events.filter((e) => e.outcome === "failed").map((e) => e.hook)).toEqual(["e:inner"])
  })

  it("calls the model with the run's services: its clock", async () => {
    // TestClock starts at 0: a model call on the run's clock sees 0, one outside it the wall clock.
    const seen: Array<number> = []
    const driver = Driver.make({
      generate: () => Effect.map(Effect.clockWith((clock) => clock.currentTimeMillis), (now) => (seen.push(now), InferenceResponse.make({ text: "ok" }))),
    })
    const final = await run(loopWith([WrapHook.inferencePromise((ctx, next) => next(ctx)), { name: "p:pass" }]), driver)
    expect(final.execution.status).toBe("completed")
    expect(seen).toEqual([0])
  })
})

describe("WrapHook.toolUsePromise in a run", () => {
  const calls = (args: ReadonlyArray<unknown>) =>
    ScriptedDriver.make([ScriptedDriver.toolCalls(args.map((a) => ({ name: "add", arguments: a as never }))), ScriptedDriver.text("done")])

  it("retries a failed execution (edited arguments), each attempt recorded", async () => {
    let n = 0
    const retry = WrapHook.toolUsePromise(async (ctx, next) => {
      const first = await next(n++ === 0 ? { ...ctx, toolCall: { ...(ctx.toolCall as ToolCall), arguments: { a: "x" } } } : ctx)
      return first.status === "failure" ? next(ctx) : first
    })
    const final = await run(loopWith([retry, { name: "p:retry" }]), calls([{ a: 1, b: 2 }]))
    const step = final.execution.steps.at(0)!
    expect(step.toolExecutions.map((e) => e.status === "success" && e.output)).toEqual([3])
    expect(step.toolAttempts?.map((a) => a.error?._tag)).toEqual(["ToolArgumentsInvalid", undefined])
    // On the run's clock (TestClock at 0), not the wall clock.
    expect(step.toolExecutions.map((e) => e.startedAt)).toEqual([0])
  })

  it("answers itself without running the tool", async () => {
    const answer = WrapHook.toolUsePromise(async (ctx) => ToolExecution.success(ctx.toolCall as ToolCall, 42, 0))
    const final = await run(loopWith([answer, { name: "p:answer" }]), calls([{ a: 1, b: 2 }]))
    const step = final.execution.steps.at(0)!
    expect(step.toolExecutions.map((e) => e.status === "success" && e.output)).toEqual([42])
    expect(step.toolAttempts ?? []).toEqual([])
    expect(final.context.messages.toArray().filter((m) => m.role === "tool").map((m) => m.content)).toEqual(["42"])
  })

  it("fails the step with the hook's HookFailed when it throws", async () => {
    const throws = WrapHook.toolUsePromise(async () => {
      throw new Error("no")
    })
    const final = await run(loopWith([throws, { name: "p:throws" }]), calls([{ a: 1, b: 2 }]))
    expect(final.execution.status).toBe("failed")
    expect(final.execution.errors.map((e) => e._tag === "HookFailed" && [e.hook, e.trigger])).toEqual([["p:throws", "WrapToolUse"]])
    expect(AgentError.isAgentError(final.execution.errors[0])).toBe(true)
  })
})
