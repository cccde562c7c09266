/**
 * The in-memory store's step on a fixed amount of work (issue 27): what
 * `UseCheckpoints(MemoryStore)` adds to a step of the user path, in CPU time and in
 * bytes allocated, figures that a loaded machine disturbs far less than wall time.
 *
 *   node --conditions=@hookline/source --expose-gc --max-semi-space-size=128 --import tsx bench/src/store-step.ts [batches] [runs]
 *
 * The agent of UserPath.ts (K = 0) runs `steps` steps (one `echo` call each, then a
 * text) over H = 10 messages, each run a new run id, with checkpoints and without.
 * With STEP_STORE=postgres, PostgresStore on an embedded PostgreSQL (fsync on) takes
 * the in-memory store's place, and wall time per step is what to read (the disk's waits);
 * STEP_PREPARED=off opens it with `prepared: false` (statements parsed and planned at
 * every call), for an A/B in one tree; STEP_FLUSH=off opens it with `waitForFlush: false`.
 * On PostgreSQL the store runs on a pool of the bench's, whose `query` calls are counted:
 * each is one statement and its own commit (a run's path holds no transaction), so the
 * bench prints commits per run (STEP_FLUSH=off keeps the store's own pool: not counted).
 * Each batch's runs are removed from the store after it (untimed).
 * CPU: `process.cpuUsage` over a batch of `runs` runs, the least of `batches` batches
 * (interleaved, with and without), per step. Allocated: the heap's growth over a batch
 * with a young generation large enough that no collection runs inside it (the median of
 * the batches), per step. Both charge the run's first and last checkpoints to its
 * steps, as a user's run pays them.
 */
import { AgentState } from "@hookline/core"
import { MemoryStore, PostgresStore, RunStore, UseCheckpoints } from "@hookline/store"
import { Effect } from "effect"
import pg from "pg"
import { history, responses, stepOf } from "./loop.js"
import * as UserPath from "./UserPath.js"
// The store tests' server starter: one way to start PostgreSQL in this repository.
import { startPostgres } from "../../packages/store/test/support/postgres.js"

const { Pool } = pg
const steps = 20
const H = 10
const [batches = 9, runs = 200] = process.argv.slice(2).map(Number)
const gc = (globalThis as { gc?: () => void }).gc
if (gc === undefined) throw new Error("run with --expose-gc")

// STEP_STORE=postgres: PostgresStore on an embedded PostgreSQL (fsync on) instead; then
// wall time per step is reported beside CPU time (the waits for the disk are the cost).
const onPostgres = process.env["STEP_STORE"] === "postgres"
const server = onPostgres ? await startPostgres() : undefined
const flushed = process.env["STEP_FLUSH"] !== "off"
// Statements sent through the pool's `query` (each its own commit), counted while `counting`.
let statements = 0
let counting = false
const pool = server === undefined || !flushed ? undefined : new Pool({ connectionString: server.connectionString, max: 10 })
if (pool !== undefined) {
  const query = pool.query.bind(pool) as (...args: Array<unknown>) => unknown
  ;(pool as unknown as { query: (...args: Array<unknown>) => unknown }).query = (...args) => {
    if (counting) statements++
    return query(...args)
  }
}
const store: RunStore.RunStore = server === undefined
  ? MemoryStore.make()
  : await PostgresStore.open(
    pool === undefined
      ? { connectionString: server.connectionString, prepared: process.env["STEP_PREPARED"] !== "off", waitForFlush: flushed }
      : { pool, prepared: process.env["STEP_PREPARED"] !== "off" },
  )
const agentWith = (checkpoints: boolean) =>
  UserPath.agent({
    script: responses(steps),
    stepOf: (messages) => stepOf(messages, H),
    K: 0,
    observer: () => (ctx) => ctx,
    capabilities: checkpoints ? [UseCheckpoints(store)] : [],
  })

// STEP_ONLY=memory (or without) runs one case alone, for a CPU profile of it.
const only = process.env["STEP_ONLY"]
const cases = [
  { name: "without", agent: agentWith(false), cpu: [] as Array<number>, heap: [] as Array<number> },
  { name: onPostgres ? "postgres" : "memory", agent: agentWith(true), cpu: [] as Array<number>, heap: [] as Array<number> },
].map((c) => ({ wall: [] as Array<number>, ...c })).filter((c) => only === undefined || c.name === only)
const seed = history(H)
let serial = 0

const batch = async (c: (typeof cases)[number]): Promise<void> => {
  const inputs = Array.from({ length: runs }, () => AgentState.make({ id: `step-${serial++}`, messages: seed }))
  gc()
  const heap = process.memoryUsage().heapUsed
  const cpu = process.cpuUsage()
  const wall = performance.now()
  counting = c.name !== "without"
  for (const input of inputs) {
    const final = await c.agent.run(input)
    if (final.execution.steps.length !== steps || final.execution.status !== "completed") throw new Error(`${c.name}: ${final.execution.status}`)
  }
  const used = process.cpuUsage(cpu)
  counting = false
  c.wall.push(((performance.now() - wall) * 1000) / runs / steps)
  c.heap.push((process.memoryUsage().heapUsed - heap) / runs / steps)
  c.cpu.push((used.user + used.system) / runs / steps)
  // Untimed: the store stays as small as it was (what it keeps is counted above, once).
  for (const input of inputs) await Effect.runPromise((store as RunStore.RunStore).remove(input.id))
}

for (const c of cases) for (let i = 0; i < 10; i++) await batch(c)
for (const c of cases) (c.cpu.length = 0), (c.heap.length = 0), (c.wall.length = 0)
statements = 0
for (let b = 0; b < batches; b++) for (const c of cases) await batch(c)

const min = (xs: ReadonlyArray<number>) => Math.min(...xs)
const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number
for (const c of cases) {
  process.stdout.write(`${c.name.padEnd(8)} CPU ${min(c.cpu).toFixed(2)} µs/step (min of ${batches}; median ${median(c.cpu).toFixed(2)}), ` +
    `allocated ${Math.round(median(c.heap))} B/step (median), wall ${median(c.wall).toFixed(2)} µs/step (median; min ${min(c.wall).toFixed(2)})\n`)
}
const [without, memory] = cases
if (without !== undefined && memory !== undefined) {
  process.stdout.write(`added    CPU ${(min(memory.cpu) - min(without.cpu)).toFixed(2)} µs/step, allocated ${Math.round(median(memory.heap) - median(without.heap))} B/step, ` +
    `wall ${(median(memory.wall) - median(without.wall)).toFixed(2)} µs/step (medians)\n`)
}
if (pool !== undefined) process.stdout.write(`commits  ${(statements / (batches * runs)).toFixed(2)} per run of ${steps - 1} tool steps and a final answer (statements sent through the pool, each its own commit)\n`)
await RunStore.close(store)
await pool?.end()
await server?.stop()
