/**
 * Issue 27's MemoryStore target, read from one run's durable rows: what
 * `UseCheckpoints(MemoryStore)` adds to the same agent without a store (the "none" row),
 * steady µs per step, medians, at each H both rows ran.
 */
import { formatCount, formatNs } from "../../table.js"
import type { DurableResult, DurableRow } from "./Durable.js"

/** The target: MemoryStore adds at most this many µs per step. */
export const memoryTargetUs = 5

/** The row of `module` on `store` at `H`, if it ran. */
export const findRow = (results: ReadonlyArray<DurableResult>, module: string, store: string, H: number): DurableRow | undefined =>
  results.find((r): r is DurableRow => r.kind === "durable" && r.job.module === module && r.job.store === store && r.job.H === H)

/** One line per H, in the results' order of H: "hookline MemoryStore adds X µs/step steady at H=…". */
export const memoryVerdicts = (results: ReadonlyArray<DurableResult>): ReadonlyArray<string> =>
  [...new Set(results.map((r) => r.job.H))].flatMap((H) => {
    const [none, memory] = [findRow(results, "hookline", "none", H), findRow(results, "hookline", "memory", H)]
    if (none === undefined || memory === undefined) return []
    const added = memory.steadyUsPerStep.p50 - none.steadyUsPerStep.p50
    return [`hookline MemoryStore adds ${formatNs(added)} µs/step steady at H=${formatCount(H)} (target ≤ ${memoryTargetUs}): ${added <= memoryTargetUs ? "met" : "missed"}`]
  })
