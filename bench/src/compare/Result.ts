/**
 * What a child reports for one configuration: one line on stdout, `@@result ` then
 * JSON. The marker keeps the parent safe from anything a library prints to stdout.
 */
import type { Workload } from "./System.js"

/** p10, median, p90 of a sample. */
export interface Spread {
  readonly p10: number
  readonly p50: number
  readonly p90: number
}

interface About {
  /** The module name under systems/. */
  readonly module: string
  readonly workload: Workload
}

interface Measured extends About {
  readonly system: string
  readonly version: string
  readonly hookPoints: ReadonlyArray<string>
  readonly firingsPerRun: number
  /** Runs validated (warm-up and timed). */
  readonly validated: number
}

/** Single runs (W1, W2): µs per run, each run timed alone. */
export interface Runs extends Measured {
  readonly kind: "runs"
  readonly runs: number
  readonly usPerRun: Spread
}

/** W4: batches of `concurrency` runs started together; ms per batch and memory. */
export interface Batches extends Measured {
  readonly kind: "batches"
  readonly batches: number
  readonly msPerBatch: Spread
  /** Median CPU time (user + system) of the process per batch, ms: below msPerBatch when runs wait. */
  readonly cpuMsPerBatch: number
  /** Median over the batches of (peak during the batch − the value right before it), bytes. */
  readonly heapPeakBytes: number
  readonly rssPeakBytes: number
  /** process.resourceUsage().maxRSS at the end of the child, bytes (the process's whole life). */
  readonly maxRssBytes: number
}

/** The system did not load, threw, timed out or failed validation. */
export interface Failure extends About {
  readonly kind: "failure"
  readonly error: string
}

export type Result = Runs | Batches | Failure

const marker = "@@result "

export const format = (result: Result): string => `${marker}${JSON.stringify(result)}`

/** The results among a child's stdout lines. */
export const parse = (stdout: string): ReadonlyArray<Result> =>
  stdout.split("\n").filter((line) => line.startsWith(marker)).map((line) => JSON.parse(line.slice(marker.length)) as Result)

/** µs per step of a result's median (runs: per run / steps; batches: per batch / (runs × steps)). */
export const usPerStep = (r: Runs | Batches, at: keyof Spread = "p50"): number =>
  r.kind === "runs"
    ? r.usPerRun[at] / r.workload.steps
    : (r.msPerBatch[at] * 1000) / (r.workload.concurrency * r.workload.steps)

/** Runs per second at the median. */
export const runsPerSecond = (r: Runs | Batches): number =>
  r.kind === "runs" ? 1e6 / r.usPerRun.p50 : (r.workload.concurrency * 1000) / r.msPerBatch.p50
