/**
 * The child process that measures one system:
 * `node --expose-gc --import tsx child.ts <system module> <workload JSON or array> <settings JSON>`.
 * For each workload it prepares the system, warms up, then times runs (W1, W2: each run
 * alone; W4: batches of concurrent runs, with memory). Every run is validated outside
 * the timed region: the counter deltas (model, tool, hook calls) and the final text.
 * One `@@result` line per workload on stdout; progress on stderr. Exit 1 on a failure.
 */
import type { ChildSettings } from "./Plan.js"
import { label } from "./Plan.js"
import * as Result from "./Result.js"
import { quantile } from "../measure.js"
import { expected, type Counters, type Prepared, type System, type Workload } from "./System.js"

const progress = (line: string): void => {
  process.stderr.write(`${line}\n`)
}

const clock = (): bigint => process.hrtime.bigint()

const spread = (values: ReadonlyArray<number>): Result.Spread => {
  const sorted = [...values].sort((a, b) => a - b)
  return { p10: quantile(sorted, 0.1), p50: quantile(sorted, 0.5), p90: quantile(sorted, 0.9) }
}

const snapshot = (c: Counters): Counters => ({ modelCalls: c.modelCalls, toolCalls: c.toolCalls, hookCalls: c.hookCalls })

/** Throws unless `runs` runs moved the counters by exactly the expected amounts and every text is right. */
const validate = (system: System, workload: Workload, before: Counters, texts: ReadonlyArray<string>): void => {
  const want = expected(system, workload, texts.length)
  const got = system.counters
  const wrong = (["modelCalls", "toolCalls", "hookCalls"] as const)
    .filter((k) => got[k] - before[k] !== want[k])
    .map((k) => `${k} ${got[k] - before[k]}, expected ${want[k]}`)
  const badText = texts.find((text) => text !== want.text)
  if (badText !== undefined) wrong.push(`final text ${JSON.stringify(badText.slice(0, 300))}, expected ${JSON.stringify(want.text)}`)
  if (wrong.length > 0) throw new Error(`validation failed over ${texts.length} run(s): ${wrong.join("; ")}`)
}

/** One run, timed alone, then validated; µs. */
const timedRun = async (system: System, workload: Workload, prepared: Prepared): Promise<number> => {
  const before = snapshot(system.counters)
  const start = clock()
  const text = await prepared.run()
  const ns = Number(clock() - start)
  validate(system, workload, before, [text])
  // Outside the timed region, let the event loop drain between runs: some peers
  // (LangGraph's abort signals on Node 20) free memory only then, and would grow
  // without bound when runs are chained back to back.
  await new Promise<void>((resolve) => setImmediate(resolve))
  return ns / 1000
}

/** Runs until both `runs` and `ms` are reached (never past `maxRuns`); µs per run. */
const sample = async (system: System, workload: Workload, prepared: Prepared, runs: number, ms: number, maxRuns: number): Promise<Array<number>> => {
  const out: Array<number> = []
  const until = clock() + BigInt(Math.round(ms * 1e6))
  while (out.length < maxRuns && (out.length < runs || clock() < until)) out.push(await timedRun(system, workload, prepared))
  return out
}

const gc = (globalThis as { gc?: () => void }).gc

interface Batch {
  readonly ms: number
  readonly cpuMs: number
  readonly heapPeak: number
  readonly rssPeak: number
}

/**
 * `concurrency` runs started together and awaited with Promise.all; the batch is timed.
 * Memory is sampled every 2 ms during it (the model yields, so the timer fires) and once
 * at the end; the peak is read against the value right after a full collection.
 */
const batch = async (system: System, workload: Workload, prepared: Prepared): Promise<Batch> => {
  gc?.()
  const base = process.memoryUsage()
  let heap = base.heapUsed
  let rss = base.rss
  const read = (): void => {
    const now = process.memoryUsage()
    if (now.heapUsed > heap) heap = now.heapUsed
    if (now.rss > rss) rss = now.rss
  }
  const before = snapshot(system.counters)
  const timer = setInterval(read, 2)
  const cpu = process.cpuUsage()
  const start = clock()
  const texts = await Promise.all(Array.from({ length: workload.concurrency }, () => prepared.run()))
  const ns = Number(clock() - start)
  const { user, system: kernel } = process.cpuUsage(cpu)
  clearInterval(timer)
  read()
  validate(system, workload, before, texts)
  return { ms: ns / 1e6, cpuMs: (user + kernel) / 1000, heapPeak: heap - base.heapUsed, rssPeak: rss - base.rss }
}

const median = (values: ReadonlyArray<number>): number => quantile([...values].sort((a, b) => a - b), 0.5)

const measure = async (module: string, system: System, workload: Workload, settings: ChildSettings): Promise<Result.Result> => {
  const prepared = await system.prepare(workload)
  const common = {
    module,
    workload,
    system: system.name,
    version: system.version,
    hookPoints: system.hookPoints,
    firingsPerRun: system.firingsPerRun(workload.steps),
  }
  if (workload.concurrency === 1) {
    const warm = await sample(system, workload, prepared, settings.warmupRuns, settings.warmupMs, Number.POSITIVE_INFINITY)
    const timed = await sample(system, workload, prepared, settings.minRuns, settings.timeMs, settings.maxRuns)
    return { kind: "runs", ...common, validated: warm.length + timed.length, runs: timed.length, usPerRun: spread(timed) }
  }
  // Single runs warm the code up and estimate a batch (runs on one thread add up). A
  // batch estimated past longBatchMs (a slow peer: minutes) runs once, with no warm-up batch.
  const warm = await sample(system, workload, prepared, settings.warmupRuns, settings.warmupMs, Number.POSITIVE_INFINITY)
  const estimateMs = (median(warm) / 1000) * workload.concurrency
  const long = !(estimateMs <= settings.longBatchMs)
  if (warm.length > 0) progress(`  ${system.name} ${label(workload)}: a batch estimated at ${(estimateMs / 1000).toFixed(1)} s${long ? ": one batch, no warm-up batch" : ""}`)
  const warmupBatches = long ? 0 : settings.warmupBatches
  const minBatches = long ? 1 : settings.minBatches
  for (let i = 0; i < warmupBatches; i++) await batch(system, workload, prepared)
  const batches: Array<Batch> = []
  let spent = 0
  while (batches.length < settings.maxBatches && (batches.length < minBatches || spent < settings.batchBudgetMs)) {
    const b = await batch(system, workload, prepared)
    batches.push(b)
    spent += b.ms
  }
  return {
    kind: "batches",
    ...common,
    validated: warm.length + (warmupBatches + batches.length) * workload.concurrency,
    batches: batches.length,
    msPerBatch: spread(batches.map((b) => b.ms)),
    cpuMsPerBatch: median(batches.map((b) => b.cpuMs)),
    heapPeakBytes: median(batches.map((b) => b.heapPeak)),
    rssPeakBytes: median(batches.map((b) => b.rssPeak)),
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
  }
}

const message = (e: unknown): string => (e instanceof Error ? (e.stack ?? e.message) : String(e))

const main = async (): Promise<number> => {
  const [module = "", workloadJson = "", settingsJson = ""] = process.argv.slice(2)
  const parsed = JSON.parse(workloadJson) as Workload | ReadonlyArray<Workload>
  const workloads: ReadonlyArray<Workload> = Array.isArray(parsed) ? parsed : [parsed as Workload]
  const settings = JSON.parse(settingsJson) as ChildSettings
  const fail = (workload: Workload, e: unknown): Result.Failure => ({ kind: "failure", module, workload, error: message(e) })
  let system: System
  try {
    if (!/^[A-Za-z]+$/.test(module)) throw new Error(`not a system module name: ${JSON.stringify(module)}`)
    const loaded = (await import(`./systems/${module}.js`)) as { readonly system?: System }
    if (loaded.system === undefined) throw new Error(`systems/${module}.ts has no \`export const system\``)
    system = loaded.system
  } catch (e) {
    for (const w of workloads) console.log(Result.format(fail(w, e)))
    return 1
  }
  let failed = false
  for (const workload of workloads) {
    const started = performance.now()
    let result: Result.Result
    try {
      result = await measure(module, system, workload, settings)
    } catch (e) {
      result = fail(workload, e)
      failed = true
    }
    console.log(Result.format(result))
    progress(`  ${system.name} ${label(workload)}: ${result.kind === "failure" ? "FAILED" : `${result.validated} runs validated`} (${((performance.now() - started) / 1000).toFixed(1)} s)`)
  }
  return failed ? 1 : 0
}

// Exit now: a system may leave timers or sockets behind (stdout to a pipe is synchronous on Linux).
process.exit(await main())
