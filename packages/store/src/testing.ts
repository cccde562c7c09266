/**
 * @hookline/store/testing: for tests that build a store around another (a wrapper that
 * counts reads or injects faults) and want it to take the store's fast paths. Those are
 * kept per store object, not as fields: a wrapper or a spread copy `{ ...store, head }`
 * does not inherit them and goes through its own operations, so its faults hold. The
 * SQL stores register themselves; these register a wrapper the same way. Not a store
 * contract: a store registered wrongly (a combined read that disagrees with its `head`
 * and `journalGet`, an ending that does not release the lease) breaks the runs on it.
 *
 * @since 0.1.0
 */
import type { Effect } from "effect"
import * as CombinedRead from "./internal/combinedRead.js"
import * as Endings from "./internal/ending.js"
import type { HeadAndJournal, RunStore } from "./RunStore.js"
import type * as StoreError from "./StoreError.js"

/**
 * What a run's end does in one statement: `store.commit(commit)`, then
 * `store.releaseLease(commit.runId, owner)` whatever the commit's answer (a
 * `CheckpointConflict` included); a `StoreFailed` says nothing of either.
 *
 * @since 0.1.0
 * @category models
 */
export type Ending = Endings.Ending

/**
 * `store`, ending a run as the SQL stores do: its last checkpoint and the lease's release
 * in one statement, a final answer's step held for it (`UseCheckpoints`).
 *
 * @since 0.1.0
 * @category registering
 */
export const withEnding = (store: RunStore, ending: Ending): RunStore => Endings.register(store, ending)

/**
 * `store`, reading a run's head and one journal entry at once with `read`, as
 * `RunStore.readHeadAndJournal` reads the SQL stores (the cluster's entity, on a new run).
 *
 * @since 0.1.0
 * @category registering
 */
export const withHeadAndJournal = (
  store: RunStore,
  read: (runId: string, key: string) => Effect.Effect<HeadAndJournal, StoreError.StoreFailed>,
): RunStore => CombinedRead.register(store, read)
