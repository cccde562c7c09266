// A store's operations as Promises: the shape `RunStore.fromPromise` takes, as a store
// written without Effect would give it.
import { Effect } from "effect"
import type { RunStore } from "../../src/index.js"

export const promiseOf = (store: RunStore.RunStore) => ({
  name: store.name,
  commit: (c: RunStore.Commit) => Effect.runPromise(store.commit(c)),
  create: (c: RunStore.Commit, replace: boolean) => Effect.runPromise(store.create(c, replace)),
  rows: (id: string) => Effect.runPromise(store.rows(id)),
  head: (id: string) => Effect.runPromise(store.head(id)),
  list: (q: RunStore.ListQuery) => Effect.runPromise(store.list(q)),
  remove: (id: string) => Effect.runPromise(store.remove(id)),
  journalPut: (id: string, k: string, b: string) => Effect.runPromise(store.journalPut(id, k, b)),
  journalGet: (id: string, k: string) => Effect.runPromise(store.journalGet(id, k)),
  takeLease: (lease: RunStore.Lease, now: number) => Effect.runPromise(store.takeLease(lease, now)),
  renewLease: (lease: RunStore.Lease) => Effect.runPromise(store.renewLease(lease)),
  releaseLease: (id: string, owner?: string) => Effect.runPromise(store.releaseLease(id, owner)),
  close: () => Effect.runPromise(store.close()),
})
