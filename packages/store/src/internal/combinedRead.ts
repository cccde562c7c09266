// A store that reads a run's head and one journal entry in one statement (the SQL stores:
// one round trip where the cluster's entity needs both before it acts on a new run). Kept
// by the store object's identity, as internal/atOnce.ts keeps its own: a store built
// around one (a wrapper, a spread copy with `head` or `journalGet` replaced) is not one,
// and is read through its own `head` and `journalGet`, so its faults and redirects hold.
// (Keyed by any object, not RunStore: RunStore.ts reads it, and imports no circle.)
import type { Effect } from "effect"
import type * as StoreError from "../StoreError.js"
import { registry } from "./registry.js"

/** A run's head (0 for an unknown run) and one journal entry (`undefined` when absent). */
export interface HeadAndJournal {
  readonly head: number
  readonly body: string | undefined
}

/** `store.head(runId)` and `store.journalGet(runId, key)`, as of one moment, in one read. */
export type HeadAndJournalRead = (runId: string, key: string) => Effect.Effect<HeadAndJournal, StoreError.StoreFailed>

const stores = registry<HeadAndJournalRead>("headAndJournal/v1")

/** `store`, known to read a run's head and a journal entry at once with `read`. */
export const register = <S extends object>(store: S, read: HeadAndJournalRead): S => {
  stores.set(store, read)
  return store
}

/** The combined read of `store`, if it has one. */
export const of = (store: object): HeadAndJournalRead | undefined => stores.get(store)
