import { Clock, Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { describe, expect, it } from "vitest"
import * as t from "io-ts"
import { AgentError, HookStack, WrapHook, type AgentState } from "@hookline/core"
import { AgentLoop, Driver, Tool } from "@hookline/agent"
import { ScriptedDriver } from "@hookline/testing"
import { Fallback, Retry, Timeout } from "@hookline/middleware"

// Records the Effect-clock time each model call starts (inside the retry).
const clockedCalls = () => {
  const times: Array<number> = []
  const wrap = WrapHook.inference<never>((ctx, next) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => {
      times.push(now)
      return next(ctx)
    })
  )
  return { times, wrap }
}

// Runs a loop on the TestClock; `drive` moves the clock while the run goes.
const runOnTestClock = (stack: HookStack, driver: Driver, drive: Effect.Effect<void>) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const fiber = yield* Effect.forkChild(
        AgentLoop.run(AgentLoop.make({ interceptor: stack }), "q").pipe(Effect.provideService(Driver.Driver, driver)),
        { startImmediately: true },
      )
      yield* drive
      return yield* Fiber.join(fiber)
    }).pipe(Effect.provide(TestClock.layer())),
  )

const stackWith = (...wraps: ReadonlyArray<readonly [WrapHook.WrapHook<unknown, never>, number]>) =>
  wraps.reduce<HookStack>((s, [w, priority]) => HookStack.withWrap(s, w, { priority }), HookStack.empty)

const settle = Effect.repeat(Effect.yieldNow, { times: 20 })

describe("Retry", () => {
  describe("modelRetry", () => {
    it("waits an exponential backoff on the Effect clock between attempts", async () => {
      const { times, wrap } = clockedCalls()
      const driver = ScriptedDriver.make([
        ScriptedDriver.failure("busy", { status: 503 }),
        ScriptedDriver.failure("busy", { status: 503 }),
        ScriptedDriver.text("ok"),
      ])
      const retry = Retry.modelRetry({ maxAttempts: 3, initialDelayMs: 100, factor: 3, jitter: 0 })
      const final = await runOnTestClock(
        stackWith([retry, 1], [wrap, 0]),
        driver,
        Effect.gen(function* () {
          yield* settle
          yield* TestClock.adjust(99)
          yield* settle
          expect(times).toEqual([0])
          yield* TestClock.adjust(1)
          yield* settle
          expect(times).toEqual([0, 100])
          yield* TestClock.adjust(300)
        }),
      )
      expect(times).toEqual([0, 100, 400])
      expect(final.execution.status).toBe("completed")
      expect(final.execution.steps.at(0)?.attempts?.length).toBe(3)
    })

    it("spreads the waits with jitter from the Effect Random, within the bounds", async () => {
      const { times, wrap } = clockedCalls()
      const driver = ScriptedDriver.make([ScriptedDriver.failure("x", { retryable: true }), ScriptedDriver.text("ok")])
      const retry = Retry.modelRetry({ initialDelayMs: 1_000, jitter: 0.5 })
      await runOnTestClock(stackWith([retry, 1], [wrap, 0]), driver, Effect.gen(function* () {
        yield* settle
        yield* TestClock.adjust(1_500)
      }))
      expect(times[1]).toBeGreaterThanOrEqual(500)
      expect(times[1]).toBeLessThanOrEqual(1_500)
    })

    it("waits what Retry-After asks when it is longer than the backoff, and gives up when it is too long", async () => {
      const { times, wrap } = clockedCalls()
      const limited = AgentError.inferenceFailed("slow down", { status: 429, retryAfterMs: 5_000 })
      const driver = ScriptedDriver.make([ScriptedDriver.failure(limited), ScriptedDriver.text("ok")])
      await runOnTestClock(stackWith([Retry.modelRetry({ initialDelayMs: 10, jitter: 0 }), 1], [wrap, 0]), driver, Effect.gen(function* () {
        yield* settle
        yield* TestClock.adjust(4_999)
        yield* settle
        expect(times).toEqual([0])
        yield* TestClock.adjust(1)
      }))
      expect(times).toEqual([0, 5_000])

      const tooLong = ScriptedDriver.make([ScriptedDriver.failure(limited), ScriptedDriver.text("ok")])
      const final = await runOnTestClock(stackWith([Retry.modelRetry({ maxRetryAfterMs: 1_000 }), 0]), tooLong, Effect.void)
      expect(final.execution.status).toBe("failed")
      expect(tooLong.requests).toHaveLength(1)
    })

    it("retries only the failures it was told to", async () => {
      const notRetried = ScriptedDriver.make([ScriptedDriver.failure("bad request", { status: 400 }), ScriptedDriver.text("ok")])
      const final = await runOnTestClock(stackWith([Retry.modelRetry({ jitter: 0, initialDelayMs: 0 }), 0]), notRetried, Effect.void)
      expect(final.execution.status).toBe("failed")
      expect(notRetried.requests).toHaveLength(1)
      const custom = ScriptedDriver.make([ScriptedDriver.failure("bad request", { status: 400 }), ScriptedDriver.text("ok")])
      const retried = await runOnTestClock(
        stackWith([Retry.modelRetry({ when: (e) => e.status === 400, initialDelayMs: 0, jitter: 0 }), 0]),
        custom,
        Effect.void,
      )
      expect(retried.execution.status).toBe("completed")
    })

    it("refuses bad options, naming the path", () => {
      const message = (f: () => unknown) => {
        try {
          f()
          return "no error"
        } catch (error) {
          return error instanceof AgentError.HooklineError ? error.message : String(error)
        }
      }
      expect(message(() => Retry.modelRetry({ maxAttempts: 0 }))).toMatch(/modelRetry\.maxAttempts/)
      expect(message(() => Retry.modelRetry({ jitter: 2 }))).toMatch(/modelRetry\.jitter/)
      expect(message(() => Retry.modelRetry({ statuses: [42] }))).toMatch(/modelRetry\.statuses\[0\]/)
      expect(message(() => Retry.modelRetry({ maxAtempts: 3 } as never))).toMatch(/unknown option "maxAtempts"/)
      expect(message(() => Retry.UseToolRetry({ tools: [] }))).toMatch(/toolRetry\.tools/)
      expect(message(() => Timeout.modelTimeout({ ms: 0 }))).toMatch(/modelTimeout\.ms/)
      expect(message(() => Fallback.fallbackModels([]))).toMatch(/fallbackModels\.models/)
      expect(message(() => Fallback.fallbackModels([{} as never]))).toMatch(/fallbackModels\.models\[0\]/)
    })
  })

  describe("toolRetry", () => {
    it("runs a failed call of a named tool again, and leaves other tools alone", async () => {
      const runs: Record<string, number> = { flaky: 0, other: 0 }
      const tool = (name: string) =>
        Tool.make({
          name,
          parameters: t.type({}),
          execute: () => {
            runs[name] = (runs[name] ?? 0) + 1
            if (runs[name] === 1) throw new Error("transient")
            return "ok"
          },
        })
      const driver = ScriptedDriver.make([
        ScriptedDriver.toolCalls([{ name: "flaky", arguments: {} }, { name: "other", arguments: {} }]),
        ScriptedDriver.text("done"),
      ])
      const stack = HookStack.withWrap(HookStack.empty, Retry.toolRetry({ tools: ["flaky"], initialDelayMs: 0, jitter: 0 }))
      const final: AgentState = await Effect.runPromise(
        AgentLoop.run(AgentLoop.make({ interceptor: stack, tools: [tool("flaky"), tool("other")] }), "q").pipe(
          Effect.provideService(Driver.Driver, driver),
        ),
      )
      expect(runs).toEqual({ flaky: 2, other: 1 })
      expect(final.execution.steps.at(0)?.toolExecutions.map((e) => e.status)).toEqual(["success", "failure"])
      expect(final.execution.steps.at(0)?.toolAttempts?.map((a) => [a.toolName, a.error?._tag])).toEqual([
        ["flaky", "ToolFailed"],
        ["flaky", undefined],
        ["other", "ToolFailed"],
      ])
    })
  })
})

describe("Timeout", () => {
  it("records the model call it cut as an attempt of its step, with its 408, and the retry's call after it", async () => {
    const driver = ScriptedDriver.make([ScriptedDriver.hang(), ScriptedDriver.text("ok")], { modelId: "m" })
    const stack = stackWith([Retry.modelRetry({ initialDelayMs: 0, jitter: 0 }), 200], [Timeout.modelTimeout({ ms: 1_000 }), 100])
    const final = await runOnTestClock(stack, driver, Effect.andThen(settle, Effect.andThen(TestClock.adjust(1_000), settle)))
    expect(final.execution.status).toBe("completed")
    expect(final.execution.steps.at(0)?.attempts?.map((a) => [a.modelId, a.error?.status, a.durationMs])).toEqual([["m", 408, 1_000], ["m", undefined, 0]])
  })

  it("ends a tool call that takes too long with ToolTimedOut, on the Effect clock", async () => {
    const slow = Tool.make({ name: "slow", parameters: t.type({}), execute: () => Effect.never })
    const driver = ScriptedDriver.make([ScriptedDriver.toolCalls([{ name: "slow", arguments: {} }]), ScriptedDriver.text("done")])
    const stack = HookStack.withWrap(HookStack.empty, Timeout.toolTimeout({ ms: 1_000 }))
    const final = await Effect.runPromise(
      Effect.gen(function* () {
        const fiber = yield* Effect.forkChild(
          AgentLoop.run(AgentLoop.make({ interceptor: stack, tools: [slow] }), "q").pipe(Effect.provideService(Driver.Driver, driver)),
          { startImmediately: true },
        )
        yield* settle
        yield* TestClock.adjust(1_000)
        return yield* Fiber.join(fiber)
      }).pipe(Effect.provide(TestClock.layer())),
    )
    const execution = final.execution.steps.at(0)?.toolExecutions[0]
    expect(execution?.status === "failure" && execution.error._tag).toBe("ToolTimedOut")
    expect(final.execution.status).toBe("completed")
  })
})
