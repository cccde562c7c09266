// The durable rows' hookline system: what its timed runs go through. No time is read here.
import { MemoryStore, type RunStore } from "@hookline/store"
import { withEnding } from "@hookline/store/testing"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import type { DurableResult } from "../src/compare/durable/Durable.js"
import { pairRow, pairVerdicts } from "../src/compare/durable/pair.js"
import { pairedHs } from "../src/compare/durable/section.js"
import { over } from "../src/compare/durable/systems/hookline.js"
import { memoryVerdicts } from "../src/compare/durable/verdicts.js"

/**
 * A MemoryStore that tells when a run's end reaches it as the very object: an ending is
 * registered on the object (as the SQL stores register theirs), and a store built around
 * it (a wrapper, a spread copy) does not inherit it, as it does not inherit MemoryStore's
 * at-once operations. `ends`: the runs whose end went through the ending.
 */
const identified = (): { readonly store: RunStore.RunStore; readonly ends: Array<string> } => {
  const ends: Array<string> = []
  const store = MemoryStore.make()
  withEnding(store, {
    commitAndRelease: (commit, owner) => {
      ends.push(commit.runId)
      return Effect.ensuring(store.commit(commit), Effect.ignore(store.releaseLease(commit.runId, owner)))
    },
  })
  return { store, ends }
}

describe("durable rows, hookline", () => {
  it("times every run through the store as it was opened, and counts bytes in the counting run", async () => {
    const { store, ends } = identified()
    const opened = over(store, "MemoryStore", async () => undefined)
    const c = await opened.prepare(10, 3)
    // The counting run (the first warm-up): bytes, and the stored run read back.
    await c.before("counted", true)
    expect(await c.run("counted", true)).toBe("done")
    expect(await c.after("counted", true)).toBeGreaterThan(0)
    // The timed runs: through the very store the user passes to UseCheckpoints.
    for (const id of ["timed-1", "timed-2"]) {
      await c.before(id, false)
      expect(await c.run(id, false)).toBe("done")
      await c.after(id, false)
    }
    expect(ends.filter((id) => id.startsWith("timed"))).toEqual(["timed-1", "timed-2"])
  })
})

describe("durable rows, hookline without a store", () => {
  it("runs the same agent with nothing written", async () => {
    const c = await over(undefined, "none", async () => undefined).prepare(10, 3)
    await c.before("none", true)
    expect(await c.run("none", true)).toBe("done")
    expect(await c.after("none", true)).toBe(0)
  })
})

/** A fabricated durable row: steady µs per step `steady` (the median; the spread around it). */
const row = (store: string, H: number, steady: number): DurableResult => ({
  kind: "durable",
  job: { module: "hookline", store, H, steps: 5 },
  system: "hookline",
  version: "1",
  saver: store,
  runs: 10,
  validated: 13,
  usPerStep: { p10: steady, p50: steady + 10, p90: steady + 20 },
  steadyUsPerStep: { p10: steady - 50, p50: steady, p90: steady + 50 },
  bytesPerStep: 0,
  bytesPerToolStep: 0,
  bytesHow: "",
})

describe("the MemoryStore verdict", () => {
  it("reads what MemoryStore adds to the store-less row of the same H, steady medians", () => {
    const results: Array<DurableResult> = [
      row("none", 0, 16), row("none", 10, 18.5), row("none", 1_000, 17),
      row("memory", 0, 20.9), row("memory", 10, 23.5), row("memory", 1_000, 60),
      row("postgres", 10, 1_000),
      { kind: "failure", job: { module: "hookline", store: "none", H: 10_000, steps: 5 }, error: "x" },
      row("memory", 10_000, 30),
    ]
    expect(memoryVerdicts(results)).toEqual([
      "hookline MemoryStore adds 4.90 µs/step steady at H=0 (target ≤ 5): met",
      "hookline MemoryStore adds 5.00 µs/step steady at H=10 (target ≤ 5): met",
      "hookline MemoryStore adds 43.0 µs/step steady at H=1,000 (target ≤ 5): missed",
    ])
  })

  it("says nothing without both rows", () => {
    expect(memoryVerdicts([row("memory", 10, 20)])).toEqual([])
    expect(memoryVerdicts([row("none", 10, 20)])).toEqual([])
  })
})

describe("the PostgreSQL pairs", () => {
  const job = (module: string, store: string, H: number) => ({ module, store, H, steps: 5 })

  it("pairs the Hs of the small-history target where both PostgreSQL rows run", () => {
    const jobs = [
      job("hookline", "postgres", 0), job("langgraph", "postgres", 0),
      job("hookline", "postgres", 10), job("langgraph", "memory", 10),
      job("hookline", "postgres", 1_000), job("langgraph", "postgres", 1_000),
    ]
    expect(pairedHs(jobs)).toEqual([0])
    expect(pairedHs([...jobs, job("langgraph", "postgres", 10)])).toEqual([0, 10])
  })

  it("takes the ratio pair by pair, not of the two medians", () => {
    // The disk slows both runs of a pair alike: per pair the ratio is 8; the medians' ratio is not.
    const ours = [1_000, 2_000, 1_000, 4_000, 1_000]
    const theirs = ours.map((us) => us * 8)
    theirs[4] = 32_000
    const r = pairRow(job("hookline", "postgres", 10), ours, theirs)
    expect(r.pairs).toBe(5)
    expect(r.ratio.p50).toBe(8)
    expect(r.mine.p50).toBe(1_000)
    expect(r.theirs.p50).toBe(16_000)
    expect(pairVerdicts([r], 8)).toEqual([
      "hookline PostgresStore vs LangGraph PostgresSaver, runs alternated, steady µs/step at H=10: 8.00x (median of 5 pairs' ratios, p10–p90 8.00x–22.4x; 1,000 against 16,000 µs) (target ≥ 8x): met",
    ])
  })

  it("refuses runs that do not pair up", () => {
    expect(() => pairRow(job("hookline", "postgres", 0), [1, 2], [3])).toThrow(/pairs: 2 runs of hookline against 1 of LangGraph/)
  })
})
