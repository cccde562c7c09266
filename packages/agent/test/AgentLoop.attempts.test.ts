// Issue 22, class F: every model call held by wrap hooks is an attempt of its step,
// whatever ended it: an answer, the driver's error, a retry, a fallback, a timeout that
// cut it, the run's abort or time limit, or a wrap hook's own failure.
import { Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { describe, expect, it } from "vitest"
import * as t from "io-ts"
import { AgentError, Codecs, HookStack, ToolExecution, WrapHook, type AgentState, type ToolCall } from "@hookline/core"
import { AgentLoop, Driver, Tool } from "@hookline/agent"
import { ScriptedDriver } from "@hookline/testing"

// Calls next again after a failure, up to `times` calls in all.
const retry = (times: number) =>
  WrapHook.inference((ctx, next) => {
    const attempt = (n: number): ReturnType<typeof next> => Effect.catch(next(ctx), (e) => (n < times ? attempt(n + 1) : Effect.fail(e)))
    return attempt(1)
  })

// A timeout written as a user would: the call is interrupted when the time is up.
const timeout = (ms: number) =>
  WrapHook.inference((ctx, next) =>
    Effect.timeoutOrElse(next(ctx), {
      duration: ms,
      orElse: () => Effect.fail(AgentError.inferenceFailed(`timed out after ${ms} ms`, { status: 408, retryable: true })),
    })
  )

const stackOf = (...wraps: ReadonlyArray<readonly [WrapHook.InferenceWrap<unknown>, number]>) =>
  wraps.reduce<HookStack>((s, [w, priority]) => HookStack.withWrap(s, w, { priority }), HookStack.empty)

const settle = Effect.repeat(Effect.yieldNow, { times: 20 })

// Runs the loop on the TestClock; `drive` moves the clock while the run goes.
const onTestClock = (loop: AgentLoop, driver: ScriptedDriver, drive: Effect.Effect<void>) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const fiber = yield* Effect.forkChild(AgentLoop.run(loop, "q").pipe(Effect.provideService(Driver.Driver, driver)), { startImmediately: true })
      yield* settle
      yield* drive
      return yield* Fiber.join(fiber)
    }).pipe(Effect.provide(TestClock.layer())),
  )

const attemptsOf = (final: AgentState) =>
  (final.execution.steps.at(0)?.attempts ?? []).map((a) => [a.modelId, a.error?.status, a.error?.message, a.durationMs])

describe("AgentLoop: every model call is an attempt", () => {
  it("records a call a timeout cut, with the timeout's error and the time it took", async () => {
    const driver = ScriptedDriver.make([ScriptedDriver.hang(), ScriptedDriver.text("ok")])
    const loop = AgentLoop.make({ interceptor: stackOf([retry(2), 200], [timeout(50), 100]) })
    const final = await onTestClock(loop, driver, Effect.andThen(TestClock.adjust(50), settle))
    expect(final.execution.status).toBe("completed")
    expect(attemptsOf(final)).toEqual([
      ["scripted", 408, "timed out after 50 ms", 50],
      ["scripted", undefined, undefined, 0],
    ])
    // The record round-trips through its codec.
    const step = final.execution.steps.at(0)!
    expect(Codecs.decodeUnsafe(Codecs.Step, Codecs.Step.encode(step))).toEqual(step)
  })

  it("records a call a timeout cut in a step that then failed", async () => {
    const driver = ScriptedDriver.make([ScriptedDriver.hang()])
    const loop = AgentLoop.make({ interceptor: stackOf([timeout(30), 100]) })
    const final = await onTestClock(loop, driver, TestClock.adjust(30))
    expect(final.execution.status).toBe("failed")
    expect(attemptsOf(final)).toEqual([["scripted", 408, "timed out after 30 ms", 30]])
  })

  it("records a call the run's time limit cut", async () => {
    const driver = ScriptedDriver.make([ScriptedDriver.hang()])
    const loop = AgentLoop.make({ interceptor: stackOf([retry(2), 200]), maxExecutionTime: 100 })
    const final = await onTestClock(loop, driver, TestClock.adjust(100))
    expect(final.execution.stopSignals.map((s) => s.reason)).toContain("TimeLimitReached")
    expect(attemptsOf(final)).toEqual([["scripted", undefined, "the model call was interrupted before it answered", 100]])
  })

  it("records a call the run's abort signal cut", async () => {
    const driver = ScriptedDriver.make([ScriptedDriver.hang()])
    const loop = AgentLoop.make({ interceptor: stackOf([retry(1), 200]) })
    const controller = new AbortController()
    const fiber = Effect.runFork(AgentLoop.run(loop, "q", { signal: controller.signal }).pipe(Effect.provideService(Driver.Driver, driver)))
    while (driver.requests.length === 0) await new Promise((resolve) => setImmediate(resolve))
    controller.abort()
    const final = await Effect.runPromise(Fiber.join(fiber))
    expect(final.execution.status).toBe("stopped")
    expect(final.execution.steps.at(0)?.attempts?.length).toBe(1)
    expect(final.execution.steps.at(0)?.attempts?.[0]?.error).toBeDefined()
  })

  // Found by the fuzzer: a Promise wrap hook's `next` runs in its own fiber, which ends
  // after the run when the run is aborted; the step was recorded without that call.
  it("records a call still running under a Promise wrap hook when the run is aborted", async () => {
    const controller = new AbortController()
    let calls = 0
    // The second call: the user presses stop while it runs, and it then fails.
    const driver = {
      ...Driver.make({
        generate: () =>
          Effect.suspend(() => {
            if (calls++ === 1) controller.abort()
            return Effect.fail(AgentError.inferenceFailed(`busy ${calls}`))
          }),
      }),
      modelId: "m",
    }
    const retryOnce = WrapHook.inferencePromise(async (ctx, next) => {
      try {
        return await next(ctx)
      } catch {
        return await next(ctx)
      }
    })
    const loop = AgentLoop.make({ interceptor: HookStack.withWrap(HookStack.empty, retryOnce) })
    const final = await Effect.runPromise(AgentLoop.run(loop, "q", { signal: controller.signal }).pipe(Effect.provideService(Driver.Driver, driver)))
    expect(final.execution.status).toBe("stopped")
    expect(calls).toBe(2)
    expect(final.execution.steps.at(0)?.attempts?.map((a) => a.modelId)).toEqual(["m", "m"])
    expect(final.execution.steps.at(0)?.attempts?.every((a) => a.error !== undefined)).toBe(true)
  })

  it("records a call a wrap hook cut by failing itself", async () => {
    const driver = ScriptedDriver.make([ScriptedDriver.hang()])
    // Gives up on the call at once, with its own failure (not the call's error).
    const impatient = WrapHook.inference((ctx, next) => Effect.raceFirst(next(ctx), Effect.andThen(settle, Effect.fail(new Error("impatient")))))
    const loop = AgentLoop.make({ interceptor: HookStack.withWrap(HookStack.empty, impatient, { name: "test:impatient" }) })
    const final = await Effect.runPromise(AgentLoop.run(loop, "q").pipe(Effect.provideService(Driver.Driver, driver)))
    expect(final.execution.status).toBe("failed")
    expect(final.execution.errors.map((e) => e._tag === "HookFailed" && e.hook)).toEqual(["test:impatient"])
    expect(attemptsOf(final).map(([id, , message]) => [id, message])).toEqual([["scripted", "the model call was interrupted before it answered"]])
  })

  it("records every call of a retry and a fallback, failed ones with the model that failed", async () => {
    const primary = ScriptedDriver.make([ScriptedDriver.failure("down", { status: 500 }), ScriptedDriver.failure("down", { status: 500 })], { modelId: "primary" })
    const backup = ScriptedDriver.make([ScriptedDriver.text("ok", { modelId: "backup" })], { modelId: "backup" })
    const fallback = WrapHook.inference((ctx, next) => Effect.catch(next(ctx), () => next(ctx, { model: backup })))
    const loop = AgentLoop.make({ interceptor: stackOf([fallback, 300], [retry(2), 200]) })
    const final = await Effect.runPromise(AgentLoop.run(loop, "q").pipe(Effect.provideService(Driver.Driver, primary)))
    expect(attemptsOf(final).map(([id, status]) => [id, status])).toEqual([["primary", 500], ["primary", 500], ["backup", undefined]])
  })

  for (const toolConcurrency of ["sequential", "concurrent"] as const) {
    it(`records a tool run a timeout cut as a tool attempt, with the timeout's error (${toolConcurrency})`, async () => {
      const slow = Tool.make({ name: "slow", parameters: t.type({}), execute: () => Effect.never })
      const quick = Tool.make({ name: "quick", parameters: t.type({}), execute: () => "done" })
      // Ends a tool run after 20 ms with a failed execution, as UseToolTimeout does.
      const toolTimeout = WrapHook.toolUse((ctx, next) =>
        Effect.timeoutOrElse(next(ctx), {
          duration: 20,
          orElse: () => {
            const call = ctx.toolCall as ToolCall
            return Effect.succeed(ToolExecution.failure(call, AgentError.toolTimedOut(call.id, call.name, 20), ctx.createdAt, ctx.createdAt + 20))
          },
        })
      )
      const driver = ScriptedDriver.make([
        ScriptedDriver.toolCalls([{ name: "slow", id: "s" }, { name: "quick", id: "q" }]),
        ScriptedDriver.text("ok"),
      ])
      const loop = AgentLoop.make({ interceptor: HookStack.withWrap(HookStack.empty, toolTimeout), tools: [slow, quick], toolConcurrency })
      const final = await onTestClock(loop, driver, Effect.andThen(TestClock.adjust(20), settle))
      expect(final.execution.status).toBe("completed")
      const attempts = final.execution.steps.at(0)?.toolAttempts ?? []
      expect(attempts.map((a) => [a.toolCallId, a.error?._tag, a.durationMs]).sort()).toEqual([["q", undefined, 0], ["s", "ToolTimedOut", 20]])
    })
  }
})
