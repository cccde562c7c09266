/**
 * `node --conditions=@hookline/source --import tsx bench/src/cluster-probe.ts [runs]`:
 * where a run through the cluster spends its runner's CPU and its SQL, against the same
 * agent run in-process in the same probe (so "extra" is read from one run). One embedded
 * PostgreSQL with `pg_stat_statements`; batches of `runs` (default 200) `charger` runs at
 * once, in this process on a `PostgresStore` (the run lease the runner would take) and
 * through one `hookline-runner` with the shipped settings (this process the client),
 * alternated `PROBE_ROUNDS` times (default 3) after a warm-up of each, so both meet the
 * same load. Prints the CPU per run of each round, the runner's extra (and its median), the
 * write transactions (commits) per run, and every statement's calls per run through the runner,
 * most first.
 * `PROBE_CPU_PROF=<dir>`: the runner writes a V8 CPU profile there when it stops.
 * `PROBE_RUNNER_ARGS="--lock-expiration 3000 …"`: settings flags for the runner (default none).
 */
import { ClusterAgent, Runner, Settings } from "@hookline/cluster"
import { AgentState, Message } from "@hookline/core"
import { PostgresStore, RunStore } from "@hookline/store"
import { Effect, Result } from "effect"
import pg from "pg"
import { startPostgres } from "../../packages/store/test/support/postgres.js"
import agents from "./cluster-agents.js"
import { cpuMillis, startRunner, stopRunners, writeTransactions } from "./cluster-procs.js"

const runs = Number(process.argv[2] ?? 200)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
// "--flag value" pairs; a value may hold spaces ("3 seconds"): a flag starts each pair.
const pairs = (process.env["PROBE_RUNNER_ARGS"] ?? "").split(/\s+(?=--)/).filter((s) => s !== "").map((pair) => {
  const [flag, ...value] = pair.trim().split(" ")
  return [(flag as string).replace(/^--/, ""), value.join(" ")] as const
})
const runnerArgs = pairs.flatMap(([flag, value]) => [`--${flag}`, value])
const given = Settings.fromFlags(Object.fromEntries(pairs))
if (Result.isFailure(given)) throw given.failure

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

// CPU per run and write transactions (commits) per run of a batch of `runs` runs at once (after a warm-up once).
const measure = async (cpu: () => number, batch: (prefix: string, count: number) => Promise<void>, prefix: string) => {
  await query("SELECT pg_stat_statements_reset()")
  const commits0 = await writeTransactions(database)
  const cpu0 = cpu()
  const began = performance.now()
  await batch(prefix, runs)
  const wall = performance.now() - began
  const cpu1 = cpu()
  await sleep(2_000)
  const commits1 = await writeTransactions(database)
  return { wall, cpu: (cpu1 - cpu0) / runs, commits: (commits1 - commits0) / runs }
}

// The same agents in this process, on a PostgresStore, with the lease a runner would take.
const inProcess = async () => {
  const store = await PostgresStore.open({ connectionString: database, max: 10 })
  const lease = Settings.leaseMillis({ ...Settings.defaults, ...given.success })
  const registered = await Effect.runPromise(ClusterAgent.register(agents, store, { lease }))
  const agent = registered.get("charger")!.agent
  return {
    batch: async (prefix: string, count: number) => {
      await Promise.all(Array.from({ length: count }, (_, i) => agent.run(AgentState.make({ id: `inproc-${prefix}-${i}`, messages: [Message.user("charge me")] }))))
    },
    close: () => RunStore.close(store),
  }
}
const processCpu = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1_000
}
const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN
// In-process and runner batches alternate (PROBE_ROUNDS, default 3 of each), so both meet
// the same load; the statements per run are the runner's batches' (pg_stat_statements,
// reset before each and summed after).
const rounds = Number(process.env["PROBE_ROUNDS"] ?? 3)

try {
  await query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
  const local = await inProcess()
  const prof = process.env["PROBE_CPU_PROF"]
  const runner = await startRunner(database, runnerArgs, {}, prof === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${prof}`])
  const client = await Runner.openClient({ database, settings: { assignmentsRefresh: "1 second", messagePoll: "1 second" } })
  try {
    await sleep(3_000)
    const through = async (prefix: string, count: number) => {
      const ids = Array.from({ length: count }, (_, i) => `${prefix}-${i}`)
      await Promise.all(ids.map((runId) => client.start("charger", "charge me", { runId })))
      await Promise.all(ids.map((runId) => client.result(runId)))
    }
    await local.batch("warm", 50)
    await through("warm", 50)
    await sleep(2_000)
    const calls = new Map<string, number>()
    const extras: Array<number> = []
    for (let round = 0; round < rounds; round++) {
      const a = await measure(processCpu, local.batch, `probe${round}`)
      const b = await measure(() => cpuMillis(runner.pid), through, `probe${round}`)
      for (const r of await query<{ calls: string; query: string }>("SELECT calls, query FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat%'")) {
        const text = r.query.replace(/\s+/g, " ").slice(0, 170)
        calls.set(text, (calls.get(text) ?? 0) + Number(r.calls))
      }
      extras.push(b.cpu - a.cpu)
      console.log(
        `round ${round + 1}: in process ${runs} runs in ${a.wall.toFixed(0)} ms, CPU ${a.cpu.toFixed(2)} ms a run, ${a.commits.toFixed(1)} write transactions a run; ` +
          `runner${runnerArgs.length === 0 ? " (shipped settings)" : ` (${runnerArgs.join(" ")})`} ${b.wall.toFixed(0)} ms, CPU ${b.cpu.toFixed(2)} ms a run, ${b.commits.toFixed(1)} write transactions a run; extra ${(b.cpu - a.cpu).toFixed(2)} ms`,
      )
    }
    console.log(`extra runner CPU per run, median of ${rounds} alternated rounds: ${median(extras).toFixed(2)} ms (target <= 5)`)
    let total = 0
    for (const [text, n] of [...calls].sort((p, q) => q[1] - p[1])) {
      const perRun = n / (runs * rounds)
      total += perRun
      if (perRun >= 0.05) console.log(`${perRun.toFixed(2).padStart(7)}  ${text}`)
    }
    console.log(`${total.toFixed(1)} statements per run through the runner`)
  } finally {
    await client.close()
    await stopRunners([runner])
    await local.close()
  }
} finally {
  await server.stop()
}
