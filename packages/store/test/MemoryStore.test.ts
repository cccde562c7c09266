import { StoreConformance } from "@hookline/testing/store"
import { describe, it } from "vitest"
import { MemoryStore, RunStore } from "../src/index.js"
import { promiseOf } from "./support/promiseStore.js"

// The memory store's data, for the case that loses a checkpoint row behind its back.
const data = MemoryStore.emptyData()
const dropCheckpoint = async (_store: RunStore.RunStore, runId: string, seq: number) => {
  const run = data.runs.get(runId)
  const at = run?.rows.findIndex((row) => row.seq === seq) ?? -1
  if (run === undefined || at === -1) throw new Error(`no checkpoint ${seq} of run ${runId} to drop`)
  run.rows.splice(at, 1)
}

describe("MemoryStore", () => {
  StoreConformance.register(it, async () => MemoryStore.make(data), { dropCheckpoint })
})

// A store written with Promises (RunStore.fromPromise) keeps the typed errors its
// Promises reject with: CheckpointConflict, RunExists and RunLeased stay what they are.
describe("MemoryStore through RunStore.fromPromise", () => {
  StoreConformance.register(it, async () => RunStore.fromPromise({ ...promiseOf(MemoryStore.make(data)), name: "memory-promises" }), {
    dropCheckpoint,
  })
})
