/**
 * Where a PostgresStore step's time goes (issue 27): one checkpointed run of the store
 * bench's agent (store-step.ts: 20 steps, one `echo` call each, H = 10) is recorded at the
 * store's door (MemoryStore), then its store calls are replayed against PostgresStore on
 * an embedded PostgreSQL with `pg_stat_statements`, each replay a new run id:
 *
 *   node --conditions=@hookline/source --import tsx bench/src/store-pg.ts [batches] [runs]
 *
 * Prints the client's CPU (`process.cpuUsage`, least of the batches) and wall time per
 * step of the store calls alone (no agent), then the server's mean planning and execution
 * time per statement. STEP_SYNC=off runs the server with `synchronous_commit=off` (no
 * wait for the disk: the CPU of both sides and the round trips alone); default on.
 * STEP_PREPARED=off opens the store with `prepared: false` (every statement parsed and
 * planned at each call, as before issue 27's branch pgstep), for an A/B in one tree.
 *
 * Beside the store, the driver's floor: the statements the store sent for one replay
 * (recorded at its pool's door, a pool of ours) sent again through one held `pg.Client`,
 * with no store, no Effect and no pool, batches interleaved with the store's. The gap is
 * what the store's own layers cost. Then what the server did per step, from
 * `pg_stat_statements` (plan and execute time per statement), `pg_stat_io` (WAL writes and
 * fsyncs a commit waited for, with their time) and `pg_stat_wal` (WAL records, full-page
 * images, bytes), over both.
 */
import { AgentState } from "@hookline/core"
import { MemoryStore, PostgresStore, RunStore, UseCheckpoints } from "@hookline/store"
import { Effect } from "effect"
import { history, responses, stepOf } from "./loop.js"
import * as UserPath from "./UserPath.js"
// The store tests' server starter: one way to start PostgreSQL in this repository.
import { startPostgres } from "../../packages/store/test/support/postgres.js"

const steps = 20
const H = 10
const [batches = 9, runs = 10] = process.argv.slice(2).map(Number)
const sync = process.env["STEP_SYNC"] === "off" ? "off" : "on"
const prepared = process.env["STEP_PREPARED"] !== "off"

// One run's store calls, in order, with their arguments.
const calls: Array<{ readonly name: string; readonly args: ReadonlyArray<unknown> }> = []
const memory = MemoryStore.make()
const recording = Object.fromEntries(Object.entries(memory).map(([name, value]) => [
  name,
  typeof value !== "function" || name === "close" ? value : (...args: Array<unknown>) => {
    calls.push({ name, args: structuredClone(args) })
    return (value as (...a: Array<unknown>) => unknown)(...args)
  },
])) as unknown as RunStore.RunStore
const recorder = UserPath.agent({
  script: responses(steps),
  stepOf: (messages) => stepOf(messages, H),
  K: 0,
  observer: () => (ctx) => ctx,
  capabilities: [UseCheckpoints(recording)],
})
await recorder.run(AgentState.make({ id: "recorded", messages: history(H) }))
const byName = new Map<string, number>()
for (const call of calls) byName.set(call.name, (byName.get(call.name) ?? 0) + 1)
process.stdout.write(`one run's store calls: ${[...byName].map(([n, k]) => `${n} ${k}`).join(", ")}\n`)

// The recorded call with the run id (and the checkpoint's `id`) of another run.
const renamed = (args: ReadonlyArray<unknown>, runId: string): Array<unknown> =>
  args.map((arg) => {
    if (arg === "recorded") return runId
    if (typeof arg !== "object" || arg === null || (arg as { runId?: unknown }).runId !== "recorded") return arg
    const body = (arg as { body?: unknown }).body
    return { ...arg, runId, ...(typeof body === "string" ? { body: body.replace(`"id":"recorded"`, `"id":${JSON.stringify(runId)}`) } : {}) }
  })

const server = await startPostgres([
  "shared_preload_libraries=pg_stat_statements",
  "pg_stat_statements.track_planning=on",
  `synchronous_commit=${sync}`,
  "track_io_timing=on",
  "track_wal_io_timing=on",
])
try {
  const pg = (await import("pg")).default
  // The store's pool, recording what it is asked to run while `recordingSql` is set.
  let recordingSql: Array<{ readonly name: string | undefined; readonly text: string; readonly values: ReadonlyArray<unknown> }> | undefined
  const pool = new pg.Pool({ connectionString: server.connectionString, max: 10 })
  const query = pool.query.bind(pool) as (config: unknown, values?: unknown) => Promise<unknown>
  ;(pool as unknown as { query: typeof query }).query = (config, values) => {
    if (recordingSql !== undefined && typeof config === "object" && config !== null) {
      const c = config as { name?: string; text: string; values?: ReadonlyArray<unknown> }
      recordingSql.push({ name: c.name, text: c.text, values: c.values ?? [] })
    } else if (recordingSql !== undefined) {
      recordingSql.push({ name: undefined, text: config as string, values: (values as ReadonlyArray<unknown> | undefined) ?? [] })
    }
    return query(config, values)
  }
  const store = await PostgresStore.open({ pool, prepared })
  const admin = new pg.Client({ connectionString: server.connectionString })
  await admin.connect()
  await admin.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
  let serial = 0
  const replay = async (): Promise<string> => {
    const runId = `replay-${serial++}`
    for (const { name, args } of calls) {
      const exit = await Effect.runPromiseExit((store as unknown as Record<string, (...a: Array<unknown>) => Effect.Effect<unknown, unknown>>)[name]!(...renamed(args, runId)))
      if (exit._tag === "Failure") throw new Error(`${name} of ${runId} failed`)
    }
    return runId
  }
  // One replay's statements, as the store sent them: the driver's floor sends them again.
  recordingSql = []
  await Effect.runPromise(store.remove(await replay()))
  const sent = recordingSql.filter((s) => !s.text.startsWith("DELETE FROM hookline_runs") && !s.text.startsWith("DELETE FROM hookline_checkpoints"))
  recordingSql = undefined
  const recordedId = `replay-${serial - 1}`
  const driver = new pg.Client({ connectionString: server.connectionString })
  await driver.connect()
  const direct = async (): Promise<string> => {
    const runId = `driver-${serial++}`
    const swap = (value: unknown): unknown => (typeof value === "string" ? value.replaceAll(recordedId, runId) : value)
    for (const s of sent) {
      const values = s.values.map(swap)
      await (s.name === undefined || !prepared ? driver.query(s.text, values) : driver.query({ name: s.name, text: s.text, values }))
    }
    return runId
  }
  const batch = async (run: () => Promise<string>) => {
    const ids: Array<string> = []
    const cpu = process.cpuUsage()
    const wall = performance.now()
    for (let i = 0; i < runs; i++) ids.push(await run())
    const used = process.cpuUsage(cpu)
    const wallUs = ((performance.now() - wall) * 1000) / runs / steps
    for (const id of ids) await Effect.runPromise(store.remove(id))
    return { cpu: (used.user + used.system) / runs / steps, wall: wallUs }
  }
  const cases = [
    { name: "store", run: replay, measured: [] as Array<{ readonly cpu: number; readonly wall: number }> },
    { name: "driver", run: direct, measured: [] as Array<{ readonly cpu: number; readonly wall: number }> },
  ]
  for (let i = 0; i < 5; i++) for (const c of cases) await batch(c.run)
  await admin.query("SELECT pg_stat_statements_reset()")
  await admin.query("SELECT pg_stat_reset_shared('io')")
  await admin.query("SELECT pg_stat_reset_shared('wal')")
  for (let i = 0; i < batches; i++) for (const c of cases) c.measured.push(await batch(c.run))
  const min = (xs: ReadonlyArray<number>) => Math.min(...xs)
  const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number
  process.stdout.write(`synchronous_commit=${sync}, prepared ${prepared}, ${(sent.length / steps).toFixed(2)} statements per step (each its own commit):\n`)
  for (const c of cases) {
    const cpu = c.measured.map((m) => m.cpu)
    const wall = c.measured.map((m) => m.wall)
    process.stdout.write(`  ${c.name.padEnd(6)} client CPU ${min(cpu).toFixed(1)} µs/step (min of ${batches}; median ${median(cpu).toFixed(1)}), ` +
      `wall ${median(wall).toFixed(1)} µs/step (median; min ${min(wall).toFixed(1)})\n`)
  }
  // Backends report their statistics at most once a second while idle.
  await new Promise((resolve) => setTimeout(resolve, 1_500))
  const replayedSteps = 2 * batches * runs * steps
  const io = (await admin.query(
    `SELECT coalesce(sum(writes), 0) AS writes, coalesce(sum(write_time), 0) AS write_time, coalesce(sum(fsyncs), 0) AS fsyncs,
            coalesce(sum(fsync_time), 0) AS fsync_time
     FROM pg_stat_io WHERE object = 'wal' AND context = 'normal' AND backend_type = 'client backend'`,
  )).rows[0] as { writes: string; write_time: number; fsyncs: string; fsync_time: number }
  const wal = (await admin.query(`SELECT wal_records, wal_fpi, wal_bytes FROM pg_stat_wal`)).rows[0] as { wal_records: string; wal_fpi: string; wal_bytes: string }
  const fsyncs = Number(io.fsyncs)
  process.stdout.write(`  server, per step: WAL ${(Number(io.writes) / replayedSteps).toFixed(2)} writes (${(Number(io.write_time) * 1000 / Math.max(1, Number(io.writes))).toFixed(1)} µs each), ` +
    `${(fsyncs / replayedSteps).toFixed(2)} fsyncs (${(Number(io.fsync_time) * 1000 / Math.max(1, fsyncs)).toFixed(1)} µs each), ` +
    `${(Number(wal.wal_records) / replayedSteps).toFixed(1)} records, ${(Number(wal.wal_fpi) / replayedSteps).toFixed(2)} full-page images, ${Math.round(Number(wal.wal_bytes) / replayedSteps)} bytes\n`)
  const stats = await admin.query(
    `SELECT calls, mean_plan_time, mean_exec_time, regexp_replace(query, '\\s+', ' ', 'g') AS text FROM pg_stat_statements
     WHERE calls >= $1 AND query LIKE '%hookline_%' ORDER BY calls DESC, total_exec_time DESC`,
    [2 * batches * runs],
  )
  for (const row of stats.rows as Array<{ calls: string; mean_plan_time: number; mean_exec_time: number; text: string }>) {
    process.stdout.write(`${String(row.calls).padStart(6)} calls, plan ${(row.mean_plan_time * 1000).toFixed(1).padStart(6)} µs, ` +
      `execute ${(row.mean_exec_time * 1000).toFixed(1).padStart(6)} µs (means): ${row.text.slice(0, 80)}\n`)
  }
  await admin.end()
  await driver.end()
  await RunStore.close(store)
  await pool.end()
} finally {
  await server.stop()
}
