/**
 * The store contract: where a run's checkpoints and its journal of tool results live.
 * A store keeps rows (JSON text) and enforces the sequence; this module turns states
 * into delta checkpoints and back. Every operation has a Promise form (`save`) and an
 * Effect form (`saveEffect`); a store is written against the Effect contract, or with
 * `fromPromise`.
 *
 * @since 0.1.0
 */
import type { AgentState } from "@hookline/core"
import { Effect, Result } from "effect"
import * as Checkpoint from "./Checkpoint.js"
import type * as Envelope from "./Envelope.js"
import * as CombinedRead from "./internal/combinedRead.js"
import * as Plan from "./internal/plan.js"
import * as StoreError from "./StoreError.js"

/**
 * A checkpoint to commit: `seq` must be the run's head plus one (1 for a new run).
 *
 * @since 0.1.0
 * @category models
 */
export interface Commit {
  readonly runId: string
  readonly seq: number
  readonly status: AgentState.ExecutionStatus
  /** Epoch ms, for listing by time. */
  readonly at: number
  /** The delta's JSON text. */
  readonly body: string
}

/**
 * One stored run, as `list` gives it.
 *
 * @since 0.1.0
 * @category models
 */
export interface RunSummary {
  readonly runId: string
  readonly seq: number
  readonly status: AgentState.ExecutionStatus
  readonly createdAt: number
  readonly updatedAt: number
}

/**
 * Where a page of `list` ends: its last run's `updatedAt` and `runId` (pass the last
 * summary of a page as `after` to get the next one).
 *
 * @since 0.1.0
 * @category models
 */
export interface Cursor {
  readonly updatedAt: number
  readonly runId: string
}

/**
 * Which runs `list` gives, in a stable order: newest update first, then by run id (in
 * UTF-16 code unit order for ids of the Basic Multilingual Plane, as the SQL stores'
 * `COLLATE "C"`), so pages never skip or repeat a run that did not change meanwhile.
 *
 * @since 0.1.0
 * @category models
 */
export interface ListQuery {
  readonly status?: AgentState.ExecutionStatus | ReadonlyArray<AgentState.ExecutionStatus> | undefined
  /** Only runs updated at or after this time (epoch ms). */
  readonly updatedSince?: number | undefined
  /** Only runs updated before this time (epoch ms). */
  readonly updatedBefore?: number | undefined
  /** The most runs to give (a page's size). */
  readonly limit?: number | undefined
  /** Only runs after this one in the order: the next page after a page ending there. */
  readonly after?: Cursor | undefined
}

/**
 * A run's lease: who holds it (an owner token, one per run start) and until when.
 *
 * @since 0.1.0
 * @category models
 */
export interface Lease {
  readonly runId: string
  readonly owner: string
  /** Epoch ms; at or after it the lease is free. */
  readonly expiresAt: number
}

/**
 * A run's head (0 for an unknown run) and one journal entry (`undefined` when absent), as
 * `readHeadAndJournal` gives them.
 *
 * @since 0.1.0
 * @category models
 */
export type HeadAndJournal = CombinedRead.HeadAndJournal

/**
 * A store. `commit` is atomic and optimistic: it writes only when the run's head is
 * `seq - 1`, else fails with `CheckpointConflict` and writes nothing. The journal keeps
 * the first entry written under a key (`journalPut` answers whether it wrote).
 *
 * @since 0.1.0
 * @category models
 */
export interface RunStore {
  readonly _tag: "RunStore"
  /** A short name for messages and benches ("memory", "pglite", "postgres"). */
  readonly name: string
  readonly commit: (commit: Commit) => Effect.Effect<void, StoreError.CheckpointConflict | StoreError.StoreFailed>
  /**
   * Writes a new run's first checkpoint (`commit.seq` is 1) only when no run of that id
   * is stored, atomically (an insert if absent, never a read then a write): of two
   * creators of one id, one writes and the other gets `RunExists`, having changed
   * nothing. With `replace`, a stored run's checkpoints and journal are dropped and the
   * first checkpoint written in one transaction (its lease stays: the caller holds it).
   */
  readonly create: (commit: Commit, replace: boolean) => Effect.Effect<void, StoreError.RunExists | StoreError.StoreFailed>
  /** The run's checkpoints, oldest first; none for an unknown run. */
  readonly rows: (runId: string) => Effect.Effect<ReadonlyArray<Checkpoint.Row>, StoreError.StoreFailed>
  /**
   * The sequence number of the run's latest checkpoint as the store records it (0 for an
   * unknown run), kept apart from the rows: `load` checks the rows it read against it.
   */
  readonly head: (runId: string) => Effect.Effect<number, StoreError.StoreFailed>
  readonly list: (query: ListQuery) => Effect.Effect<ReadonlyArray<RunSummary>, StoreError.StoreFailed>
  /** Deletes the run, its checkpoints and its journal; answers whether it was there. */
  readonly remove: (runId: string) => Effect.Effect<boolean, StoreError.StoreFailed>
  readonly journalPut: (runId: string, key: string, body: string) => Effect.Effect<boolean, StoreError.StoreFailed>
  readonly journalGet: (runId: string, key: string) => Effect.Effect<string | undefined, StoreError.StoreFailed>
  /**
   * Takes the run's lease until `lease.expiresAt`, atomically: when nobody holds it, the
   * holder's expired (`expiresAt <= now`), or `lease.owner` holds it already. Else fails
   * with `RunLeased` carrying the holder's expiry, and changes nothing. A lease needs no
   * stored run (a new run takes it before its first checkpoint).
   */
  readonly takeLease: (lease: Lease, now: number) => Effect.Effect<void, StoreError.RunLeased | StoreError.StoreFailed>
  /**
   * Moves the expiry of `lease.owner`'s lease to `lease.expiresAt`; answers false (and
   * changes nothing) when that owner holds it no more: another took it after it expired,
   * or it was released, broken or removed with its run.
   */
  readonly renewLease: (lease: Lease) => Effect.Effect<boolean, StoreError.StoreFailed>
  /**
   * Drops the run's lease if `owner` holds it, or whoever holds it with no owner (a
   * take-over: `breakLease`); answers whether one was dropped.
   */
  readonly releaseLease: (runId: string, owner?: string | undefined) => Effect.Effect<boolean, StoreError.StoreFailed>
  readonly close: () => Effect.Effect<void>
}

/**
 * A store written with Promises; a rejection becomes `StoreFailed`, except a
 * `CheckpointConflict`, `RunExists` or `RunLeased` the store rejects with, which stays one.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromPromise = (store: {
  readonly name: string
  readonly commit: (commit: Commit) => Promise<void>
  readonly create: (commit: Commit, replace: boolean) => Promise<void>
  readonly rows: (runId: string) => Promise<ReadonlyArray<Checkpoint.Row>>
  readonly head: (runId: string) => Promise<number>
  readonly list: (query: ListQuery) => Promise<ReadonlyArray<RunSummary>>
  readonly remove: (runId: string) => Promise<boolean>
  readonly journalPut: (runId: string, key: string, body: string) => Promise<boolean>
  readonly journalGet: (runId: string, key: string) => Promise<string | undefined>
  readonly takeLease: (lease: Lease, now: number) => Promise<void>
  readonly renewLease: (lease: Lease) => Promise<boolean>
  readonly releaseLease: (runId: string, owner?: string | undefined) => Promise<boolean>
  readonly close: () => Promise<void>
}): RunStore => {
  const lift = <A>(operation: string, f: () => Promise<A>) =>
    Effect.tryPromise({ try: f, catch: (cause) => StoreError.storeFailed(operation, cause) })
  return Object.freeze({
    _tag: "RunStore",
    name: store.name,
    commit: (commit: Commit) =>
      Effect.tryPromise({
        try: () => store.commit(commit),
        catch: (cause) => cause instanceof StoreError.CheckpointConflict ? cause : StoreError.storeFailed("commit", cause),
      }),
    create: (commit: Commit, replace: boolean) =>
      Effect.tryPromise({
        try: () => store.create(commit, replace),
        catch: (cause) => cause instanceof StoreError.RunExists ? cause : StoreError.storeFailed("create", cause),
      }),
    rows: (runId: string) => lift("rows", () => store.rows(runId)),
    head: (runId: string) => lift("head", () => store.head(runId)),
    list: (query: ListQuery) => lift("list", () => store.list(query)),
    remove: (runId: string) => lift("remove", () => store.remove(runId)),
    journalPut: (runId: string, key: string, body: string) => lift("journalPut", () => store.journalPut(runId, key, body)),
    journalGet: (runId: string, key: string) => lift("journalGet", () => store.journalGet(runId, key)),
    takeLease: (lease: Lease, now: number) =>
      Effect.tryPromise({
        try: () => store.takeLease(lease, now),
        catch: (cause) => cause instanceof StoreError.RunLeased ? cause : StoreError.storeFailed("takeLease", cause),
      }),
    renewLease: (lease: Lease) => lift("renewLease", () => store.renewLease(lease)),
    releaseLease: (runId: string, owner?: string | undefined) => lift("releaseLease", () => store.releaseLease(runId, owner)),
    close: () => Effect.promise(() => store.close()),
  })
}

/**
 * A run as stored: its state and the sequence number of its last checkpoint. Pass it
 * back to `save` to write the next delta.
 *
 * @since 0.1.0
 * @category models
 */
export interface Saved {
  readonly runId: string
  readonly seq: number
  readonly state: AgentState
  /** The run's envelope as stored (absent: empty). */
  readonly envelope?: Envelope.Envelope | undefined
}

// The commit of checkpoint `seq` of `state`, its body checked against the bounds it is
// loaded with (`Checkpoint.encodeChecked`).
const commitOf = (state: AgentState, seq: number, delta: Checkpoint.Delta, at: number): Result.Result<Commit, StoreError.CheckpointRefused> =>
  Result.map(Checkpoint.encodeChecked(state.id, seq, delta), (body) => ({ runId: state.id, seq, status: state.execution.status, at, body }))

/**
 * Writes the delta from `previous` (what this writer last saved or loaded) to `state`.
 * Nothing changed: nothing is written. Without `previous` the state is a new run's
 * first checkpoint (`startEffect`): a stored run of that id fails it with `RunExists`.
 * A checkpoint that would not load back (past a bound of `Checkpoint.limits`) is a
 * `CheckpointRefused`, and nothing is written.
 *
 * @since 0.1.0
 * @category running
 */
export const saveEffect = (
  store: RunStore,
  state: AgentState,
  previous?: Saved | undefined,
  at: number = Date.now(),
  envelope?: Envelope.Envelope | undefined,
): Effect.Effect<Saved, StoreError.CheckpointConflict | StoreError.RunExists | StoreError.CheckpointRefused | StoreError.StoreFailed> => {
  if (previous === undefined) return startEffect(store, state, { at, envelope })
  const planned = nextSave(state, previous, at, envelope)
  if (Result.isFailure(planned)) return Effect.fail(planned.failure)
  const ready = planned.success
  return ready === undefined ? Effect.succeed(previous) : Effect.as(store.commit(ready.commit), ready.saved)
}

/**
 * What `saveEffect` writes after `previous`: the commit, and what the run is as stored
 * once the store committed it; `undefined` when nothing changed. For a writer that
 * commits itself (the checkpoint hooks commit at once on the in-memory store).
 *
 * @since 0.1.0
 * @category running
 */
export const nextSave = (
  state: AgentState,
  previous: Saved,
  at: number = Date.now(),
  envelope?: Envelope.Envelope | undefined,
): Result.Result<{ readonly commit: Commit; readonly saved: Saved } | undefined, StoreError.CheckpointRefused> => {
  const next = Plan.next(state, previous, envelope)
  if (next === undefined) return Result.succeed(undefined)
  return Result.map(commitOf(state, next.seq, next.delta, at), (commit) => ({ commit, saved: next.saved }))
}

/**
 * How `startEffect` writes a new run: `replace` drops a stored run of the same id
 * (checkpoints and journal) instead of failing with `RunExists`.
 *
 * @since 0.1.0
 * @category models
 */
export interface StartOptions {
  readonly replace?: boolean | undefined
  /** Epoch ms of the checkpoint (default: now). */
  readonly at?: number | undefined
  /** The run's envelope, stored with its first checkpoint. */
  readonly envelope?: Envelope.Envelope | undefined
}

/**
 * Writes a new run's first checkpoint, atomically only when its id is not stored
 * (`RunExists` otherwise, and nothing is written), or over a stored run with `replace`.
 *
 * @since 0.1.0
 * @category running
 */
export const startEffect = (
  store: RunStore,
  state: AgentState,
  options: StartOptions = {},
): Effect.Effect<Saved, StoreError.RunExists | StoreError.CheckpointRefused | StoreError.StoreFailed> => {
  const delta = Checkpoint.diff(undefined, state, { next: options.envelope }) ?? { v: Checkpoint.version, id: state.id }
  const commit = commitOf(state, 1, delta, options.at ?? Date.now())
  if (Result.isFailure(commit)) return Effect.fail(commit.failure)
  return Effect.as(store.create(commit.success, options.replace === true), Plan.storedOf(state, 1, options.envelope))
}

/**
 * @since 0.1.0
 * @category running
 */
export const save = (store: RunStore, state: AgentState, previous?: Saved | undefined): Promise<Saved> =>
  Effect.runPromise(saveEffect(store, state, previous))

/**
 * The latest state of a run, rebuilt from its checkpoints; `undefined` for an unknown
 * run. The rows read are checked against the run's head (`RunStore.head`): a checkpoint
 * missing at or before it is a `CheckpointMissing` naming the run and the sequence
 * number, never a shorter state. (Rows after the head, committed while this read, are
 * left for the next load.)
 *
 * @since 0.1.0
 * @category running
 */
export const loadEffect = (
  store: RunStore,
  runId: string,
): Effect.Effect<Saved | undefined, StoreError.DecodeFailed | StoreError.CheckpointMissing | StoreError.StoreFailed> => loadOnce(store, runId, true)

const loadOnce = (
  store: RunStore,
  runId: string,
  again: boolean,
): Effect.Effect<Saved | undefined, StoreError.DecodeFailed | StoreError.CheckpointMissing | StoreError.StoreFailed> =>
  // The head first: a commit between the two reads adds rows past it, never removes one.
  Effect.flatMap(store.head(runId), (head) =>
    Effect.flatMap(store.rows(runId), (rows): Effect.Effect<Saved | undefined, StoreError.DecodeFailed | StoreError.CheckpointMissing | StoreError.StoreFailed> => {
      const upToHead = rows.filter((row) => row.seq <= head)
      if (head === 0 && rows.length === 0) return Effect.succeed(undefined)
      const missing = upToHead.findIndex((row, i) => row.seq !== i + 1)
      // Rows but no head as read before them: the run was created between the two reads
      // (a reader racing its writer), or the store lost its head record. A second read
      // of the head tells them apart.
      if (head === 0 && again) {
        return Effect.flatMap(store.head(runId), (now) =>
          now === 0 ? Effect.fail(StoreError.checkpointMissing(runId, 1, 0)) : loadOnce(store, runId, false))
      }
      if (head === 0) return Effect.fail(StoreError.checkpointMissing(runId, 1, 0))
      if (missing !== -1) return Effect.fail(StoreError.checkpointMissing(runId, missing + 1, head))
      if (upToHead.length < head) return Effect.fail(StoreError.checkpointMissing(runId, upToHead.length + 1, head))
      const restored = Checkpoint.restore(runId, upToHead)
      if (Result.isFailure(restored)) return Effect.fail(restored.failure)
      const run = restored.success
      return Effect.succeed(run === undefined ? undefined : { runId, seq: head, state: run.state, envelope: run.envelope })
    }))

/**
 * @since 0.1.0
 * @category running
 */
export const load = (store: RunStore, runId: string): Promise<Saved | undefined> => Effect.runPromise(loadEffect(store, runId))

/**
 * @since 0.1.0
 * @category running
 */
export const list = (store: RunStore, query: ListQuery = {}): Promise<ReadonlyArray<RunSummary>> => Effect.runPromise(store.list(query))

/**
 * @since 0.1.0
 * @category running
 */
export const remove = (store: RunStore, runId: string): Promise<boolean> => Effect.runPromise(store.remove(runId))

/**
 * Drops the run's lease, whoever holds it: a take-over, for a supervisor that knows the
 * holder's process is dead (it saw it exit) and will not wait for the lease to expire.
 * A holder that is alive after all finds its lease gone at its next renewal and runs no
 * more tools; its checkpoints conflict with the new holder's. Answers whether a lease was
 * dropped.
 *
 * @since 0.1.0
 * @category running
 */
export const breakLease = (store: RunStore, runId: string): Promise<boolean> => Effect.runPromise(breakLeaseEffect(store, runId))

/**
 * The Effect form of `breakLease`: a cluster's new shard owner takes a run over with it
 * (shard ownership is the authority; the lease still stops a zombie holder's tools).
 *
 * @since 0.1.0
 * @category running
 */
export const breakLeaseEffect = (store: RunStore, runId: string): Effect.Effect<boolean, StoreError.StoreFailed> => store.releaseLease(runId)

/**
 * A run's head and one journal entry (`store.head(runId)` and `store.journalGet(runId,
 * key)`), for a caller that needs both before it acts (the cluster's entity, on a new
 * run: is it stored, and was it cancelled). A SQL store as opened reads both in one
 * statement; that read is kept by the store object, so a store built around one (a
 * wrapper, a spread copy `{ ...store, head }`) and any other store is read through its
 * own `head` and `journalGet`, both at once.
 *
 * @since 0.1.0
 * @category running
 */
export const readHeadAndJournal = (store: RunStore, runId: string, key: string): Effect.Effect<HeadAndJournal, StoreError.StoreFailed> => {
  const combined = CombinedRead.of(store)
  if (combined !== undefined) return combined(runId, key)
  return Effect.map(Effect.all([store.head(runId), store.journalGet(runId, key)], { concurrency: 2 }), ([head, body]) => ({ head, body }))
}

/**
 * @since 0.1.0
 * @category running
 */
export const close = (store: RunStore): Promise<void> => Effect.runPromise(store.close())

/** @internal the statuses of a query as a list, or undefined for all. */
export const statusesOf = (query: ListQuery): ReadonlyArray<AgentState.ExecutionStatus> | undefined =>
  query.status === undefined ? undefined : typeof query.status === "string" ? [query.status] : query.status

/** @internal whether a run comes after the cursor in `list`'s order. */
export const isAfter = (run: Cursor, cursor: Cursor | undefined): boolean =>
  cursor === undefined || run.updatedAt < cursor.updatedAt || (run.updatedAt === cursor.updatedAt && run.runId > cursor.runId)
