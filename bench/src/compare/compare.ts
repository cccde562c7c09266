/**
 * `pnpm bench compare`: hookline against the bare loop, koa-compose and the agent
 * frameworks (ai, langchain, @openai/agents), each configuration in a child process of
 * its own, one child at a time; then the durable rows (durable/: checkpointed runs
 * beside LangGraph's savers and the Agents SDK's session), the memory rows (footprint/:
 * bytes per run in flight, suspended and completed) and MCP run overhead (mcp.ts), each
 * in children too (`BENCH_SECTIONS` picks some). Prints the tables and verdicts; resolves
 * to the exit code: 1 when any system failed to load, threw or failed validation.
 */
import { machine } from "../measure.js"
import { printDurable, printDurableFailures, runDurable } from "./durable/section.js"
import { printFootprint, printFootprintFailures, runFootprint } from "./footprint/section.js"
import { runMcp } from "./mcpSection.js"
import { label, settingsFor, systems, workloadsFor, type Mode, type Section } from "./Plan.js"
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

/** The main tables: every system on W1, W2, W4; their results. */
const runMain = async (mode: Mode, chosen: ReadonlyArray<string>): Promise<ReadonlyArray<Result.Result>> => {
  const settings = settingsFor(mode)
  const workloads = workloadsFor(mode)
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
  return [...results].sort((a, b) => order(a) - order(b))
}

const printMainSection = (mode: Mode, results: ReadonlyArray<Result.Result>): void => {
  if (mode === "smoke") {
    Report.printSmoke(results)
    return
  }
  const workloads = workloadsFor(mode)
  Report.printMain(results)
  console.log("")
  const w4 = workloads.find((w) => w.concurrency > 1)
  console.log(`W4: ${(w4?.concurrency ?? 0).toLocaleString("en-US")} runs of W1 (K = 5) at once, async model (each answer after a setImmediate)`)
  console.log("")
  Report.printW4(results)
  console.log("")
  for (const line of Report.verdicts(results, workloads)) console.log(line)
}

export const compare = async (mode: Mode, chosen: ReadonlyArray<string>, parts: ReadonlyArray<Section>): Promise<number> => {
  const started = performance.now()
  const main = parts.includes("main") ? await runMain(mode, chosen) : []
  const durable = parts.includes("durable") ? await runDurable(mode, progress) : []
  const memory = parts.includes("memory") ? await runFootprint(mode, progress) : []
  if (parts.includes("mcp")) progress("compare (mcp): pnpm bench mcp in a child process")
  const mcp = parts.includes("mcp") ? await runMcp(mode) : undefined

  header(mode, chosen)
  if (parts.length < 4) console.log(`sections: ${parts.join(", ")} (BENCH_SECTIONS)\n`)
  if (parts.includes("main")) printMainSection(mode, main)
  if (parts.includes("durable")) {
    console.log("")
    console.log(
      `## Durable steps: a checkpointed run of ${durable[0]?.job.steps ?? "–"} steps (one echo call per step, then the answer), K = 0, over H messages of history, each run a new thread; ` +
        "µs/step = the run / steps; steady = from the second model call to the run's end / (steps - 1), without the first checkpoint (the whole history); " +
        "bytes/step = every byte the run wrote / steps, first checkpoint included; PostgreSQL: one embedded server (fsync on) for every row; median (p10–p90)",
    )
    console.log("")
    printDurable(durable, mode)
  }
  if (parts.includes("memory")) {
    console.log("")
    console.log(
      "## Memory per run (heap after two full GCs, each system in a child of its own): in flight = N runs waiting at once in their model call (a deferred resolved after measuring); " +
        "suspended = N runs stopped for approval of their one tool call, held as a caller keeps them; completed = heap left per run after M runs of one tool call each (the leak check)",
    )
    console.log("")
    printFootprint(memory, mode)
  }
  if (mcp !== undefined) {
    console.log("")
    console.log(mcp.text.replace(/^# /, "## "))
  }
  const failures = main.filter((r) => r.kind === "failure").length + durable.filter((r) => r.kind === "failure").length + memory.filter((r) => r.kind === "failure").length + (mcp?.ok === false ? 1 : 0)
  const total = main.length + durable.length + memory.length + (mcp === undefined ? 0 : 1)
  console.log("")
  Report.printFailures(main)
  printDurableFailures(durable)
  printFootprintFailures(memory)
  console.log(
    failures === 0
      ? `(${total} configurations, all validated; ${((performance.now() - started) / 1000).toFixed(0)} s)`
      : `${failures} of ${total} configurations FAILED`,
  )
  return failures === 0 ? 0 : 1
}
