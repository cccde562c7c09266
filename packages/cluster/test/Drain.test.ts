// A runner's graceful shutdown, first part: the runs in flight end while the runner still
// holds its shards; a run that would begin after that never begins (the next owner runs
// it whole). Time is the TestClock's.
import { MemoryStore, RunStore } from "@hookline/store"
import { Context, Deferred, Effect, Exit, Fiber, Layer, Scope } from "effect"
import { MessageStorage, RunnerHealth, Runners, RunnerStorage, Sharding, ShardingConfig } from "effect/cluster"
import { TestClock } from "effect/testing"
import { describe, expect, it } from "vitest"
import { Client, ClusterAgent, RunEntity } from "../src/index.js"
import { agents, type Charge } from "./support/agents.js"

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

// The whole entity on effect/cluster's in-memory runner (TestRunner's parts, the message
// storage built outside the runner so it can be read after the runner is gone): a Start
// that arrives while the runner drains is left for the next owner, unanswered.
describe("RunEntity.layer", () => {
  it("leaves a Start that arrives while the runner drains unanswered and unprocessed, its run never begun (ClusterSchema.Abandon)", async () => {
    const charges: Array<Charge> = []
    const begun: Array<string> = []
    const store = MemoryStore.make()
    const out = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const storage = yield* Layer.build(MessageStorage.layerMemory.pipe(Layer.provideMerge(ShardingConfig.layer())))
      const driver = Context.get(storage, MessageStorage.MemoryDriver)
      const runner = Sharding.layer.pipe(
        Layer.provideMerge(Runners.layerNoop),
        Layer.provide([RunnerStorage.layerMemory, RunnerHealth.layerNoop]),
        Layer.provide(Layer.succeedContext(storage)),
      )
      const hookline = Layer.effect(
        RunEntity.Hookline,
        Effect.map(
          ClusterAgent.register(agents((c) => charges.push(c), 50, { onBegin: (runId) => begun.push(runId) }), store, { lease: 10_000 }),
          (registered) => ({ store, agents: registered }),
        ),
      )
      const app = Client.layer().pipe(Layer.provideMerge(RunEntity.layer({ drainTimeout: 60_000 }).pipe(Layer.provide(hookline))), Layer.provideMerge(runner))
      const scope = yield* Scope.make()
      const client = Context.get(yield* Layer.buildWithScope(app, scope), Client.HooklineClient)
      yield* client.start("charger", "charge me", { runId: "in-flight" })
      while (charges.length === 0) yield* Effect.sleep("5 millis")
      // The runner shuts down: its drain waits for the run in flight, and a Start that
      // comes meanwhile is held, then abandoned once effect/cluster's teardown begins.
      const closing = yield* Effect.forkChild(Scope.close(scope, Exit.void), { startImmediately: true })
      yield* client.start("charger", "charge me", { runId: "held" })
      yield* Fiber.join(closing)
      const startOf = (runId: string) => [...driver.requests.values()].find((e) => e.envelope._tag === "Request" && e.envelope.address.entityId === runId && e.envelope.tag === "Start")
      const held = startOf("held")
      return {
        inFlight: (yield* RunStore.loadEffect(store, "in-flight"))?.state.execution.status,
        inFlightAnswered: startOf("in-flight")?.replies.some((r) => r._tag === "WithExit"),
        heldStored: held !== undefined,
        heldAnswered: held?.replies.some((r) => r._tag === "WithExit"),
        heldUnprocessed: held !== undefined && driver.unprocessed.has(held.envelope),
        heldHead: yield* store.head("held"),
      }
    })))
    expect(out).toEqual({ inFlight: "completed", inFlightAnswered: true, heldStored: true, heldAnswered: false, heldUnprocessed: true, heldHead: 0 })
    // The held Start never began here: the next owner runs it whole.
    expect(begun).toEqual(["in-flight"])
    expect(new Set(charges.map((c) => c.runId))).toEqual(new Set(["in-flight"]))
  })
})
