import { Clock, Context, Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { describe, expect, it } from "vitest"
import * as Race from "../../src/run/race.js"

const defaultClock = Context.get(Context.empty(), Clock.Clock)
const bounds = (over: Partial<Race.Bounds<string>>): Race.Bounds<string> => ({
  ms: undefined,
  timedOut: "timedOut",
  signal: undefined,
  aborted: "aborted",
  clock: defaultClock,
  ...over,
})

// Steps that never end, and record that they were interrupted (their finalizer ran).
const hung = (log: Array<string>) => Effect.never.pipe(Effect.onInterrupt(() => Effect.sync(() => log.push("interrupted"))), Effect.as("steps"))

describe("race", () => {
  describe("bounded", () => {
    it("gives the steps' outcome when nothing bounds them, or when they end first", async () => {
      expect(await Effect.runPromise(Race.bounded(Effect.succeed("steps"), bounds({})))).toBe("steps")
      expect(await Effect.runPromise(Race.bounded(Effect.succeed("steps"), bounds({ ms: 60_000, signal: new AbortController().signal })))).toBe("steps")
    })

    it("gives timedOut when the time limit passes first, and interrupts the steps before it returns", async () => {
      const log: Array<string> = []
      const outcome = await Effect.runPromise(Effect.tap(Race.bounded(hung(log), bounds({ ms: 5 })), () => Effect.sync(() => log.push("returned"))))
      expect(outcome).toBe("timedOut")
      expect(log).toEqual(["interrupted", "returned"])
    })

    it("gives aborted when the signal aborts first, or had aborted while the steps ran to their first wait", async () => {
      const log: Array<string> = []
      const controller = new AbortController()
      setTimeout(() => controller.abort(), 1)
      expect(await Effect.runPromise(Race.bounded(hung(log), bounds({ ms: 60_000, signal: controller.signal })))).toBe("aborted")
      expect(log).toEqual(["interrupted"])
      const early = new AbortController()
      const steps = Effect.sync(() => early.abort()).pipe(Effect.andThen(hung(log)))
      expect(await Effect.runPromise(Race.bounded(steps, bounds({ signal: early.signal })))).toBe("aborted")
    })

    it("lets steps that ended before their first wait win over a signal that aborted meanwhile", async () => {
      const controller = new AbortController()
      const steps = Effect.sync(() => controller.abort()).pipe(Effect.as("steps"))
      expect(await Effect.runPromise(Race.bounded(steps, bounds({ signal: controller.signal })))).toBe("steps")
    })

    it("sleeps through another clock (a TestClock) for the time limit", async () => {
      const log: Array<string> = []
      const program = Effect.gen(function*() {
        const clock = yield* Clock.Clock
        const fiber = yield* Effect.forkChild(Race.bounded(hung(log), bounds({ ms: 1_000, clock })))
        yield* TestClock.adjust(1_000)
        return yield* Fiber.join(fiber)
      })
      expect(await Effect.runPromise(Effect.provide(program, TestClock.layer()))).toBe("timedOut")
      expect(log).toEqual(["interrupted"])
    })

    it("removes its abort listener and timer when the steps win", async () => {
      const controller = new AbortController()
      let added = 0
      let removed = 0
      const signal = controller.signal
      const add = signal.addEventListener.bind(signal)
      const remove = signal.removeEventListener.bind(signal)
      signal.addEventListener = (...args: Parameters<typeof add>) => (added++, add(...args))
      signal.removeEventListener = (...args: Parameters<typeof remove>) => (removed++, remove(...args))
      const steps = Effect.yieldNow.pipe(Effect.as("steps"))
      expect(await Effect.runPromise(Race.bounded(steps, bounds({ ms: 60_000, signal })))).toBe("steps")
      expect([added, removed]).toEqual([1, 1])
    })
  })
})
