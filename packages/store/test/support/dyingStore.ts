// A store that dies after `budget` operations, as a process killed at that point would
// leave it: what was written stays, nothing more is.
import { Effect } from "effect"
import type { RunStore } from "../../src/index.js"

export const dyingAfter = (store: RunStore.RunStore, budget: number): RunStore.RunStore => {
  let left = budget
  const gate = <A, E>(effect: Effect.Effect<A, E>): Effect.Effect<A, E> =>
    Effect.suspend(() => (left-- > 0 ? effect : Effect.die(new Error("the process died"))))
  return {
    ...store,
    commit: (c) => gate(store.commit(c)),
    create: (c, replace) => gate(store.create(c, replace)),
    rows: (id) => gate(store.rows(id)),
    head: (id) => gate(store.head(id)),
    journalPut: (id, k, b) => gate(store.journalPut(id, k, b)),
    journalGet: (id, k) => gate(store.journalGet(id, k)),
  }
}
