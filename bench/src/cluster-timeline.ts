/**
 * `node --conditions=@hookline/source --import tsx bench/src/cluster-timeline.ts [runs]`:
 * one short run's cluster overhead, split. One embedded PostgreSQL, one runner with the
 * shipped settings (bench/src/cluster-timeline-runner.ts: `hookline-runner`'s layers with
 * a recorder of every effect span and store call), this process the client (recorded the
 * same way); `runs` (default 60) `charger` runs one at a time, as the cluster bench's
 * latency rows run them (`start`, then `result`), after a warm-up, each followed by the
 * same run in this process (its store's statements recorded the same way), so both meet the
 * same load. Both processes stamp on the machine's monotonic clock, so one run's marks line
 * up across them. After each run, one persisted message's round trip: a Resume of the
 * finished run before, which its entity answers at once (no run, no store read). Prints the median
 * of each part of both, the overhead against that round trip, the run's store calls in
 * process and on the runner side by side, and one run's whole timeline (TIMELINE_DUMP=1). Opt-in, for
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
import pg from "pg"
import { startPostgres } from "../../packages/store/test/support/postgres.js"
import agents from "./cluster-agents.js"
import { startRunner, stopRunners } from "./cluster-procs.js"
import { type Mark, nowMicros, recorder, stampedPool, tracedCluster } from "./cluster-trace.js"

const runs = Number(process.argv[2] ?? 60)
// TIMELINE_FLUSH=1: the runner's replies and read marks wait for the WAL flush (its
// `repliesWaitForFlush`), for an A/B against the shipped default in one sitting.
// TIMELINE_SHARDS=n: shards per group on the runner and this client (default the shipped 300).
const shardsPerGroup = process.env["TIMELINE_SHARDS"] === undefined ? Settings.defaults.shardsPerGroup : Number(process.env["TIMELINE_SHARDS"])
const runnerSettings = `${process.env["TIMELINE_FLUSH"] === "1" ? "repliesWaitForFlush: true" : "shipped (repliesWaitForFlush: false)"}, shardsPerGroup ${shardsPerGroup}`
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN
const entry = fileURLToPath(new URL("./cluster-timeline-runner.ts", import.meta.url))
const out = join(tmpdir(), `hookline-timeline-${process.pid}.jsonl`)

const server = await startPostgres()
const database = server.connectionString
const rec = recorder("client")
// The in-process runs' statements, recorded as the runner's are (bench/src/cluster-trace.ts).
const inRec = recorder("inproc")
// The same run in this process, one at a time, on a PostgresStore with the runner's lease;
// its runs alternate with the cluster's, so both meet the same load.
const inProcess = async () => {
  const pool = stampedPool(new pg.Pool({ connectionString: database, max: 10 }), inRec)
  pool.on("error", () => undefined)
  const store = await PostgresStore.open({ pool })
  const registered = await Effect.runPromise(ClusterAgent.register(agents, store, { lease: Settings.leaseMillis(Settings.defaults) }))
  const agent = registered.get("charger")!.agent
  return {
    one: async (runId: string) => {
      const t0 = nowMicros()
      await agent.run(AgentState.make({ id: runId, messages: [Message.user("charge me")] }))
      return (nowMicros() - t0) / 1_000
    },
    close: async () => {
      await RunStore.close(store)
      await pool.end()
    },
  }
}
// One run's store calls between its lease taken and released (its end: the release, or
// the last checkpoint and the release in one statement), with the gaps between them
// (JavaScript and waiting for the event loop).
const ends = new Set(["store.releaseLease", "store.commitAndRelease"])
const runCalls = (all: ReadonlyArray<Mark>, runId: string) => {
  const own = all.filter((m) => m.detail === runId && m.name.startsWith("store.")).sort((a, b) => a.start - b.start)
  const from = own.findIndex((m) => m.name === "store.takeLease")
  const to = own.findLastIndex((m) => ends.has(m.name))
  return from < 0 || to < from ? [] : own.slice(from, to + 1)
}
const shape = (calls: ReadonlyArray<Mark>) => {
  const busy = calls.reduce((sum, m) => sum + (m.end - m.start), 0) / 1_000
  const span = calls.length === 0 ? 0 : (calls[calls.length - 1]!.end - calls[0]!.start) / 1_000
  return { span, busy, gaps: span - busy, count: calls.length }
}
const perCall = (sets: ReadonlyArray<ReadonlyArray<Mark>>) => {
  const by = new Map<string, Array<number>>()
  for (const calls of sets) for (const m of calls) by.set(m.name, [...(by.get(m.name) ?? []), (m.end - m.start) / 1_000])
  return by
}
try {
  const local = await inProcess()
  const took: Array<number> = []
  const runner = await startRunner(database, [], { TIMELINE_OUT: out }, [], entry)
  const runtime = ManagedRuntime.make(
    Client.layer().pipe(Layer.provide(tracedCluster(rec, database, { clientOnly: true, shardsPerGroup })), Layer.provideMerge(rec.layer)),
  )
  const windows: Array<{ runId: string; t0: number; t1: number; t2: number }> = []
  // One persisted message's round trip before each run: a Resume of a finished run, which
  // its entity answers from what it holds (no run, no store read): stored, read back by
  // the runner, answered, its reply stored and sent back (docs/decisions.md, "One persisted
  // message round trip, measured").
  const trips: Array<{ runId: string; t0: number; t1: number }> = []
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
    const trip = async (runId: string) => {
      const t0 = nowMicros()
      await runtime.runPromise(client.resume(runId, []))
      return { runId, t0, t1: nowMicros() }
    }
    // The round trip goes to the run before (its entity still resident, its Start's reply
    // long stored): right after a run it would wait behind that run's Start reply on the
    // same entity (its lock check and transaction), which is the run's, not the message's.
    for (let i = 0; i < 20; i++) {
      await local.one(`inwarm-${i}`)
      if (i > 0) await trip(`tlwarm-${i - 1}`)
      await one(`tlwarm-${i}`)
    }
    await sleep(1_000)
    for (let i = 0; i < runs; i++) {
      took.push(await local.one(`inproc-${i}`))
      trips.push(await trip(i === 0 ? "tlwarm-19" : `tl-${i - 1}`))
      windows.push(await one(`tl-${i}`))
    }
  } finally {
    await runtime.dispose()
    await stopRunners([runner])
    await local.close()
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
    const released = xs.findLast((m) => m.who === "runner" && ends.has(m.name))
    if (!saved || !read || !handler || !result || !lease || !released) return []
    const ms = (a: number, b: number) => (b - a) / 1_000
    return [{
      "client: Start's row stored (saveRequest)": ms(saved.start, saved.end),
      "client: rest of start (Notify to the runner and its answer)": ms(saved.end, w.t1),
      "runner: Notify until its read of new messages begins": ms(saved.end, read.start),
      "runner: read of new messages (unprocessedMessages)": ms(read.start, read.end),
      "runner: read's end until the Start handler begins": ms(read.end, handler.start),
      "runner: Start handler until the run's lease (its read of the run, or the waiting Result's)": ms(handler.start, lease.start),
      "runner: the run (lease taken until released)": ms(lease.start, released.end),
      "runner: run's end until its Result answers": ms(released.end, result.end),
      "client: the Result's answer on its way back": ms(result.end, w.t2),
      "client: start answered until the runner has the Result": ms(w.t1, result.start),
      "whole: start until result": ms(w.t0, w.t2),
    }]
  })
  // The round trip's parts, from the same marks.
  const tripParts = trips.flatMap((w) => {
    const xs = marks.filter((m) => m.start >= w.t0 && m.start <= w.t1).sort((a, b) => a.start - b.start)
    const saved = first(xs, "client", "storage.saveRequest")
    const read = saved && first(xs, "runner", "storage.unprocessedMessages", saved.end)
    const handler = first(xs, "runner", "HooklineRun.Resume")
    // The runner's wait for the request's reply (effect/cluster registers it as the request
    // comes over the socket): it ends once the reply is stored.
    const replied = first(xs, "runner", "storage.registerReplyHandler")
    if (!saved || !read || !handler || !replied) return []
    const ms = (a: number, b: number) => (b - a) / 1_000
    return [{
      "client: the Resume's row stored (saveRequest)": ms(saved.start, saved.end),
      "runner: row stored until its read of new messages begins": ms(saved.end, read.start),
      "runner: read of new messages (unprocessedMessages)": ms(read.start, read.end),
      "runner: read's end until the Resume handler begins": ms(read.end, handler.start),
      "runner: handler begins until its reply is stored (the handler, effect/cluster's lock check, the reply's transaction)": ms(handler.start, replied.end),
      "reply stored until the client has it": ms(replied.end, w.t1),
      "whole: one persisted message round trip": ms(w.t0, w.t1),
      "store calls on the runner in the round trip": xs.filter((m) => m.who === "runner" && m.name.startsWith("store.")).length,
    }]
  })
  console.log(`the same run in process, one at a time (alternating with the cluster's): ${median(took).toFixed(2)} ms median`)
  console.log(`${parts.length} of ${windows.length} runs through the cluster with every mark; medians, ms:`)
  for (const key of Object.keys(parts[0] ?? {})) console.log(`${median(parts.map((p) => (p as Record<string, number>)[key]!)).toFixed(2).padStart(8)}  ${key}`)
  const wholes = parts.map((p) => p["whole: start until result"])
  const overhead = median(wholes) - median(took)
  console.log(`overhead (whole less the same run in process): ${overhead.toFixed(2)} ms; runner: ${runnerSettings}`)
  console.log(`${tripParts.length} of ${trips.length} persisted message round trips (a Resume of the run before, before each run) with every mark; medians, ms:`)
  for (const key of Object.keys(tripParts[0] ?? {})) console.log(`${median(tripParts.map((p) => (p as Record<string, number>)[key]!)).toFixed(2).padStart(8)}  ${key}`)
  const trip = median(trips.map((w) => (w.t1 - w.t0) / 1_000))
  const sent = median(parts.map((p) => p["client: Start's row stored (saveRequest)"] + p["client: rest of start (Notify to the runner and its answer)"]))
  console.log(
    `target: overhead ${overhead.toFixed(2)} ms against one persisted message round trip ${trip.toFixed(2)} ms (${overhead <= trip ? "met" : "missed"} in this reading); ` +
      `against the Start sent (row stored and Notify answered, no reply) ${sent.toFixed(2)} ms`,
  )
  // effect/cluster's reads of new messages on the runner (all of them, the runs' windows or
  // not). Its replies are not seen here: a message replies through the storage service it
  // was decoded by (effect/cluster's own, inside the wrapper).
  for (const name of ["storage.unprocessedMessages"]) {
    const xs = marks.filter((m) => m.who === "runner" && m.name === name).map((m) => (m.end - m.start) / 1_000)
    console.log(`  runner ${name}: ${xs.length} calls, ${median(xs).toFixed(2)} ms median`)
  }
  // The run itself, call by call, in process and on the runner.
  const inprocSets = Array.from({ length: runs }, (_, i) => runCalls(inRec.marks, `inproc-${i}`)).filter((c) => c.length > 0)
  const runnerSets = windows.map((w) => runCalls(marks.filter((m) => m.who === "runner"), w.runId)).filter((c) => c.length > 0)
  const shapes = (sets: ReadonlyArray<ReadonlyArray<Mark>>) => {
    const xs = sets.map(shape)
    return { span: median(xs.map((x) => x.span)), busy: median(xs.map((x) => x.busy)), gaps: median(xs.map((x) => x.gaps)), count: median(xs.map((x) => x.count)) }
  }
  const a = shapes(inprocSets)
  const b = shapes(runnerSets)
  console.log(`the run itself (its lease taken until released), medians of ${inprocSets.length} in process / ${runnerSets.length} on the runner, ms:`)
  console.log(`  span ${a.span.toFixed(2)} / ${b.span.toFixed(2)}; in store calls ${a.busy.toFixed(2)} / ${b.busy.toFixed(2)}; between them ${a.gaps.toFixed(2)} / ${b.gaps.toFixed(2)}; calls ${a.count} / ${b.count}`)
  const pa = perCall(inprocSets)
  const pb = perCall(runnerSets)
  for (const name of new Set([...pa.keys(), ...pb.keys()])) {
    const x = pa.get(name) ?? []
    const y = pb.get(name) ?? []
    console.log(`  ${name.padEnd(24)} ${(x.length / Math.max(1, inprocSets.length)).toFixed(2)} / ${(y.length / Math.max(1, runnerSets.length)).toFixed(2)} a run, ${median(x).toFixed(2)} / ${median(y).toFixed(2)} ms median`)
  }
  // What else the runner did while a run ran: its marks that are not the run's own calls.
  const beside = new Map<string, number>()
  for (const calls of runnerSets) {
    const from = calls[0]!.start
    const to = calls[calls.length - 1]!.end
    const own = new Set(calls)
    for (const m of marks) {
      if (m.who !== "runner" || own.has(m) || m.end < from || m.start > to) continue
      if (m.start < from && m.end > to) continue // a span around the run (its handler, the waiting Result)
      beside.set(m.name, (beside.get(m.name) ?? 0) + 1)
    }
  }
  console.log(`  the runner's other marks overlapping a run, a run: ${[...beside].sort((p, q) => q[1] - p[1]).map(([n, c]) => `${n} ${(c / runnerSets.length).toFixed(2)}`).join(", ") || "none"}`)
  if (process.env["TIMELINE_DUMP"] === "1") {
    const dump = (title: string, t0: number, t1: number) => {
      console.log(title)
      for (const m of marks.filter((m) => m.start >= t0 && m.start <= t1).sort((a, b) => a.start - b.start)) {
        console.log(`${((m.start - t0) / 1000).toFixed(2).padStart(7)} ${((m.end - t0) / 1000).toFixed(2).padStart(7)}  ${m.who.padEnd(6)} ${m.name.slice(0, 50).padEnd(50)} ${m.detail ?? ""}`)
      }
    }
    const w = [...windows].sort((a, b) => (a.t2 - a.t0) - (b.t2 - b.t0))[Math.floor(windows.length / 2)]!
    dump(`the median run, ${w.runId}:`, w.t0, w.t2)
    const r = [...trips].sort((a, b) => (a.t1 - a.t0) - (b.t1 - b.t0))[Math.floor(trips.length / 2)]!
    dump(`the median round trip, a Resume of ${r.runId}:`, r.t0, r.t1)
  }
} finally {
  await server.stop()
}
