/**
 * The run store conformance suite: what every `RunStore` must do, as test cases you
 * register with your test runner. It needs no runner of its own (no vitest import):
 * pass your `it`.
 *
 * ```ts
 * import { MemoryStore } from "@hookline/store"
 * import { StoreConformance } from "@hookline/testing/store"
 * import { describe, it } from "vitest"
 *
 * describe("my store", () => {
 *   StoreConformance.register(it, async () => MemoryStore.make())
 * })
 * ```
 *
 * Each case works on run ids of its own, so the factory may hand out one store for
 * every case (an embedded database opened once per file).
 *
 * @since 0.1.0
 */
import { AgentBuilder, Decision, Tool, UseDriver, UseTools } from "@hookline/agent"
import { AgentState, Codecs, Message, StopSignal } from "@hookline/core"
import { RunStore, StoreError, UseCheckpoints } from "@hookline/store"
import { Effect, Exit } from "effect"
import * as assert from "node:assert/strict"
import { approvalAgent, caseNumber, failureOf, runIdOf, sameState, started, stepOf } from "./internal/storeCase.js"
import { runCases } from "./internal/storeRunCases.js"
import * as ScriptedDriver from "./ScriptedDriver.js"

/**
 * A conformance case: a name and a body that throws when the store fails it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Case {
  readonly name: string
  readonly run: () => Promise<void>
  /** Milliseconds the case may take, for one that writes huge states (the runner's default otherwise). */
  readonly timeout?: number | undefined
}

/**
 * How to get the store under test, and how to let it go after a case (default: nothing;
 * close a store the factory opened for that case alone).
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly release?: ((store: RunStore.RunStore) => Promise<void>) | undefined
  /**
   * Deletes one checkpoint row of a run behind the store's back (SQL `DELETE`, a file
   * removed), as a lost write or a bad restore would: given, the suite checks that
   * loading the run reports a `CheckpointMissing`.
   */
  readonly dropCheckpoint?: ((store: RunStore.RunStore, runId: string, seq: number) => Promise<void>) | undefined
  /** How many generated states the property "loads back what it acknowledged" tries (default 12). */
  readonly propertyRuns?: number | undefined
}

/**
 * The cases, each opening its store with `make`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const cases = (make: () => Promise<RunStore.RunStore>, options: Options = {}): ReadonlyArray<Case> => {
  const using = (name: string, body: (store: RunStore.RunStore) => Promise<void>, timeout?: number): Case => ({
    name,
    ...(timeout === undefined ? {} : { timeout }),
    run: async () => {
      const store = await make()
      try {
        await body(store)
      } finally {
        await options.release?.(store)
      }
    },
  })
  return [
    using("gives back the saved state after every checkpoint", async (store) => {
      const runId = runIdOf("roundtrip")
      let state = started(runId)
      let saved = await RunStore.save(store, state)
      for (let i = 0; i < 4; i++) {
        state = stepOf(state, i)
        saved = await RunStore.save(store, state, saved)
        const loaded = await RunStore.load(store, runId)
        assert.equal(loaded?.seq, saved.seq)
        sameState(loaded?.state, state)
      }
      state = AgentState.withStatus(AgentState.withStopSignal(state, StopSignal.make("Completed", "done", "loop")), "completed", 9)
      await RunStore.save(store, state, saved)
      sameState((await RunStore.load(store, runId))?.state, state)
    }),
    using("knows no unknown run", async (store) => {
      const runId = runIdOf("unknown")
      assert.equal(await RunStore.load(store, runId), undefined)
      assert.deepStrictEqual(await Effect.runPromise(store.rows(runId)), [])
      assert.equal(await Effect.runPromise(store.journalGet(runId, "call-1")), undefined)
    }),
    using("commits one of two writers from the same head; the other gets CheckpointConflict and writes nothing", async (store) => {
      const runId = runIdOf("conflict")
      const first = await RunStore.save(store, started(runId))
      const winner = stepOf(first.state, 0)
      await RunStore.save(store, winner, first)
      const error = await failureOf(RunStore.saveEffect(store, stepOf(first.state, 7), first))
      assert.ok(error instanceof StoreError.CheckpointConflict, `expected CheckpointConflict, got ${String(error)}`)
      assert.equal(error.expected, 1)
      assert.equal(error.actual, 2)
      sameState((await RunStore.load(store, runId))?.state, winner)
      // A second new run of a stored id writes nothing either.
      const again = await failureOf(RunStore.saveEffect(store, started(runId)))
      assert.ok(again instanceof StoreError.RunExists)
      sameState((await RunStore.load(store, runId))?.state, winner)
    }),
    using("lets exactly one of many concurrent writers commit", async (store) => {
      const runId = runIdOf("race")
      const first = await RunStore.save(store, started(runId))
      const exits = await Promise.all(
        Array.from({ length: 8 }, (_, i) => Effect.runPromiseExit(RunStore.saveEffect(store, stepOf(first.state, i), first))),
      )
      const won = exits.filter(Exit.isSuccess)
      assert.equal(won.length, 1, "exactly one writer commits")
      const loaded = await RunStore.load(store, runId)
      assert.equal(loaded?.seq, 2)
      sameState(loaded?.state, (won[0] as Exit.Success<RunStore.Saved, unknown>).value.state)
    }),
    using("fails the loser of two resumes of one run with RunLeased or CheckpointConflict; the store keeps the winner's run", async (store) => {
      const runId = runIdOf("resume-race")
      // A run stored before it began: both resumes start its execution now.
      await RunStore.save(store, AgentState.make({ id: runId, messages: [Message.user("look it up")] }))
      // Both agents load the run before either goes on, as two processes would.
      let waiting = 2
      let release: () => void = () => undefined
      const bothLoaded = new Promise<void>((resolve) => (release = resolve))
      const racing: RunStore.RunStore = {
        ...store,
        rows: (id) =>
          Effect.andThen(store.rows(id), (rows) =>
            id !== runId ? Effect.succeed(rows) : Effect.as(Effect.promise(() => (--waiting === 0 && release(), bothLoaded)), rows)),
      }
      const lookup = Tool.make({ name: "lookup", parameters: Codecs.JsonObject, jsonSchema: { type: "object" }, execute: () => ({ found: true }) })
      const agent = () =>
        AgentBuilder.make(
          UseDriver(ScriptedDriver.make([ScriptedDriver.toolCalls([{ name: "lookup", arguments: {} }]), ScriptedDriver.text("done")])),
          UseTools([lookup]),
          UseCheckpoints(racing),
        )
      const exits = await Promise.all([agent(), agent()].map((a) => Effect.runPromiseExit(a.resumeEffect(runId))))
      const won = exits.filter(Exit.isSuccess)
      assert.equal(won.length, 1, "exactly one resume finishes")
      const winner = (won[0] as Exit.Success<AgentState, unknown>).value
      assert.equal(winner.execution.status, "completed", JSON.stringify(winner.execution.stopSignals))
      const lost = exits.find(Exit.isFailure) as Exit.Failure<AgentState, unknown>
      const reason = lost.cause.reasons[0]
      assert.ok(reason !== undefined && reason._tag === "Fail", "the loser fails with a typed error")
      // Refused the lease while the winner runs; or, when the winner ended before the
      // loser asked for it, refused its first checkpoint.
      assert.ok(
        reason.error instanceof StoreError.RunLeased || reason.error instanceof StoreError.CheckpointConflict,
        `expected RunLeased or CheckpointConflict, got ${String(reason.error)}`,
      )
      assert.equal(reason.error.runId, runId)
      sameState((await RunStore.load(store, runId))?.state, winner)
    }),
    using("lets one of many takers at once take a run's lease; the others get RunLeased with its expiry", async (store) => {
      const runId = runIdOf("lease-race")
      const now = 1_000_000
      const exits = await Promise.all(
        Array.from({ length: 8 }, (_, i) => Effect.runPromiseExit(store.takeLease({ runId, owner: `owner-${i}`, expiresAt: now + 1_000 + i }, now))),
      )
      const won = exits.flatMap((exit, i) => (Exit.isSuccess(exit) ? [i] : []))
      assert.equal(won.length, 1, "exactly one taker holds the lease")
      const winner = won[0] as number
      for (const [i, exit] of exits.entries()) {
        if (i === winner) continue
        const error = await failureOf(Effect.suspend(() => exit))
        assert.ok(error instanceof StoreError.RunLeased, `expected RunLeased, got ${String(error)}`)
        assert.equal(error.runId, runId)
        assert.equal(error.expiresAt, now + 1_000 + winner)
        assert.ok(error.message.includes(runId))
      }
      // The winner holds it still: a late taker is refused too.
      const late = await failureOf(store.takeLease({ runId, owner: "late", expiresAt: now + 5_000 }, now + 10))
      assert.ok(late instanceof StoreError.RunLeased)
    }),
    using("frees a lease at its expiry: the next taker gets it, and the old holder can no longer renew it", async (store) => {
      const runId = runIdOf("lease-expiry")
      await Effect.runPromise(store.takeLease({ runId, owner: "a", expiresAt: 2_000 }, 1_000))
      const before = await failureOf(store.takeLease({ runId, owner: "b", expiresAt: 3_000 }, 1_999))
      assert.ok(before instanceof StoreError.RunLeased)
      assert.equal(before.expiresAt, 2_000)
      // Expired at 2,000 (time is an argument: no sleep).
      await Effect.runPromise(store.takeLease({ runId, owner: "b", expiresAt: 3_000 }, 2_000))
      assert.equal(await Effect.runPromise(store.renewLease({ runId, owner: "a", expiresAt: 9_000 })), false)
      const after = await failureOf(store.takeLease({ runId, owner: "a", expiresAt: 4_000 }, 2_500))
      assert.ok(after instanceof StoreError.RunLeased)
      assert.equal(after.expiresAt, 3_000)
    }),
    using("renews a lease for its holder only", async (store) => {
      const runId = runIdOf("lease-renew")
      await Effect.runPromise(store.takeLease({ runId, owner: "a", expiresAt: 2_000 }, 1_000))
      assert.equal(await Effect.runPromise(store.renewLease({ runId, owner: "a", expiresAt: 5_000 })), true)
      const refused = await failureOf(store.takeLease({ runId, owner: "b", expiresAt: 6_000 }, 3_000))
      assert.ok(refused instanceof StoreError.RunLeased)
      assert.equal(refused.expiresAt, 5_000)
      assert.equal(await Effect.runPromise(store.renewLease({ runId, owner: "b", expiresAt: 9_000 })), false)
      const still = await failureOf(store.takeLease({ runId, owner: "b", expiresAt: 6_000 }, 4_999))
      assert.ok(still instanceof StoreError.RunLeased)
      assert.equal(still.expiresAt, 5_000)
      // No lease at all: nothing to renew.
      assert.equal(await Effect.runPromise(store.renewLease({ runId: `${runId}-none`, owner: "a", expiresAt: 9_000 })), false)
    }),
    using("releases a lease for its holder; breaks it for anyone who asks without an owner", async (store) => {
      const runId = runIdOf("lease-release")
      await Effect.runPromise(store.takeLease({ runId, owner: "a", expiresAt: 2_000 }, 1_000))
      assert.equal(await Effect.runPromise(store.releaseLease(runId, "b")), false)
      assert.ok((await failureOf(store.takeLease({ runId, owner: "b", expiresAt: 3_000 }, 1_500))) instanceof StoreError.RunLeased)
      assert.equal(await Effect.runPromise(store.releaseLease(runId, "a")), true)
      assert.equal(await Effect.runPromise(store.releaseLease(runId, "a")), false)
      await Effect.runPromise(store.takeLease({ runId, owner: "b", expiresAt: 3_000 }, 1_500))
      // A take-over: dropped whoever holds it.
      assert.equal(await RunStore.breakLease(store, runId), true)
      assert.equal(await Effect.runPromise(store.renewLease({ runId, owner: "b", expiresAt: 9_000 })), false)
      await Effect.runPromise(store.takeLease({ runId, owner: "c", expiresAt: 3_000 }, 1_500))
    }),
    using("lets the holder take its lease again, to a new expiry", async (store) => {
      const runId = runIdOf("lease-retake")
      await Effect.runPromise(store.takeLease({ runId, owner: "a", expiresAt: 2_000 }, 1_000))
      await Effect.runPromise(store.takeLease({ runId, owner: "a", expiresAt: 3_000 }, 1_500))
      const refused = await failureOf(store.takeLease({ runId, owner: "b", expiresAt: 4_000 }, 2_500))
      assert.ok(refused instanceof StoreError.RunLeased)
      assert.equal(refused.expiresAt, 3_000)
    }),
    using("drops a run's lease with the run", async (store) => {
      const runId = runIdOf("lease-remove")
      await RunStore.save(store, started(runId))
      await Effect.runPromise(store.takeLease({ runId, owner: "a", expiresAt: 2_000 }, 1_000))
      assert.equal(await RunStore.remove(store, runId), true)
      await Effect.runPromise(store.takeLease({ runId, owner: "b", expiresAt: 2_000 }, 1_000))
      assert.equal(await Effect.runPromise(store.renewLease({ runId, owner: "a", expiresAt: 9_000 })), false)
    }),
    using("refuses a resume while another run holds the lease: RunLeased, no model call, no tool, no checkpoint", async (store) => {
      const runId = runIdOf("lease-resume")
      const saved = await RunStore.save(store, AgentState.make({ id: runId, messages: [Message.user("look it up")] }))
      let calls = 0
      let asked = 0
      const lookup = Tool.make({
        name: "lookup",
        parameters: Codecs.JsonObject,
        jsonSchema: { type: "object" },
        execute: () => {
          calls++
          return { found: true }
        },
      })
      const agent = AgentBuilder.make(
        UseDriver(ScriptedDriver.make([
          ScriptedDriver.respond(() => {
            asked++
            return ScriptedDriver.toolCalls([{ name: "lookup", arguments: {} }])
          }),
          ScriptedDriver.text("done"),
        ])),
        UseTools([lookup]),
        UseCheckpoints(store),
      )
      // Another process's run holds it (the agents read the real clock).
      const expiresAt = Date.now() + 600_000
      await Effect.runPromise(store.takeLease({ runId, owner: "another process", expiresAt }, Date.now()))
      const error = await failureOf(agent.resumeEffect(runId))
      assert.ok(error instanceof StoreError.RunLeased, `expected RunLeased, got ${String(error)}`)
      assert.equal(error.runId, runId)
      assert.equal(error.expiresAt, expiresAt)
      assert.equal(asked, 0, "no model call")
      assert.equal(calls, 0, "no tool")
      assert.equal((await RunStore.load(store, runId))?.seq, saved.seq, "no checkpoint")
      // Its holder lets it go: the resume goes on, and releases it at the end.
      assert.equal(await Effect.runPromise(store.releaseLease(runId, "another process")), true)
      const final = await Effect.runPromise(agent.resumeEffect(runId))
      assert.equal(final.execution.status, "completed")
      assert.equal(calls, 1)
      await Effect.runPromise(store.takeLease({ runId, owner: "after", expiresAt: Date.now() + 1_000 }, Date.now()))
    }),
    using("runs an approved call once when the run is resumed again while its first resume is in the call", async (store) => {
      const runId = runIdOf("lease-slow-tool")
      let runs = 0
      let entered: () => void = () => undefined
      let release: () => void = () => undefined
      const inside = new Promise<void>((resolve) => (entered = resolve))
      const gate = new Promise<void>((resolve) => (release = resolve))
      const refund = Tool.make({
        name: "refund",
        parameters: Codecs.JsonObject,
        jsonSchema: { type: "object" },
        execute: async () => {
          runs++
          entered()
          await gate
          return { refunded: true }
        },
      })
      const agent = () => approvalAgent(store, refund)
      const suspended = await Effect.runPromise(agent().runEffect(AgentState.make({ id: runId, messages: [Message.user("refund")] })))
      assert.equal(suspended.execution.status, "suspended")
      const pending = suspended.execution.pendingCalls?.[0]?.toolCall.id as string
      const first = Effect.runPromise(agent().resumeEffect(runId, [Decision.approve(pending)]))
      await inside
      // A worker picking up the run as if its process had died: no decisions, so it would
      // carry out the kept approval. The lease refuses it.
      const error = await failureOf(agent().resumeEffect(runId))
      assert.ok(error instanceof StoreError.RunLeased, `expected RunLeased, got ${String(error)}`)
      assert.equal(error.runId, runId)
      release()
      const final = await first
      assert.equal(final.execution.status, "completed", JSON.stringify(final.execution.stopSignals))
      assert.equal(runs, 1, "the approved call ran once")
      sameState((await RunStore.load(store, runId))?.state, final)
      // Released: resuming the finished run gives it back, and runs nothing.
      sameState(await Effect.runPromise(agent().resumeEffect(runId)), final)
      assert.equal(runs, 1)
    }),
    using("lists runs in pages, in a stable order (newest first, then by run id), none skipped or repeated", async (store) => {
      const tag = runIdOf("pages")
      const at = 5_000_000
      // Two runs per update time: the order between them is the run id's.
      const ids = ["e", "c", "a", "d", "b"].map((s) => `${tag}-${s}`)
      for (const [i, runId] of ids.entries()) {
        await RunStore.startEffect(store, AgentState.make({ id: runId }), { at: at + Math.floor(i / 2) }).pipe(Effect.runPromise)
      }
      const window = { updatedSince: at, updatedBefore: at + 10 }
      const all = (await RunStore.list(store, window)).filter((r) => r.runId.startsWith(tag)).map((r) => r.runId)
      assert.deepStrictEqual(all, [`${tag}-b`, `${tag}-a`, `${tag}-d`, `${tag}-c`, `${tag}-e`])
      const paged: Array<string> = []
      let after: RunStore.Cursor | undefined
      for (let page = 0; page < 10; page++) {
        const found = await RunStore.list(store, { ...window, limit: 2, after })
        if (found.length === 0) break
        paged.push(...found.filter((r) => r.runId.startsWith(tag)).map((r) => r.runId))
        after = found[found.length - 1]
      }
      assert.deepStrictEqual(paged, all)
    }),
    using("lists runs by status and time, newest first", async (store) => {
      const tag = runIdOf("list")
      const at = 2_000_000_000_000 + (caseNumber() % 1_000) * 1_000_000
      const ids = [`${tag}-a`, `${tag}-b`, `${tag}-c`]
      await Effect.runPromise(RunStore.saveEffect(store, started(ids[0]!), undefined, at + 10))
      await Effect.runPromise(RunStore.saveEffect(store, AgentState.withStatus(started(ids[1]!), "completed", 2), undefined, at + 20))
      const c = await Effect.runPromise(RunStore.saveEffect(store, started(ids[2]!), undefined, at + 30))
      await Effect.runPromise(RunStore.saveEffect(store, AgentState.withStatus(c.state, "failed", 3), c, at + 40))
      const mine = (runs: ReadonlyArray<RunStore.RunSummary>) => runs.filter((r) => r.runId.startsWith(tag)).map((r) => r.runId)
      const window = { updatedSince: at, updatedBefore: at + 1_000 }
      assert.deepStrictEqual(mine(await RunStore.list(store, window)), [ids[2], ids[1], ids[0]])
      assert.deepStrictEqual(mine(await RunStore.list(store, { ...window, status: "running" })), [ids[0]])
      assert.deepStrictEqual(mine(await RunStore.list(store, { ...window, status: ["completed", "failed"] })), [ids[2], ids[1]])
      assert.deepStrictEqual(mine(await RunStore.list(store, { updatedSince: at + 15, updatedBefore: at + 35 })), [ids[1]])
      assert.deepStrictEqual(mine(await RunStore.list(store, { ...window, limit: 1 })), [ids[2]])
      const summary = (await RunStore.list(store, window)).find((r) => r.runId === ids[2])
      assert.deepStrictEqual(summary, { runId: ids[2], seq: 2, status: "failed", createdAt: at + 30, updatedAt: at + 40 })
    }),
    using("keeps the first journal entry written under a key", async (store) => {
      const runId = runIdOf("journal")
      assert.equal(await Effect.runPromise(store.journalPut(runId, "call-1", "first")), true)
      assert.equal(await Effect.runPromise(store.journalPut(runId, "call-1", "second")), false)
      assert.equal(await Effect.runPromise(store.journalGet(runId, "call-1")), "first")
      assert.equal(await Effect.runPromise(store.journalGet(`${runId}-other`, "call-1")), undefined)
      // A journal written before the run's first checkpoint stays with the run.
      await RunStore.save(store, started(runId))
      assert.equal(await Effect.runPromise(store.journalGet(runId, "call-1")), "first")
    }),
    using("deletes a run with its checkpoints and journal", async (store) => {
      const runId = runIdOf("remove")
      const saved = await RunStore.save(store, started(runId))
      await RunStore.save(store, stepOf(saved.state, 0), saved)
      await Effect.runPromise(store.journalPut(runId, "call-0", "result"))
      assert.equal(await RunStore.remove(store, runId), true)
      assert.equal(await RunStore.load(store, runId), undefined)
      assert.equal(await Effect.runPromise(store.journalGet(runId, "call-0")), undefined)
      assert.equal(await RunStore.remove(store, runId), false)
      // The id is free again.
      await RunStore.save(store, started(runId))
      assert.equal((await RunStore.load(store, runId))?.seq, 1)
    }),
    using("keeps checkpoint text byte for byte", async (store) => {
      const runId = runIdOf("bytes")
      const body = Array.from({ length: 2_000 }, (_, i) => String.fromCodePoint(0x20 + (i * 7919) % 0xd700)).join("")
      await Effect.runPromise(store.commit({ runId, seq: 1, status: "running", at: 1, body }))
      assert.deepStrictEqual(await Effect.runPromise(store.rows(runId)), [{ seq: 1, body }])
      const error = await failureOf(store.commit({ runId, seq: 3, status: "running", at: 2, body: "{}" }))
      assert.ok(error instanceof StoreError.CheckpointConflict)
      assert.deepStrictEqual(await Effect.runPromise(store.rows(runId)), [{ seq: 1, body }])
    }),
    using("reports a corrupt checkpoint as DecodeFailed and keeps it", async (store) => {
      const runId = runIdOf("corrupt")
      await Effect.runPromise(store.commit({ runId, seq: 1, status: "running", at: 1, body: JSON.stringify({ v: 99, id: runId }) }))
      const error = await failureOf(RunStore.loadEffect(store, runId))
      assert.ok(error instanceof StoreError.DecodeFailed, `expected DecodeFailed, got ${String(error)}`)
      assert.equal(error.path, "checkpoints[0].v")
      assert.equal((await Effect.runPromise(store.rows(runId))).length, 1)
    }),
    ...runCases(options).map((c) => using(c.name, c.body, c.timeout)),
  ]
}

/**
 * Registers every case with your runner's `it` (vitest, jest, node:test).
 *
 * @since 0.1.0
 * @category running
 */
export const register = (
  it: (name: string, body: () => Promise<void>, timeout?: number) => unknown,
  make: () => Promise<RunStore.RunStore>,
  options: Options = {},
): void => {
  for (const c of cases(make, options)) {
    if (c.timeout === undefined) it(c.name, c.run)
    else it(c.name, c.run, c.timeout)
  }
}
