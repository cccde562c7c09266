/**
 * `tsx bench/src/cluster-probe.ts [runs]`: where a run through the cluster spends its
 * runner's CPU and its SQL. One embedded PostgreSQL with `pg_stat_statements`, one
 * `hookline-runner` (lean settings), this process the client; `runs` (default 200)
 * `charger` runs at once after a warm-up. Prints the runner's CPU per run, the committed
 * transactions per run, and every statement's calls per run, most first.
 * `PROBE_CPU_PROF=<dir>`: the runner writes a V8 CPU profile there when it stops.
 */
import { Runner } from "@hookline/cluster"
import pg from "pg"
import { startPostgres } from "../../packages/store/test/support/postgres.js"
import { commits, cpuMillis, startRunner, stopRunners } from "./cluster-procs.js"

const runs = Number(process.argv[2] ?? 200)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const lean = ["--lock-expiration", "3 seconds", "--lock-refresh", "1 second", "--assignments-refresh", "1 second"]

const server = await startPostgres(["shared_preload_libraries=pg_stat_statements", "pg_stat_statements.track=all"])
const database = server.connectionString

const query = async <R extends object>(text: string): Promise<ReadonlyArray<R>> => {
  const c = new pg.Client({ connectionString: database })
  await c.connect()
  try {
    return (await c.query(text)).rows as ReadonlyArray<R>
  } finally {
    await c.end()
  }
}

try {
  await query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
  const prof = process.env["PROBE_CPU_PROF"]
  const runner = await startRunner(database, lean, {}, prof === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${prof}`])
  const client = await Runner.openClient({ database, settings: { assignmentsRefresh: "1 second", messagePoll: "1 second" } })
  try {
    const batch = async (prefix: string, count: number) => {
      const ids = Array.from({ length: count }, (_, i) => `${prefix}-${i}`)
      await Promise.all(ids.map((runId) => client.start("charger", "charge me", { runId })))
      await Promise.all(ids.map((runId) => client.result(runId)))
    }
    await sleep(3_000)
    await batch("warm", 50)
    await sleep(2_000)
    await query("SELECT pg_stat_statements_reset()")
    const commits0 = await commits(database)
    const cpu0 = cpuMillis(runner.pid)
    const began = performance.now()
    await batch("probe", runs)
    const wall = performance.now() - began
    const cpu1 = cpuMillis(runner.pid)
    await sleep(2_000)
    const commits1 = await commits(database)
    const rows = await query<{ calls: string; query: string; total_exec_time: number }>(
      "SELECT calls, total_exec_time, query FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat%' ORDER BY calls DESC",
    )
    console.log(`${runs} runs in ${wall.toFixed(0)} ms; runner CPU ${((cpu1 - cpu0) / runs).toFixed(2)} ms per run; ${((commits1 - commits0) / runs).toFixed(1)} commits per run`)
    let total = 0
    for (const r of rows) {
      const perRun = Number(r.calls) / runs
      total += perRun
      if (perRun >= 0.05) console.log(`${perRun.toFixed(2).padStart(7)}  ${r.query.replace(/\s+/g, " ").slice(0, 170)}`)
    }
    console.log(`${total.toFixed(1)} statements per run`)
  } finally {
    await client.close()
    await stopRunners([runner])
  }
} finally {
  await server.stop()
}
