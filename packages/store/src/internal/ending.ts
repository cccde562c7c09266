// A store that commits a run's last checkpoint and releases its lease in one statement
// (the SQL stores: one round trip and one commit instead of two at a run's end). Kept by
// the store object's identity, as internal/atOnce.ts keeps its own: a store built around
// one (a wrapper, a spread copy) is not one, and releases its lease on its own.
import type { Effect } from "effect"
import type { Commit, RunStore } from "../RunStore.js"
import type * as StoreError from "../StoreError.js"
import { registry } from "./registry.js"

/** What a run's end may do in one statement. */
export interface Ending {
  /**
   * `store.commit(commit)` and `store.releaseLease(commit.runId, owner)` in one
   * statement, its own transaction. The lease is released whether or not the checkpoint
   * was written: on success and on a `CheckpointConflict` alike. A `StoreFailed` says
   * nothing of either (the caller releases again: a release is idempotent).
   */
  readonly commitAndRelease: (commit: Commit, owner: string) => Effect.Effect<void, StoreError.CheckpointConflict | StoreError.StoreFailed>
}

const stores = registry<Ending>("ending/v1")

/** `store`, known to end a run with `ops`. */
export const register = (store: RunStore, ops: Ending): RunStore => {
  stores.set(store, ops)
  return store
}

/** The ending operations of `store`, if it has them. */
export const of = (store: RunStore): Ending | undefined => stores.get(store)
