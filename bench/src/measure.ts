/**
 * How this package times an operation that takes nanoseconds: tinybench runs each
 * case; one tinybench sample is one *batch* of `n` calls of the operation, timed with
 * `process.hrtime.bigint()` around the batch and reported as the mean ns per call of
 * that batch (`overriddenDuration`). A single call is far below the cost of a clock
 * reading, so it cannot be timed alone. Every case is warmed up (and its batch size
 * calibrated) before anything is measured, so the JIT has seen every case first.
 */
import os from "node:os"
import { Bench, type FnReturnedObject, type Task } from "tinybench"

/** How long to run. `BENCH_QUICK=1` gives a very short run, for a smoke check. */
export interface Settings {
  readonly quick: boolean
  /** tinybench `time`: the budget per case, ms. */
  readonly timeMs: number
  /** tinybench `warmupTime`: warm-up right before a case is measured, ms. */
  readonly warmupMs: number
  /** tinybench `iterations`: the minimum number of samples (batches) per case. */
  readonly minSamples: number
  /** Warm-up of every case before the first measurement, ms per case. */
  readonly preWarmMs: number
  /** A batch lasts at least this long, ns. */
  readonly batchNs: number
}

export const settingsFromEnv = (env: NodeJS.ProcessEnv = process.env): Settings =>
  env["BENCH_QUICK"] === "1"
    ? { quick: true, timeMs: 30, warmupMs: 10, minSamples: 10, preWarmMs: 10, batchNs: 20_000 }
    : { quick: false, timeMs: 1_000, warmupMs: 200, minSamples: 64, preWarmMs: 150, batchNs: 200_000 }

/**
 * One measured operation. `run(n)` performs the operation `n` times in its own loop
 * and returns a number folded from the results, so no call is dead code.
 */
export type Case =
  | { readonly name: string; readonly async: false; readonly run: (n: number) => number }
  | { readonly name: string; readonly async: true; readonly run: (n: number) => Promise<number> }

/** Per-call latency of one case, ns: tinybench's median, and p10/p90 of its samples. */
export interface Summary {
  readonly name: string
  readonly p10: number
  readonly p50: number
  readonly p90: number
  /** Batches measured. */
  readonly samples: number
  /** Calls per batch. */
  readonly batch: number
}

let checksum = 0

/** A number folded from every result, printed at the end so nothing is optimized away. */
export const getChecksum = (): number => checksum

const clock = (): bigint => process.hrtime.bigint()
const elapsedNs = (from: bigint): number => Number(clock() - from)

const timeBatch = async (c: Case, n: number): Promise<number> => {
  const start = clock()
  checksum += c.async ? await c.run(n) : c.run(n)
  return elapsedNs(start)
}

const maxBatch = 1 << 26

/** Runs a case for `ms` in batches that grow to `batchNs` (the JIT compiles it meanwhile). */
const warm = async (c: Case, settings: Settings, ms: number): Promise<void> => {
  let n = 8
  const until = clock() + BigInt(Math.round(ms * 1e6))
  while (clock() < until) {
    if ((await timeBatch(c, n)) < settings.batchNs && n < maxBatch) n *= 2
  }
}

/**
 * The smallest power-of-two batch that lasts `batchNs`, found on warm code; the
 * fastest of three tries counts, so one pause (a GC) cannot make the batch too small.
 */
const calibrate = async (c: Case, settings: Settings): Promise<number> => {
  const fastest = async (n: number): Promise<number> =>
    Math.min(await timeBatch(c, n), await timeBatch(c, n), await timeBatch(c, n))
  let n = 8
  while ((await fastest(n)) < settings.batchNs && n < maxBatch) n *= 2
  return n
}

// R-7 (linear interpolation), as tinybench computes its own percentiles.
/** The q-quantile of sorted numbers, R-7 (linear interpolation), as tinybench computes it. */
export const quantile = (sorted: ReadonlyArray<number>, q: number): number => {
  const at = (sorted.length - 1) * q
  const lo = Math.floor(at)
  const a = sorted[lo] ?? Number.NaN
  const b = sorted[Math.min(lo + 1, sorted.length - 1)] ?? a
  return a + (at - lo) * (b - a)
}

const summarize = (task: Task, batch: number): Summary => {
  const result = task.result
  if (result.state !== "completed") {
    throw new Error(`${task.name}: ${result.state === "errored" ? result.error.message : result.state}`)
  }
  const samples = result.latency.samples ?? []
  const ns = 1e6 // tinybench keeps milliseconds
  return {
    name: task.name,
    p10: quantile(samples, 0.1) * ns,
    p50: result.latency.p50 * ns,
    p90: quantile(samples, 0.9) * ns,
    samples: result.latency.samplesCount,
    batch,
  }
}

/** Warms up every case, then measures each with tinybench; results by case name. */
export const measure = async (
  cases: ReadonlyArray<Case>,
  settings: Settings,
  onProgress: (line: string) => void = () => {},
): Promise<ReadonlyMap<string, Summary>> => {
  const names = new Set(cases.map((c) => c.name))
  if (names.size !== cases.length) throw new Error("case names must be unique")
  // Every case runs before any is measured, so each is measured with the JIT's view
  // of the whole workload (call sites that have seen every case), not of itself alone.
  for (const c of cases) await warm(c, settings, settings.preWarmMs)
  const batches = new Map<string, number>()
  for (const c of cases) batches.set(c.name, await calibrate(c, settings))
  onProgress(`warmed up ${cases.length} cases; calls per batch: ${[...batches].map(([name, n]) => `${name}: ${n}`).join(", ")}`)

  const bench = new Bench({
    time: settings.timeMs,
    warmup: true,
    warmupTime: settings.warmupMs,
    iterations: settings.minSamples,
    retainSamples: true,
    throws: true,
  })
  for (const c of cases) {
    const n = batches.get(c.name) ?? 1
    const sample = (ns: number): FnReturnedObject => ({ overriddenDuration: ns / 1e6 / n, overriddenIterationCost: ns / 1e6 })
    if (c.async) {
      bench.add(c.name, async () => {
        const start = clock()
        checksum += await c.run(n)
        return sample(elapsedNs(start))
      }, { async: true })
    } else {
      bench.add(c.name, () => {
        const start = clock()
        checksum += c.run(n)
        return sample(elapsedNs(start))
      }, { async: false })
    }
  }
  bench.addEventListener("cycle", (event) => {
    const task = event.task
    if (task !== undefined) onProgress(`  ${task.name}`)
  })
  await bench.run()
  return new Map(bench.tasks.map((task) => [task.name, summarize(task, batches.get(task.name) ?? 1)]))
}

/** The machine and runtime, for the header of a report. */
export const machine = (): string => {
  const cpus = os.cpus()
  const model = cpus[0]?.model.trim() ?? "unknown CPU"
  return `node ${process.version}, ${process.platform}/${process.arch}, ${model}, ${os.availableParallelism()} cores`
}
