// A final step's checkpoint held for the run's end (a store with an ending) and a lease
// lost before that end: the held checkpoint is not written, and the run stops with RunLeased.
import { AgentBuilder, UseDriver, UseHook } from "@hookline/agent"
import { AgentState, Hook, HookTriggers, Message } from "@hookline/core"
import { ScriptedDriver } from "@hookline/testing"
import { Clock, Deferred, Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { describe, expect, it } from "vitest"
import { MemoryStore, RunStore } from "../src/index.js"
import { RunLeasedReason, UseCheckpoints } from "../src/Checkpointing.js"
import * as Ending from "../src/internal/ending.js"

// A MemoryStore that ends a run as the SQL stores do (commit, then release, whatever the
// commit's answer), and counts the renewals of the lease it refused.
const endingStore = (refused: { count: number }): RunStore.RunStore => {
  const base = MemoryStore.make()
  const store: RunStore.RunStore = {
    ...base,
    renewLease: (lease) =>
      Effect.tap(base.renewLease(lease), (held) => Effect.sync(() => void (held ? undefined : refused.count++))),
  }
  return Ending.register(store, {
    commitAndRelease: (commit, owner) => Effect.ensuring(store.commit(commit), Effect.ignore(store.releaseLease(commit.runId, owner))),
  })
}

describe("UseCheckpoints, a held final step and a lost lease", () => {
  it("does not write the held step's checkpoint of a run that learned it lost its lease before its end, and stops it with RunLeased", async () => {
    const program = Effect.gen(function*() {
      const refused = { count: 0 }
      const proceed = yield* Deferred.make<void>()
      const atEnd = yield* Deferred.make<number | undefined>()
      const store = endingStore(refused)
      // Above the store's end (priority -1,000,000): the head when the run got here, then
      // waits until the heartbeat's renewal was refused.
      const waitAtEnd = Hook.effect((ctx) =>
        Effect.gen(function*() {
          const saved = yield* RunStore.loadEffect(store, ctx.state.id)
          yield* Deferred.succeed(atEnd, saved?.seq)
          yield* Deferred.await(proceed)
          return ctx
        })
      )
      const agent = AgentBuilder.make(
        UseDriver(ScriptedDriver.make([ScriptedDriver.text("done")])),
        UseHook(waitAtEnd, { triggers: HookTriggers.of("AfterExecution"), priority: 0, name: "test:wait_at_end" }),
        UseCheckpoints(store, { lease: "30 seconds" }),
      )
      const run = yield* Effect.forkChild(agent.runEffect(AgentState.make({ id: "held", messages: [Message.user("go")] })))
      const headAtEnd = yield* Deferred.await(atEnd)
      // Another owner breaks the lease and takes it; the run's next renewal is refused.
      yield* RunStore.breakLeaseEffect(store, "held")
      const now = yield* Clock.currentTimeMillis
      yield* store.takeLease({ runId: "held", owner: "new owner", expiresAt: now + 1_000_000 }, now)
      // `adjust` returns once the woken heartbeat suspended or ended: the run knows it lost
      // its lease before its end goes on.
      yield* TestClock.adjust("10 seconds")
      yield* Deferred.succeed(proceed, undefined)
      const final = yield* Fiber.join(run)
      const after = yield* RunStore.loadEffect(store, "held")
      const newOwnerHolds = yield* Effect.flip(store.takeLease({ runId: "held", owner: "probe", expiresAt: now + 1 }, now))
      return { headAtEnd, final, after, newOwnerHolds, refused: refused.count }
    })
    const { headAtEnd, final, after, newOwnerHolds, refused } = await Effect.runPromise(Effect.provide(program, TestClock.layer()))
    expect(refused).toBe(1)
    // The final step was held: the store's head is the run's first checkpoint.
    expect(headAtEnd).toBe(1)
    // Nothing of the run was written after it learned it lost its lease.
    expect(after?.seq).toBe(headAtEnd)
    expect(after?.state.execution.steps).toHaveLength(0)
    expect(final.execution.status).toBe("stopped")
    expect(final.execution.stopReason).toBe(RunLeasedReason.name)
    // The lease is the new owner's still.
    expect(newOwnerHolds).toMatchObject({ _tag: "RunLeased", runId: "held" })
  })
})
