import { StoreConformance } from "@hookline/testing/store"
import { Effect } from "effect"
import { describe, it } from "vitest"
import { MemoryStore, RunStore } from "../src/index.js"

describe("MemoryStore", () => {
  StoreConformance.register(it, async () => MemoryStore.make())
})

// A store written with Promises (RunStore.fromPromise) keeps the typed errors its
// Promises reject with: CheckpointConflict and RunLeased stay what they are.
describe("MemoryStore through RunStore.fromPromise", () => {
  StoreConformance.register(it, async () => {
    const store = MemoryStore.make()
    return RunStore.fromPromise({
      name: "memory-promises",
      commit: (c) => Effect.runPromise(store.commit(c)),
      rows: (id) => Effect.runPromise(store.rows(id)),
      list: (q) => Effect.runPromise(store.list(q)),
      remove: (id) => Effect.runPromise(store.remove(id)),
      journalPut: (id, k, b) => Effect.runPromise(store.journalPut(id, k, b)),
      journalGet: (id, k) => Effect.runPromise(store.journalGet(id, k)),
      takeLease: (lease, now) => Effect.runPromise(store.takeLease(lease, now)),
      renewLease: (lease) => Effect.runPromise(store.renewLease(lease)),
      releaseLease: (id, owner) => Effect.runPromise(store.releaseLease(id, owner)),
      close: () => Effect.runPromise(store.close()),
    })
  })
})
