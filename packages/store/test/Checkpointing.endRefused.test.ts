// A run's last checkpoint not stored by this run at its end: a lease lost while an
// AfterExecution hook above the store's waited (the run suspended on an approval), or a
// head another writer moved (CheckpointConflict). The caller is not told the run is
// suspended or completed as it sees it: the store holds something else.
import { AgentBuilder, Decision, Tool, UseDriver, UseHook, UseTools } from "@hookline/agent"
import { AgentState, Hook, HookContext, HookTriggers, Message } from "@hookline/core"
import { ScriptedDriver } from "@hookline/testing"
import { Clock, Deferred, Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import * as t from "io-ts"
import { describe, expect, it } from "vitest"
import { MemoryStore, RunStore, StoreError } from "../src/index.js"
import { RunLeasedReason, UseCheckpoints } from "../src/Checkpointing.js"
import * as Ending from "../src/internal/ending.js"

// The three ways a store writes a run's end: at once (MemoryStore), through its Effects
// (a spread copy), and commit and release in one statement (an ending, as the SQL stores).
const stores: ReadonlyArray<readonly [string, () => RunStore.RunStore]> = [
  ["at once", () => MemoryStore.make()],
  ["through its Effects", () => ({ ...MemoryStore.make() })],
  ["with an ending", () => {
    const store: RunStore.RunStore = { ...MemoryStore.make() }
    return Ending.register(store, {
      commitAndRelease: (commit, owner) => Effect.ensuring(store.commit(commit), Effect.ignore(store.releaseLease(commit.runId, owner))),
    })
  }],
]

const charge = Tool.make({ name: "charge", parameters: t.type({ amount: t.number }), execute: ({ amount }) => ({ charged: amount }) })

// One call of `charge`, suspended for an approval.
const approvalAgent = (store: RunStore.RunStore, atEnd: Hook.AnyHook<unknown>) =>
  AgentBuilder.make(
    UseDriver(ScriptedDriver.make([ScriptedDriver.toolCalls([{ id: "call-1", name: "charge", arguments: { amount: 1 } }]), ScriptedDriver.text("done")])),
    UseTools([charge]),
    UseHook((ctx) => (ctx.toolCall === undefined ? ctx : HookContext.suspend(ctx, "check", { amount: 1 })), {
      triggers: HookTriggers.beforeToolUse,
      name: "test:approval",
    }),
    UseHook(atEnd, { triggers: HookTriggers.of("AfterExecution"), priority: 0, name: "test:at_end" }),
    UseCheckpoints(store, { lease: "30 seconds" }),
  )

describe("UseCheckpoints, a suspended run that learns at its end that it lost its lease", () => {
  it.each(stores)("ends stopped with RunLeased, not suspended, and the store keeps the checkpoint it had (%s)", async (_, makeStore) => {
    const program = Effect.gen(function*() {
      const store = makeStore()
      const proceed = yield* Deferred.make<void>()
      const atEnd = yield* Deferred.make<number | undefined>()
      // Above the store's end: the head when the run got here, then waits until the
      // heartbeat's renewal was refused.
      const waitAtEnd = Hook.effect((ctx: HookContext) =>
        Effect.gen(function*() {
          const saved = yield* RunStore.loadEffect(store, ctx.state.id)
          yield* Deferred.succeed(atEnd, saved?.seq)
          yield* Deferred.await(proceed)
          return ctx
        })
      )
      const agent = approvalAgent(store, waitAtEnd)
      const run = yield* Effect.forkChild(agent.runEffect(AgentState.make({ id: "lost-suspended", messages: [Message.user("go")] })))
      const headAtEnd = yield* Deferred.await(atEnd)
      yield* RunStore.breakLeaseEffect(store, "lost-suspended")
      const now = yield* Clock.currentTimeMillis
      yield* store.takeLease({ runId: "lost-suspended", owner: "new owner", expiresAt: now + 1_000_000 }, now)
      // Returns once the woken heartbeat was refused its renewal.
      yield* TestClock.adjust("10 seconds")
      yield* Deferred.succeed(proceed, undefined)
      const final = yield* Fiber.join(run)
      const after = yield* RunStore.loadEffect(store, "lost-suspended")
      return { headAtEnd, final, after }
    })
    const { headAtEnd, final, after } = await Effect.runPromise(Effect.provide(program, TestClock.layer()))
    // The store holds what it held when the run reached its end: not the suspension.
    expect(after?.seq).toBe(headAtEnd)
    expect(after?.state.execution.status).not.toBe("suspended")
    expect(final.execution.status).toBe("stopped")
    expect(final.execution.stopReason).toBe(RunLeasedReason.name)
    // Nothing waits on this caller's approval: the run is another owner's.
    expect(final.execution.pendingCalls).toBeUndefined()
  })
})

// A model that answers at once; an AfterExecution hook above the store's writes the next
// checkpoint first, as another owner would (the run holds its lease all along).
const plainAgent = (store: RunStore.RunStore, driver = ScriptedDriver.make([ScriptedDriver.text("done")])) =>
  AgentBuilder.make(
    UseDriver(driver),
    UseHook(
      Hook.effect((ctx: HookContext) =>
        Effect.gen(function*() {
          const saved = yield* RunStore.loadEffect(store, ctx.state.id)
          if (saved === undefined) return ctx
          yield* RunStore.saveEffect(store, AgentState.appendMessage(saved.state, Message.user("the other owner's")), saved)
          return ctx
        })
      ),
      { triggers: HookTriggers.of("AfterExecution"), priority: 0, name: "test:other_owner" },
    ),
    UseCheckpoints(store),
  )

describe("UseCheckpoints, a run whose last checkpoint is refused (CheckpointConflict)", () => {
  it.each(stores)("ends stopped with the conflict as its reason, not completed (%s)", async (_, makeStore) => {
    const store = makeStore()
    const final = await plainAgent(store).run(AgentState.make({ id: "conflict-end", messages: [Message.user("go")] }))
    const stored = await RunStore.load(store, "conflict-end")
    // The other owner's checkpoint stands; the run's own end was never stored.
    expect(stored?.state.context.messages.last()?.content).toBe("the other owner's")
    expect(final.execution.status).toBe("stopped")
    expect(final.execution.stopReason).toBe("CheckpointConflict")
  })

  it.each(stores)("fails a resume with the typed CheckpointConflict, as before (%s)", async (_, makeStore) => {
    const store = makeStore()
    const suspended = await approvalAgent(store, (ctx) => ctx).run(AgentState.make({ id: "conflict-resume", messages: [Message.user("go")] }))
    expect(suspended.execution.status).toBe("suspended")
    const resumed = await plainAgent(store).resume("conflict-resume", [Decision.approve("call-1")]).then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(resumed).toBeInstanceOf(StoreError.CheckpointConflict)
  })
})
