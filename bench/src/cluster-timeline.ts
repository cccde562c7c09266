/**
 * `node --conditions=@hookline/source --import tsx bench/src/cluster-timeline.ts [runs]`:
 * one short run's cluster overhead, split. One embedded PostgreSQL, one runner with the
 * shipped settings (bench/src/cluster-timeline-runner.ts: `hookline-runner`'s layers with
 * a recorder of every effect span and store call), this process the client (recorded the
 * same way); `runs` (default 60) `charger` runs one at a time, as the cluster bench's
 * latency rows run them (`start`, then `result`), after a warm-up. Both processes stamp on
 * the machine's monotonic clock, so one run's marks line up across them. Prints the
 * median of each part and one run's whole timeline (TIMELINE_DUMP=1). Opt-in, for
 * measuring only: the shipped runner records nothing.
 */
import { Client, ClusterAgent, Settings } from "@hookline/cluster"
import { AgentState, Message } from "@hookline/core"
import { PostgresStore, RunStore } from "@hookline/store"
import { Effect, Layer, ManagedRuntime } from "effect"
import { readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { startPostgres } from "../../packages/store/test/support/postgres.js"
import agents from "./cluster-agents.js"
import { startRunner, stopRunners } from "./cluster-procs.js"
import { type Mark, nowMicros, recorder, tracedCluster } from "./cluster-trace.js"

const runs = Number(process.argv[2] ?? 60)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN
const entry = fileURLToPath(new URL("./cluster-timeline-runner.ts", import.meta.url))
const out = join(tmpdir(), `hookline-timeline-${process.pid}.jsonl`)

const server = await startPostgres()
const database = server.connectionString
const rec = recorder("client")
// The same run in this process, one at a time, on a PostgresStore with the runner's lease.
const inProcess = async () => {
  const store = await PostgresStore.open({ connectionString: database, max: 10 })
  try {
    const registered = await Effect.runPromise(ClusterAgent.register(agents, store, { lease: Settings.leaseMillis(Settings.defaults) }))
    const agent = registered.get("charger")!.agent
    const took: Array<number> = []
    for (let i = 0; i < 20 + runs; i++) {
      const t0 = nowMicros()
      await agent.run(AgentState.make({ id: `inproc-${i}`, messages: [Message.user("charge me")] }))
      if (i >= 20) took.push((nowMicros() - t0) / 1_000)
    }
    return median(took)
  } finally {
    await RunStore.close(store)
  }
}
try {
  const local = await inProcess()
  const runner = await startRunner(database, [], { TIMELINE_OUT: out }, [], entry)
  const runtime = ManagedRuntime.make(
    Client.layer().pipe(Layer.provide(tracedCluster(rec, database, { clientOnly: true })), Layer.provideMerge(rec.layer)),
  )
  const windows: Array<{ runId: string; t0: number; t1: number; t2: number }> = []
  try {
    const client = await runtime.runPromise(Effect.map(Client.HooklineClient, (c) => c))
    await sleep(3_000)
    const one = async (runId: string) => {
      const t0 = nowMicros()
      await runtime.runPromise(client.start("charger", "charge me", { runId }))
      const t1 = nowMicros()
      await runtime.runPromise(client.result(runId))
      return { runId, t0, t1, t2: nowMicros() }
    }
    for (let i = 0; i < 20; i++) await one(`tlwarm-${i}`)
    await sleep(1_000)
    for (let i = 0; i < runs; i++) windows.push(await one(`tl-${i}`))
  } finally {
    await runtime.dispose()
    await stopRunners([runner])
  }
  const marks: ReadonlyArray<Mark> = [...rec.marks, ...readFileSync(out, "utf8").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as Mark)]
  rmSync(out, { force: true })
  if (process.env["TIMELINE_NAMES"] === "1") {
    const names = new Map<string, number>()
    for (const m of marks) names.set(`${m.who} ${m.name}`, (names.get(`${m.who} ${m.name}`) ?? 0) + 1)
    for (const [name, n] of [...names].sort((a, b) => b[1] - a[1])) console.log(`${String(n).padStart(6)} ${name}`)
  }
  const first = (xs: ReadonlyArray<Mark>, who: string, name: string, after = 0) => xs.find((m) => m.who === who && m.name === name && m.start >= after)
  const last = (xs: ReadonlyArray<Mark>, who: string, name: string) => xs.findLast((m) => m.who === who && m.name === name)
  // Each run's parts, in ms, from its marks (runs go one at a time, so a mark inside a
  // run's window is that run's, besides timers: the storage reads are taken after the
  // Start's row is stored).
  const parts = windows.flatMap((w) => {
    const xs = marks.filter((m) => m.start >= w.t0 && m.start <= w.t2).sort((a, b) => a.start - b.start)
    const saved = first(xs, "client", "storage.saveRequest")
    const read = saved && first(xs, "runner", "storage.unprocessedMessages", saved.end)
    const handler = first(xs, "runner", "HooklineRun.Start")
    const result = first(xs, "runner", "HooklineRun.Result")
    const lease = first(xs, "runner", "store.takeLease")
    const released = last(xs, "runner", "store.releaseLease")
    if (!saved || !read || !handler || !result || !lease || !released) return []
    const ms = (a: number, b: number) => (b - a) / 1_000
    return [{
      "client: Start's row stored (saveRequest)": ms(saved.start, saved.end),
      "client: rest of start (Notify to the runner and its answer)": ms(saved.end, w.t1),
      "runner: Notify until its read of new messages begins": ms(saved.end, read.start),
      "runner: read of new messages (unprocessedMessages)": ms(read.start, read.end),
      "runner: read's end until the Start handler begins": ms(read.end, handler.start),
      "runner: Start handler until the run's lease (head, cancel marker)": ms(handler.start, lease.start),
      "runner: the run (lease taken until released)": ms(lease.start, released.end),
      "runner: run's end until its Result answers": ms(released.end, result.end),
      "client: the Result's answer on its way back": ms(result.end, w.t2),
      "client: start answered until the runner has the Result": ms(w.t1, result.start),
      "whole: start until result": ms(w.t0, w.t2),
    }]
  })
  console.log(`the same run in process, one at a time: ${local.toFixed(2)} ms median`)
  console.log(`${parts.length} of ${windows.length} runs through the cluster with every mark; medians, ms:`)
  for (const key of Object.keys(parts[0] ?? {})) console.log(`${median(parts.map((p) => (p as Record<string, number>)[key]!)).toFixed(2).padStart(8)}  ${key}`)
  if (process.env["TIMELINE_DUMP"] === "1") {
    const w = [...windows].sort((a, b) => (a.t2 - a.t0) - (b.t2 - b.t0))[Math.floor(windows.length / 2)]!
    console.log(`the median run, ${w.runId}:`)
    for (const m of marks.filter((m) => m.start >= w.t0 && m.start <= w.t2).sort((a, b) => a.start - b.start)) {
      console.log(`${((m.start - w.t0) / 1000).toFixed(2).padStart(7)} ${((m.end - w.t0) / 1000).toFixed(2).padStart(7)}  ${m.who.padEnd(6)} ${m.name.slice(0, 50).padEnd(50)} ${m.detail ?? ""}`)
    }
  }
} finally {
  await server.stop()
}
