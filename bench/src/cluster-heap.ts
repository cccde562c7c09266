/**
 * The cluster heap bench: what a runner keeps of evicted suspended runs (issue 29's
 * "after 10,000 suspended runs are evicted the runner's heap (after GC) is within 1 KB per
 * run of where it started"). One `hookline-runner` on embedded PostgreSQL, its agents
 * module cluster-agents.ts (a model that keeps no log of its calls). The runner's heap
 * after two full collections is read through SIGUSR2:
 * - at the start, after 10 runs (the cluster's machinery loaded);
 * - after a warm-up of `warm` suspended runs, evicted: what stays of it is the runner's
 *   one-off costs (code V8 compiled, effect/sql-pg's prepared statement caches, tables that
 *   grew), not a run's;
 * - after each batch of `batch` more suspended runs, evicted.
 * Per run: from the start, and from the warmed heap (the slope: what each run adds).
 * Lock expiry 60 s, so a heap snapshot's pause (HEAP_DIR) cannot move the shards.
 *
 * `NODE_OPTIONS=--conditions=@hookline/source npx tsx src/cluster-heap.ts` from bench/;
 * `BENCH_QUICK=1`: 200 warm-up runs and 2 batches of 500; else 1,000 and 10 of 1,000
 * (`HEAP_WARM`, `HEAP_BATCH`, `HEAP_BATCHES` change them).
 * `HEAP_DIR=<folder>`: heap snapshots at each reading (runner-<n>.heapsnapshot).
 */
import { Runner } from "@hookline/cluster"
import { rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { startPostgres } from "../../packages/store/test/support/postgres.js"
import { heapOf, startRunner, stopRunners } from "./cluster-procs.js"
import { machine } from "./measure.js"

const quick = process.env["BENCH_QUICK"] === "1"
const given = (name: string, fallback: number) => Number(process.env[name] ?? fallback)
const plan = {
  warm: given("HEAP_WARM", quick ? 200 : 1_000),
  batch: given("HEAP_BATCH", quick ? 500 : 1_000),
  batches: given("HEAP_BATCHES", quick ? 2 : 10),
}
const settings = ["--lock-expiration", "60 seconds", "--lock-refresh", "5 seconds", "--assignments-refresh", "1 second", "--idle-eviction", "3 seconds"]
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
// Idle 3 s, and effect/cluster's reaper looks every 5 s at the least.
const evicted = () => sleep(12_000)

const began = Date.now()
const memLog = join(tmpdir(), `hookline-bench-cluster-heap-${process.pid}.log`)
rmSync(memLog, { force: true })
const server = await startPostgres()
try {
  const env: Record<string, string> = { MEM_LOG: memLog }
  if (process.env["HEAP_DIR"] !== undefined) env["HEAP_DIR"] = process.env["HEAP_DIR"]
  const runner = await startRunner(server.connectionString, settings, env)
  const client = await Runner.openClient({ database: server.connectionString, settings: { lockExpiration: "60 seconds", lockRefresh: "5 seconds", assignmentsRefresh: "1 second", messagePoll: "1 second" } })
  try {
    // Suspended runs (the `approver` waits for an approval at its first step), 100 at a time.
    const suspend = async (prefix: string, n: number) => {
      for (let i = 0; i < n; i += 100) {
        const ids = Array.from({ length: Math.min(100, n - i) }, (_, j) => `${prefix}-${i + j}`)
        await Promise.all(ids.map((runId) => client.start("approver", "charge me", { runId })))
        const summaries = await Promise.all(ids.map((runId) => client.result(runId)))
        const other = summaries.find((s) => s.status !== "suspended")
        if (other !== undefined) throw new Error(`run ${other.runId} ended ${other.status}, not suspended`)
      }
      await evicted()
    }
    const heap = () => heapOf(runner, memLog)
    await suspend("start", 10)
    const start = await heap()
    await suspend("warm", plan.warm)
    const warmed = await heap()
    const rows: Array<{ runs: number; heap: number }> = []
    for (let b = 1; b <= plan.batches; b++) {
      await suspend(`batch${b}`, plan.batch)
      rows.push({ runs: plan.warm + b * plan.batch, heap: await heap() })
      console.error(`cluster-heap: ${plan.warm + b * plan.batch} runs evicted, heap ${rows.at(-1)?.heap}`)
    }
    const kb = (bytes: number) => `${(bytes / 1_024).toFixed(2)} KB`
    console.log(`cluster heap bench (${quick ? "BENCH_QUICK: indicative only" : "full"}); ${machine()}; ${((Date.now() - began) / 1_000).toFixed(0)} s`)
    console.log(`heap at the start (10 runs): ${(start / 1_048_576).toFixed(1)} MB; after ${plan.warm} warm-up runs evicted: ${(warmed / 1_048_576).toFixed(1)} MB (${kb((warmed - start) / plan.warm)} per run)`)
    console.log("| suspended runs evicted | heap (MB) | per run since the start | per run since the warm-up |")
    console.log("| --: | --: | --: | --: |")
    for (const r of rows) {
      console.log(`| ${r.runs.toLocaleString("en-US")} | ${(r.heap / 1_048_576).toFixed(1)} | ${kb((r.heap - start) / r.runs)} | ${kb((r.heap - warmed) / (r.runs - plan.warm))} |`)
    }
  } finally {
    await client.close()
    await stopRunners([runner])
    rmSync(memLog, { force: true })
  }
} finally {
  await server.stop()
}
