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

const server = await startPostgres(["shared_preload_libraries=pg_stat_statements", "pg_stat_statements.track_planning=on", `synchronous_commit=${sync}`])
try {
  const store = await PostgresStore.open({ connectionString: server.connectionString, prepared })
  const pg = await import("pg")
  const admin = new pg.default.Client({ connectionString: server.connectionString })
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
  const batch = async () => {
    const ids: Array<string> = []
    const cpu = process.cpuUsage()
    const wall = performance.now()
    for (let i = 0; i < runs; i++) ids.push(await replay())
    const used = process.cpuUsage(cpu)
    const wallUs = ((performance.now() - wall) * 1000) / runs / steps
    for (const id of ids) await Effect.runPromise(store.remove(id))
    return { cpu: (used.user + used.system) / runs / steps, wall: wallUs }
  }
  for (let i = 0; i < 5; i++) await batch()
  await admin.query("SELECT pg_stat_statements_reset()")
  const measured: Array<{ readonly cpu: number; readonly wall: number }> = []
  for (let i = 0; i < batches; i++) measured.push(await batch())
  const min = (xs: ReadonlyArray<number>) => Math.min(...xs)
  const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number
  const cpu = measured.map((m) => m.cpu)
  const wall = measured.map((m) => m.wall)
  process.stdout.write(`synchronous_commit=${sync}, prepared ${prepared}: the store's calls per step: client CPU ${min(cpu).toFixed(1)} µs (min of ${batches}; median ${median(cpu).toFixed(1)}), ` +
    `wall ${median(wall).toFixed(1)} µs (median; min ${min(wall).toFixed(1)})\n`)
  const stats = await admin.query(
    `SELECT calls, mean_plan_time, mean_exec_time, regexp_replace(query, '\\s+', ' ', 'g') AS text FROM pg_stat_statements
     WHERE calls >= $1 AND query LIKE '%hookline_%' ORDER BY calls DESC, total_exec_time DESC`,
    [batches * runs],
  )
  for (const row of stats.rows as Array<{ calls: string; mean_plan_time: number; mean_exec_time: number; text: string }>) {
    process.stdout.write(`${String(row.calls).padStart(6)} calls, plan ${(row.mean_plan_time * 1000).toFixed(1).padStart(6)} µs, ` +
      `execute ${(row.mean_exec_time * 1000).toFixed(1).padStart(6)} µs (means): ${row.text.slice(0, 80)}\n`)
  }
  await admin.end()
  await RunStore.close(store)
} finally {
  await server.stop()
}
