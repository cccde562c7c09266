// A store that answers at once (the in-memory one): its writes and reads as `Exit`s,
// so the checkpoint and journal hooks answer at once too and the loop's step stays
// synchronous (issue 27, docs/decisions.md "Effect hooks answering at once"). Kept by
// the store object's identity, not as a field: a store built around one (a wrapper, a
// spread copy with one operation replaced) is not one, and goes through its Effects.
import type { Exit } from "effect"
import type * as Checkpoint from "../Checkpoint.js"
import type { Commit, RunStore } from "../RunStore.js"
import type * as StoreError from "../StoreError.js"
import type * as JournalEntry from "./journalEntry.js"

/** The operations of a store that answer at once, as the store's own Effects would. */
export interface AtOnce {
  readonly commit: (commit: Commit) => Exit.Exit<void, StoreError.CheckpointConflict | StoreError.StoreFailed>
  readonly journalPut: (runId: string, key: string, body: string) => Exit.Exit<boolean, StoreError.StoreFailed>
  /**
   * `commit`, keeping the frozen delta itself (vouched for: internal/byReference.ts) and
   * writing its text (`Checkpoint.toJson`) only when a row is read. Optional: a store
   * without it is handed text.
   */
  readonly commitDelta?: ((commit: Omit<Commit, "body">, delta: Checkpoint.Delta) => Exit.Exit<void, StoreError.CheckpointConflict | StoreError.StoreFailed>) | undefined
  /**
   * `journalPut` of an entry whose value is vouched for (`entry.body` undefined), keeping
   * the value itself and writing its text (`JournalEntry.textOf`) only when it is read.
   * Optional: a store without it is handed text.
   */
  readonly journalKeep?: ((runId: string, key: string, entry: JournalEntry.Entry) => Exit.Exit<boolean, StoreError.StoreFailed>) | undefined
  /**
   * The store's `releaseLease`, at once: the run's end on such a store needs no runtime.
   * Optional: without it the run's end goes through the store's Effects.
   */
  readonly releaseLease?: ((runId: string, owner: string) => Exit.Exit<boolean, StoreError.StoreFailed>) | undefined
  /** The store's `create` (a new run's first checkpoint), keeping the delta as `commitDelta` does. */
  readonly createDelta?:
    | ((commit: Omit<Commit, "body">, delta: Checkpoint.Delta, replace: boolean) => Exit.Exit<void, StoreError.RunExists | StoreError.StoreFailed>)
    | undefined
}

const stores = new WeakMap<RunStore, AtOnce>()

/** `store`, known to answer at once with `ops`. */
export const register = (store: RunStore, ops: AtOnce): RunStore => {
  stores.set(store, ops)
  return store
}

/** The operations of `store` that answer at once, if it is a store that does. */
export const of = (store: RunStore): AtOnce | undefined => stores.get(store)
