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
 * the batches in which none ran, by the `gc` performance entries), per step. Both charge
 * the run's first and last checkpoints to its steps, as a user's run pays them.
 * One full collection is forced after the warm-up, none between batches: a full
 * collection after a batch's runs were removed finds every object of theirs dead, and V8
 * throws away the optimized code that embedded their maps ("weak objects"), so the next
 * ~30 runs re-optimize; forced before every batch (as this bench did until memstep6;
 * STEP_GC=batch does it again), that per-batch cost was read as the store's marginal step
 * (a batch holds ~`runs` × 20 steps at every length, so a per-batch cost grows with the
 * run's length in the fit): +25–64 µs a step where the same runs read +9–11 without it.
 *
 * The split (in memory): runs of several lengths (STEP_LENGTHS, default 2,5,20,50 steps;
 * a batch of each length holds about `runs` × 20 steps) give a line, per run, of fixed +
 * marginal × steps (least squares over the lengths): "per run" is what a run pays once
 * (the lease, the first checkpoint, the heartbeat fiber, the last checkpoint and the
 * release, the final answer's step), "marginal" what one more tool step of the same run
 * adds. Issue 27's "≤ 5 µs per step" reads the marginal ("the same run"); the figure at
 * 20 steps is the old one, a run's fixed cost spread over its 20 steps.
 */
import { type AgentBuilder, UseAll, UseHook } from "@hookline/agent"
import { AgentState, Hook } from "@hookline/core"
import { MemoryStore, PostgresStore, RunStore, UseCheckpoints } from "@hookline/store"
import { Effect, Exit } from "effect"
import { PerformanceObserver } from "node:perf_hooks"
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
// STEP_HOOKS=1: each of the store's hooks timed where it runs (from its call to its
// answer: an Exit at once, else the Effect's end), added up per hook while `timing`. The
// timer costs two clock reads a call (~0.1 µs each), counted in the case's own CPU.
const timeHooks = process.env["STEP_HOOKS"] === "1"
const spent = new Map<string, number>()
let timing = false
const spend = (name: string, t0: number) => {
  if (timing) spent.set(name, (spent.get(name) ?? 0) + performance.now() - t0)
}
const timed = (capability: AgentBuilder.Capability): AgentBuilder.Capability => {
  if (capability._tag === "UseAll") return UseAll(...capability.capabilities.map(timed))
  if (capability._tag !== "UseHook") return capability
  const { hook, options } = capability
  const name = options.name ?? "?"
  if (typeof hook === "function") {
    return UseHook((ctx) => {
      const t0 = performance.now()
      try {
        return hook(ctx)
      } finally {
        spend(name, t0)
      }
    }, options)
  }
  if (hook._tag !== "EffectHook") return capability
  return UseHook(Hook.effect((ctx) => {
    const t0 = performance.now()
    const answer = hook.run(ctx)
    if (!Exit.isExit(answer)) return Effect.ensuring(answer, Effect.sync(() => spend(name, t0)))
    spend(name, t0)
    return answer
  }), options)
}
const agentWith = (checkpoints: boolean, steps: number) =>
  UserPath.agent({
    script: responses(steps),
    stepOf: (messages) => stepOf(messages, H),
    K: 0,
    observer: () => (ctx) => ctx,
    capabilities: checkpoints ? [timeHooks ? timed(UseCheckpoints(store)) : UseCheckpoints(store)] : [],
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
  // STEP_HOOKS: µs a step in each hook, one figure a batch.
  hooks: new Map<string, Array<number>>(),
})))
const seed = history(H)
let serial = 0
// STEP_GC=batch: a full collection before every batch (the old way: see above).
const gcEveryBatch = process.env["STEP_GC"] === "batch"
// When each collection ran (performance.now() time), to tell the batches none ran in.
const collections: Array<number> = []
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) collections.push(e.startTime)
}).observe({ entryTypes: ["gc"] })
const turn = () => new Promise<void>((resolve) => setImmediate(resolve))

// Per step: CPU µs, bytes and wall µs of a batch, divided by its runs × length.
const batch = async (c: (typeof cases)[number]): Promise<void> => {
  const inputs = Array.from({ length: c.runs }, () => AgentState.make({ id: `step-${serial++}`, messages: seed }))
  if (gcEveryBatch) gc()
  const heap = process.memoryUsage().heapUsed
  const cpu = process.cpuUsage()
  const wall = performance.now()
  counting = c.checkpoints
  spent.clear()
  timing = timeHooks
  for (const input of inputs) {
    const final = await c.agent.run(input)
    if (final.execution.steps.length !== c.length || final.execution.status !== "completed") throw new Error(`${c.name}: ${final.execution.status}`)
  }
  const used = process.cpuUsage(cpu)
  const ended = performance.now()
  timing = false
  const grown = process.memoryUsage().heapUsed - heap
  counting = false
  const n = c.runs * c.length
  c.wall.push(((ended - wall) * 1000) / n)
  c.cpu.push((used.user + used.system) / n)
  for (const [name, ms] of spent) c.hooks.set(name, [...(c.hooks.get(name) ?? []), (ms * 1000) / n])
  // The heap's growth is what the batch allocated only if no collection ran inside it.
  await turn()
  await turn()
  if (!collections.some((t) => t >= wall && t <= ended)) c.heap.push(grown / n)
  // Untimed: the store stays as small as it was (what it keeps is counted above, once).
  for (const input of inputs) await Effect.runPromise((store as RunStore.RunStore).remove(input.id))
}

for (const c of cases) for (let i = 0; i < 10; i++) await batch(c)
for (const c of cases) (c.cpu.length = 0), (c.heap.length = 0), (c.wall.length = 0), c.hooks.clear()
// One full collection before the timed batches (the warm-up's garbage), then none forced.
gc()
await turn()
statements = 0
for (let b = 0; b < batches; b++) for (const c of cases) await batch(c)

const min = (xs: ReadonlyArray<number>) => Math.min(...xs)
const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number
const at = (length: number) => cases.filter((c) => c.length === length)
const main = lengths.includes(steps) ? steps : (lengths[0] as number)
for (const c of at(main)) {
  process.stdout.write(`${c.name.padEnd(8)} CPU ${min(c.cpu).toFixed(2)} µs/step (min of ${batches}; median ${median(c.cpu).toFixed(2)}), ` +
    `allocated ${Math.round(median(c.heap))} B/step (median of the ${c.heap.length} batches no collection ran in), wall ${median(c.wall).toFixed(2)} µs/step (median; min ${min(c.wall).toFixed(2)}), runs of ${main} steps\n`)
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
if (timeHooks) {
  // Per hook: µs a step at each length (least of the batches), and its marginal by the same fit.
  const memory = cases.filter((c) => c.checkpoints)
  const names = [...new Set(memory.flatMap((c) => [...c.hooks.keys()]))]
  let sum = 0
  for (const name of names) {
    const points = memory.map((c) => [c.length, min(c.hooks.get(name) ?? [0]) * c.length] as const)
    const marginal = points.length >= 2 ? fit(points).marginal : Number.NaN
    if (Number.isFinite(marginal)) sum += marginal
    process.stdout.write(`hook ${name.padEnd(24)} ${memory.map((c) => `${min(c.hooks.get(name) ?? [0]).toFixed(2)}`).join(" / ")} µs/step at ${memory.map((c) => c.length).join(" / ")} steps (least of the batches), marginal ${marginal.toFixed(2)} µs/step\n`)
  }
  process.stdout.write(`hooks    marginal ${sum.toFixed(2)} µs/step in the store's hooks in all (the rest of the marginal is the engine's dispatch of them, the collector, and the timer)\n`)
}
if (pool !== undefined) process.stdout.write(`commits  ${(statements / (batches * runs)).toFixed(2)} per run of ${steps - 1} tool steps and a final answer (statements sent through the pool, each its own commit)\n`)
await RunStore.close(store)
await pool?.end()
await server?.stop()
