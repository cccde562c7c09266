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
 *
 * The split (in memory): runs of several lengths (STEP_LENGTHS, default 2,5,20,50 steps;
 * a batch of each length holds about `runs` × 20 steps) give a line, per run, of fixed +
 * marginal × steps (least squares over the lengths): "per run" is what a run pays once
 * (the lease, the first checkpoint, the heartbeat fiber, the last checkpoint and the
 * release, the final answer's step), "marginal" what one more tool step of the same run
 * adds. Issue 27's "≤ 5 µs per step" reads the marginal ("the same run"); the figure at
 * 20 steps is the old one, a run's fixed cost spread over its 20 steps.
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
const agentWith = (checkpoints: boolean, steps: number) =>
  UserPath.agent({
    script: responses(steps),
    stepOf: (messages) => stepOf(messages, H),
    K: 0,
    observer: () => (ctx) => ctx,
    capabilities: checkpoints ? [UseCheckpoints(store)] : [],
  })

// Run lengths (steps per run): the default figure's 20, and others for the split.
const lengths = onPostgres
  ? [steps]
  : (process.env["STEP_LENGTHS"] ?? "2,5,20,50").split(",").map(Number).filter((n) => Number.isSafeInteger(n) && n >= 1)
if (lengths.length === 0) throw new Error("STEP_LENGTHS: expected step counts, e.g. 2,5,20,50")
// STEP_ONLY=memory (or without) runs one case alone, for a CPU profile of it.
const only = process.env["STEP_ONLY"]
const cases = lengths.flatMap((length) => [
  { name: "without", checkpoints: false },
  { name: onPostgres ? "postgres" : "memory", checkpoints: true },
].filter((c) => only === undefined || c.name === only).map((c) => ({
  ...c,
  length,
  // About `runs` × 20 steps a batch, whatever the length.
  runs: Math.max(1, Math.round((runs * steps) / length)),
  agent: agentWith(c.checkpoints, length),
  cpu: [] as Array<number>,
  heap: [] as Array<number>,
  wall: [] as Array<number>,
})))
const seed = history(H)
let serial = 0

// Per step: CPU µs, bytes and wall µs of a batch, divided by its runs × length.
const batch = async (c: (typeof cases)[number]): Promise<void> => {
  const inputs = Array.from({ length: c.runs }, () => AgentState.make({ id: `step-${serial++}`, messages: seed }))
  gc()
  const heap = process.memoryUsage().heapUsed
  const cpu = process.cpuUsage()
  const wall = performance.now()
  counting = c.checkpoints
  for (const input of inputs) {
    const final = await c.agent.run(input)
    if (final.execution.steps.length !== c.length || final.execution.status !== "completed") throw new Error(`${c.name}: ${final.execution.status}`)
  }
  const used = process.cpuUsage(cpu)
  counting = false
  const n = c.runs * c.length
  c.wall.push(((performance.now() - wall) * 1000) / n)
  c.heap.push((process.memoryUsage().heapUsed - heap) / n)
  c.cpu.push((used.user + used.system) / n)
  // Untimed: the store stays as small as it was (what it keeps is counted above, once).
  for (const input of inputs) await Effect.runPromise((store as RunStore.RunStore).remove(input.id))
}

for (const c of cases) for (let i = 0; i < 10; i++) await batch(c)
for (const c of cases) (c.cpu.length = 0), (c.heap.length = 0), (c.wall.length = 0)
statements = 0
for (let b = 0; b < batches; b++) for (const c of cases) await batch(c)

const min = (xs: ReadonlyArray<number>) => Math.min(...xs)
const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number
const at = (length: number) => cases.filter((c) => c.length === length)
const main = lengths.includes(steps) ? steps : (lengths[0] as number)
for (const c of at(main)) {
  process.stdout.write(`${c.name.padEnd(8)} CPU ${min(c.cpu).toFixed(2)} µs/step (min of ${batches}; median ${median(c.cpu).toFixed(2)}), ` +
    `allocated ${Math.round(median(c.heap))} B/step (median), wall ${median(c.wall).toFixed(2)} µs/step (median; min ${min(c.wall).toFixed(2)}), runs of ${main} steps\n`)
}
const added = (length: number) => {
  const [without, memory] = at(length)
  return without === undefined || memory === undefined || without.checkpoints ? undefined : {
    cpu: min(memory.cpu) - min(without.cpu),
    heap: median(memory.heap) - median(without.heap),
    wall: median(memory.wall) - median(without.wall),
  }
}
const atMain = added(main)
if (atMain !== undefined) {
  process.stdout.write(`added    CPU ${atMain.cpu.toFixed(2)} µs/step, allocated ${Math.round(atMain.heap)} B/step, ` +
    `wall ${atMain.wall.toFixed(2)} µs/step (medians), runs of ${main} steps (the run's fixed cost spread over them)\n`)
}
// Least squares of the added cost per run (per step × length) over the lengths: fixed + marginal × length.
const fit = (points: ReadonlyArray<readonly [number, number]>) => {
  const n = points.length
  const mx = points.reduce((a, [x]) => a + x, 0) / n
  const my = points.reduce((a, [, y]) => a + y, 0) / n
  const sxx = points.reduce((a, [x]) => a + (x - mx) ** 2, 0)
  const marginal = points.reduce((a, [x, y]) => a + (x - mx) * (y - my), 0) / sxx
  return { fixed: my - marginal * mx, marginal }
}
const split = lengths.flatMap((length) => {
  const a = added(length)
  return a === undefined ? [] : [{ length, ...a }]
})
if (split.length >= 2) {
  for (const s of split) {
    process.stdout.write(`  ${String(s.length).padStart(3)} steps: added CPU ${s.cpu.toFixed(2)} µs/step, ${Math.round(s.heap)} B/step\n`)
  }
  const cpu = fit(split.map((s) => [s.length, s.cpu * s.length] as const))
  const heap = fit(split.map((s) => [s.length, s.heap * s.length] as const))
  process.stdout.write(`per run  added CPU ${cpu.fixed.toFixed(1)} µs, allocated ${Math.round(heap.fixed)} B (fixed: lease, first and last checkpoints, the final step)\n`)
  process.stdout.write(`marginal added CPU ${cpu.marginal.toFixed(2)} µs/step, allocated ${Math.round(heap.marginal)} B/step (one more tool step of the same run: issue 27's figure)\n`)
}
if (pool !== undefined) process.stdout.write(`commits  ${(statements / (batches * runs)).toFixed(2)} per run of ${steps - 1} tool steps and a final answer (statements sent through the pool, each its own commit)\n`)
await RunStore.close(store)
await pool?.end()
await server?.stop()
