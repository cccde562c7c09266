/**
 * The PostgreSQL ratio read from runs alternated in time (issue 27's "≥ 8x PostgresSaver
 * at H ≤ 10"). The rows time each system in a child of its own, one after the other, so
 * their ratio divides two moments of the disk (PostgresSaver's steady step moved 6.7–9.7
 * ms and PostgresStore's 0.94–1.41 ms within six quiet minutes). The pair child runs
 * hookline's and LangGraph's runs in turn on the same server, the order flipped every
 * pair, and the ratio is taken pair by pair: both runs of a pair meet the same disk.
 */
import { formatCount, formatNs } from "../../table.js"
import type { DurableJob, Spread } from "./Durable.js"
import { spread } from "./runOnce.js"

/** The mark of a pair child's answer line (stdout may carry a library's output too). */
export const answerMarker = "@@pair "

/** The runs of one H alternated: each system's steady µs per step, and theirs ÷ ours per pair. */
export interface PairRow {
  readonly kind: "pair"
  /** hookline on PostgreSQL at this H: the row the ratio is of. */
  readonly job: DurableJob
  readonly pairs: number
  readonly mine: Spread
  readonly theirs: Spread
  readonly ratio: Spread
}

/** What the pair child reports for H, from the steady µs per step of each pair's two runs. */
export const pairRow = (job: DurableJob, mine: ReadonlyArray<number>, theirs: ReadonlyArray<number>): PairRow => {
  if (mine.length !== theirs.length || mine.length === 0) throw new Error(`pairs: ${mine.length} runs of hookline against ${theirs.length} of LangGraph`)
  return { kind: "pair", job, pairs: mine.length, mine: spread(mine), theirs: spread(theirs), ratio: spread(mine.map((m, i) => (theirs[i] as number) / m)) }
}

const times = (x: number): string => (x >= 10 ? `${x.toFixed(1)}x` : `${x.toFixed(2)}x`)

/** The verdict line of each pair row against `target` (the median of the pairs' ratios). */
export const pairVerdicts = (rows: ReadonlyArray<PairRow>, target: number): ReadonlyArray<string> =>
  rows.map((r) =>
    `hookline PostgresStore vs LangGraph PostgresSaver, runs alternated, steady µs/step at H=${formatCount(r.job.H)}: ${times(r.ratio.p50)} ` +
    `(median of ${formatCount(r.pairs)} pairs' ratios, p10–p90 ${times(r.ratio.p10)}–${times(r.ratio.p90)}; ${formatNs(r.mine.p50)} against ${formatNs(r.theirs.p50)} µs) ` +
    `(target ≥ ${target}x): ${r.ratio.p50 >= target ? "met" : "missed"}`)
