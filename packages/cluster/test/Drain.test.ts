// A runner's graceful shutdown, first part: the runs in flight end while the runner still
// holds its shards; a run that would begin after that never begins (the next owner runs
// it whole). Time is the TestClock's.
import { Deferred, Effect, Exit, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { describe, expect, it } from "vitest"
import { RunEntity } from "../src/index.js"

const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(effect.pipe(Effect.provide(TestClock.layer())))

describe("RunEntity.Drain", () => {
  describe("close", () => {
    it("waits for the runs in flight to end, and a run that would begin after it never begins", async () => {
      const result = await run(Effect.gen(function*() {
        const drain = new RunEntity.Drain()
        const release = yield* Deferred.make<void>()
        const began: Array<string> = []
        const inFlight = yield* Effect.forkChild(
          drain.track(Effect.andThen(Effect.sync(() => began.push("a")), Deferred.await(release)), Effect.interrupt),
          { startImmediately: true },
        )
        const closing = yield* Effect.forkChild(drain.close(60_000), { startImmediately: true })
        // Abandoned once the drain is over: the run never began here.
        const late = yield* Effect.forkChild(drain.track(Effect.sync(() => began.push("b")), Effect.interrupt), { startImmediately: true })
        yield* TestClock.adjust("10 seconds")
        const closedBefore = closing.pollUnsafe() !== undefined
        const runningThen = drain.inFlight
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(inFlight)
        yield* Fiber.join(closing)
        const lateExit = yield* Fiber.await(late)
        return { began, closedBefore, runningThen, after: drain.inFlight, closing: drain.isClosing, lateInterrupted: Exit.hasInterrupts(lateExit) }
      }))
      expect(result).toEqual({ began: ["a"], closedBefore: false, runningThen: 1, after: 0, closing: true, lateInterrupted: true })
    })

    it("gives up on a run longer than its timeout (effect/cluster's teardown hands it over)", async () => {
      const result = await run(Effect.gen(function*() {
        const drain = new RunEntity.Drain()
        yield* Effect.forkChild(drain.track(Effect.never, Effect.interrupt), { startImmediately: true })
        const closing = yield* Effect.forkChild(drain.close(15_000), { startImmediately: true })
        yield* TestClock.adjust("14 seconds")
        const before = closing.pollUnsafe() !== undefined
        yield* TestClock.adjust("1 second")
        yield* Fiber.join(closing)
        return { before, inFlight: drain.inFlight }
      }))
      expect(result).toEqual({ before: false, inFlight: 1 })
    })

    it("answers at once when nothing is in flight", async () => {
      const exit = await run(Effect.exit(new RunEntity.Drain().close(15_000)))
      expect(Exit.isSuccess(exit)).toBe(true)
    })
  })
})
