/**
 * `pnpm bench compare`: hookline against the bare loop, koa-compose and the agent
 * frameworks (ai, langchain, @openai/agents), each configuration in a child process of
 * its own, one child at a time. Prints the tables and verdicts; resolves to the exit
 * code: 1 when any system failed to load, threw or failed validation.
 */
import { machine } from "../measure.js"
import { label, settingsFor, systems, workloadsFor, type Mode } from "./Plan.js"
import * as Report from "./report.js"
import type * as Result from "./Result.js"
import { runChild } from "./run.js"

const progress = (line: string): void => {
  process.stderr.write(`${line}\n`)
}

const header = (mode: Mode, chosen: ReadonlyArray<string>): void => {
  const s = settingsFor(mode)
  const w4 = workloadsFor(mode).find((w) => w.concurrency > 1)
  console.log(`# hookline against other frameworks${mode === "quick" ? " (BENCH_QUICK=1: indicative only)" : mode === "smoke" ? " (smoke: validation only, no timings)" : ""}`)
  console.log("")
  console.log(machine())
  console.log(`systems: ${chosen.join(", ")}${chosen.length < systems.length ? ` (BENCH_SYSTEMS: ${systems.length - chosen.length} left out)` : ""}`)
  if (mode === "smoke") {
    console.log(`one child process per system runs every configuration: ${s.minRuns} runs each; W4: ${s.minBatches} batch of ${w4?.concurrency ?? 0} runs at once; every run validated`)
    console.log("")
    return
  }
  console.log(
    `each configuration in a child process of its own (node --expose-gc --import tsx), one at a time; ` +
      `warm-up >= ${s.warmupRuns} runs and >= ${s.warmupMs} ms, then >= ${s.minRuns} runs and >= ${s.timeMs} ms (at most ${s.maxRuns}), each timed alone; ` +
      `every run validated outside the timed region (model, tool and hook calls, final text)`,
  )
  console.log(
    `W4: warm-up runs as above, ${s.warmupBatches} warm-up batch, then >= ${s.minBatches} timed batches of ${w4?.concurrency ?? 0} runs at once ` +
      `(more, up to ${s.maxBatches}, while the batches so far took < ${s.batchBudgetMs / 1000} s); a system whose batch is estimated (warm-up run × ${w4?.concurrency ?? 0}) ` +
      `above ${s.longBatchMs / 1000} s runs one batch and no warm-up batch; memory sampled every 2 ms, peak minus the value before the batch (after a GC), median over batches`,
  )
  console.log("µs per step = µs per run / steps (W4: ms per batch / (runs × steps)); median, p10–p90 over the timed runs; ratios of the medians (system / other)")
  console.log("")
}

export const compare = async (mode: Mode, chosen: ReadonlyArray<string>): Promise<number> => {
  const settings = settingsFor(mode)
  const workloads = workloadsFor(mode)
  const started = performance.now()
  const results: Array<Result.Result> = []
  if (mode === "smoke") {
    for (const module of chosen) {
      progress(`compare (smoke): ${module}`)
      results.push(...(await runChild(module, workloads, settings)))
    }
  } else {
    // Configuration by configuration, every system in turn: drift on the machine spreads over all.
    for (const workload of workloads) {
      for (const module of chosen) {
        progress(`compare: ${module} ${label(workload)}`)
        results.push(...(await runChild(module, [workload], settings)))
      }
    }
  }
  // Table order: configuration, then system.
  const order = (r: Result.Result): number => workloads.findIndex((w) => w.name === r.workload.name && w.K === r.workload.K && w.H === r.workload.H) * 100 + chosen.indexOf(r.module)
  results.sort((a, b) => order(a) - order(b))

  header(mode, chosen)
  if (mode === "smoke") {
    Report.printSmoke(results)
  } else {
    Report.printMain(results)
    console.log("")
    const w4 = workloads.find((w) => w.concurrency > 1)
    console.log(`W4: ${(w4?.concurrency ?? 0).toLocaleString("en-US")} runs of W1 (K = 5) at once, async model (each answer after a setImmediate)`)
    console.log("")
    Report.printW4(results)
    console.log("")
    for (const line of Report.verdicts(results, workloads)) console.log(line)
  }
  const failures = results.filter((r) => r.kind === "failure").length
  console.log("")
  Report.printFailures(results)
  console.log(
    failures === 0
      ? `(${results.length} configurations, all validated; ${((performance.now() - started) / 1000).toFixed(0)} s)`
      : `${failures} of ${results.length} configurations FAILED`,
  )
  return failures === 0 ? 0 : 1
}
