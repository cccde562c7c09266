/**
 * A timeline of PostgresStore's step (issue 27): where a durable run's time goes between
 * the driver's round trips. The durable compare's hookline agent (UserPath, K = 0, S = 5
 * steps, H = 10, `UseCheckpoints(PostgresStore)`) runs on an embedded PostgreSQL (fsync
 * on), and every run is stamped (`process.hrtime`) at:
 *
 * - `query <name>`: the store's call of its pool's `query`;
 * - `acquire`, `release`: the pool's hand-out and return of a connection;
 * - `send <name>`: pg's `Client.query` called (the statement is written to the socket in it
 *   when the connection is idle), `sent`: it returned; `data`: the socket's bytes arriving (before pg parses them);
 *   `answer <name>`: the query's callback (pg parsed the answer);
 * - `model`, `tool`: the fake model's and tool's calls; `hook <Trigger>`: observers at the
 *   first and the last priority of each trigger.
 *
 *   node --conditions=@hookline/source --import tsx bench/src/store-pg-trace.ts [runs] [warmup]
 *
 * TRACE_FLUSH=off opens the store with `waitForFlush: false`. Four cases, alternated run
 * by run in one process (one sitting, the same load): the agent on the store; the same
 * agent on a byte-counting spread copy of the same store (bench/src/store.ts's `counted`
 * as the durable compare ran it until branch durbench: a spread copy has none of the
 * store's fast paths, its ending among them); the same agent without a store (the engine's gaps with no wait before them);
 * and the raw loop: the statements of one run sent again through one held `pg.Client`
 * (no store, no Effect, no pool, no agent), stamped alike. Prints, over the steady window
 * (the second model call to the run's end, the durable compare's; for the raw loop, the
 * same count of statements at its end), medians per run of: the window, the time with a
 * statement on the wire (its send to its answer's bytes), and every gap with none on the
 * wire, named by the events around it (per step, per occurrence); then the median run's
 * window as a timeline (TRACE_WHOLE=1: the whole run).
 *
 * `globalThis.__stamp(what)` is the same stamp, for a scratch edit of the source under
 * study (no shipped code calls it).
 */
import { AgentState, HookTrigger, HookTriggers, Message } from "@hookline/core"
import { UseHook } from "@hookline/agent"
import { PostgresStore, RunStore, UseCheckpoints } from "@hookline/store"
import { Effect } from "effect"
import os from "node:os"
import pg from "pg"
import { history, responses, stepOf } from "./loop.js"
import * as UserPath from "./UserPath.js"
// The store tests' server starter: one way to start PostgreSQL in this repository.
import { startPostgres } from "../../packages/store/test/support/postgres.js"

const S = 5
const H = 10
const [runs = 200, warmup = 30] = process.argv.slice(2).map(Number)
const flushed = process.env["TRACE_FLUSH"] !== "off"
const spin = Number(process.env["TRACE_RAW_SPIN"] ?? 0)

type Stamp = readonly [at: bigint, what: string]
let trace: Array<Stamp> | undefined
const stamp = (what: string): void => {
  trace?.push([process.hrtime.bigint(), what])
}
// Scratch stamps a source under study may call (none in the shipped source).
;(globalThis as { __stamp?: (what: string) => void }).__stamp = stamp
// A statement's short name: its prepared name, or its text's first words.
const nameOf = (config: unknown): string => {
  if (typeof config === "string") return config.replace(/\s+/g, " ").slice(0, 24)
  const c = config as { name?: string; text?: string }
  return c.name ?? (c.text ?? "?").replace(/\s+/g, " ").slice(0, 24)
}
// The statements one run sent, for the raw loop.
let sent: Array<{ readonly config: unknown; readonly values: unknown }> | undefined
let recorded: typeof sent

// pg's Client: the send, the socket's bytes, the parsed answer.
const ClientProto = pg.Client.prototype as unknown as Record<string, (...args: Array<unknown>) => unknown> & { connection?: unknown }
const clientQuery = ClientProto["query"]!
const watched = new WeakSet<object>()
ClientProto["query"] = function(this: { connection: { stream: NodeJS.EventEmitter } }, ...args: Array<unknown>) {
  const stream = this.connection?.stream
  if (stream !== undefined && !watched.has(stream)) {
    watched.add(stream)
    stream.prependListener("data", () => stamp("data"))
  }
  const name = nameOf(args[0])
  sent?.push({ config: args[0], values: typeof args[1] === "function" ? undefined : args[1] })
  const last = args.length - 1
  if (typeof args[last] === "function") {
    const cb = args[last] as (...a: Array<unknown>) => unknown
    args[last] = (...a: Array<unknown>) => {
      stamp(`answer ${name}`)
      return cb(...a)
    }
    stamp(`send ${name}`)
    const out = clientQuery.apply(this, args)
    stamp("sent")
    return out
  }
  stamp(`send ${name}`)
  const out = clientQuery.apply(this, args) as Promise<unknown>
  stamp("sent")
  return out.then((r) => {
    stamp(`answer ${name}`)
    return r
  })
}
// pg-pool's Pool (pg.Pool's parent class): the store's call, the hand-out, the return.
const PoolProto = Object.getPrototypeOf(pg.Pool.prototype) as Record<string, (...args: Array<unknown>) => unknown>
for (const [method, what] of [["query", "query"], ["_acquireClient", "acquire"], ["_release", "release"]] as const) {
  const original = PoolProto[method]!
  PoolProto[method] = function(this: unknown, ...args: Array<unknown>) {
    stamp(method === "query" ? `query ${nameOf(args[0])}` : what)
    return original.apply(this, args)
  }
}

// The durable compare's byte-counting wrapper as it was (bench/src/store.ts's `counted`
// at main a54d72e): a spread copy of the store with its writes wrapped. Kept here as it
// was, so this trace does not follow that bench's fix.
const spreadCopy = (inner: RunStore.RunStore): RunStore.RunStore => {
  let bytes = 0
  return Object.freeze({
    ...inner,
    commit: (commit: RunStore.Commit) => ((bytes += Buffer.byteLength(commit.body)), inner.commit(commit)),
    create: (commit: RunStore.Commit, replace: boolean) => ((bytes += Buffer.byteLength(commit.body)), inner.create(commit, replace)),
    journalPut: (runId: string, key: string, body: string) => ((bytes += Buffer.byteLength(body)), inner.journalPut(runId, key, body)),
  })
}

const triggers = [
  HookTrigger.BeforeExecution,
  HookTrigger.BeforeStep,
  HookTrigger.BeforeInference,
  HookTrigger.AfterInference,
  HookTrigger.BeforeToolUse,
  HookTrigger.AfterToolUse,
  HookTrigger.AfterStep,
  HookTrigger.OnStop,
  HookTrigger.AfterExecution,
]
const observers = triggers.flatMap((trigger) => [
  UseHook((ctx) => (stamp(`hook ${trigger}<`), ctx), { triggers: HookTriggers.of(trigger), priority: 2_000_000_000, name: `trace:${trigger}:first` }),
  UseHook((ctx) => (stamp(`hook ${trigger}>`), ctx), { triggers: HookTriggers.of(trigger), priority: -2_000_000_000, name: `trace:${trigger}:last` }),
])

const server = await startPostgres()
try {
  const inner = await PostgresStore.open({ connectionString: server.connectionString, waitForFlush: flushed })
  const seed = [...history(H), Message.user("go")]
  const agentOn = (store: RunStore.RunStore | undefined) =>
    UserPath.agent({
      script: responses(S),
      stepOf: (messages) => stepOf(messages, seed.length),
      K: 0,
      observer: () => (ctx) => ctx,
      onModel: () => stamp("model"),
      onTool: () => stamp("tool"),
      capabilities: store === undefined ? observers : [...observers, UseCheckpoints(store)],
    })
  const plain = agentOn(inner)
  // The durable compare's byte-counting wrapper: a spread copy, so not the store the
  // ending (internal/ending.ts) is registered for.
  const wrapped = agentOn(spreadCopy(inner))
  // The same agent without a store: the engine's gaps with no wait for the database.
  const storeless = agentOn(undefined)
  let serial = 0
  const runOnce = async (agent = plain): Promise<ReadonlyArray<Stamp>> => {
    const input = AgentState.make({ id: `trace-${serial++}`, messages: seed })
    trace = []
    stamp("run")
    const final = await agent.run(input)
    stamp("end")
    const got = trace
    trace = undefined
    recorded = sent
    sent = undefined
    if (final.execution.status !== "completed" || final.execution.steps.length !== S) throw new Error(`the run ended ${final.execution.status}`)
    if (agent !== storeless) await Effect.runPromise(inner.remove(input.id))
    await new Promise<void>((resolve) => setImmediate(resolve))
    return got
  }
  for (let i = 0; i < warmup; i++) await runOnce(), await runOnce(wrapped), await runOnce(storeless)
  sent = []
  const recordedId = `trace-${serial}`
  await runOnce()
  const statements = recorded ?? []
  if (!statements.some((s) => JSON.stringify((s.config as { values?: unknown }).values ?? s.values ?? []).includes(recordedId))) throw new Error("the recorded statements do not name the recorded run")

  // The raw loop: the same statements (the run id swapped) through one held client.
  const driver = new pg.Client({ connectionString: server.connectionString, ...(flushed ? {} : { options: "-c synchronous_commit=off" }) })
  driver.on("error", () => undefined)
  await driver.connect()
  const rawOnce = async (): Promise<ReadonlyArray<Stamp>> => {
    const from = recordedId
    const to = `raw-${serial++}`
    const swap = (v: unknown): unknown => (typeof v === "string" ? v.replaceAll(from, to) : v)
    trace = []
    stamp("run")
    for (const s of statements) {
      // TRACE_RAW_SPIN: the CPU's work between two statements, spun (as the agent's is done).
      if (spin > 0) for (const until = process.hrtime.bigint() + BigInt(spin * 1000); process.hrtime.bigint() < until;);
      const c = s.config as { name?: string; text: string; values?: ReadonlyArray<unknown> } | string
      await (typeof c === "string"
        ? driver.query(c, (s.values as ReadonlyArray<unknown> | undefined)?.map(swap))
        : driver.query({ ...(c.name === undefined ? {} : { name: c.name }), text: c.text, values: (c.values ?? []).map(swap) }))
    }
    stamp("end")
    const got = trace
    trace = undefined
    await Effect.runPromise(inner.remove(to))
    await new Promise<void>((resolve) => setImmediate(resolve))
    return got
  }
  for (let i = 0; i < warmup; i++) await rawOnce()

  // Alternated: a run of the agent, a replay of its statements.
  const agentRuns: Array<ReadonlyArray<Stamp>> = []
  const wrappedRuns: Array<ReadonlyArray<Stamp>> = []
  const rawRuns: Array<ReadonlyArray<Stamp>> = []
  const storelessRuns: Array<ReadonlyArray<Stamp>> = []
  for (let i = 0; i < runs; i++) {
    storelessRuns.push(await runOnce(storeless))
    agentRuns.push(await runOnce())
    wrappedRuns.push(await runOnce(wrapped))
    rawRuns.push(await rawOnce())
  }

  const median = (xs: ReadonlyArray<number>): number => xs.length === 0 ? Number.NaN : [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number
  const us = (a: bigint, b: bigint): number => Number(b - a) / 1000
  const label = (what: string): string => what.replace(/^(send|answer|query) .*/, "$1")
  // The steady window of an agent run (second model call to the end), or the raw loop's
  // statements from the same one on (the same count of statements as the window holds).
  interface Split {
    readonly window: number
    readonly wire: number
    readonly statements: number
    readonly gaps: Map<string, Array<number>>
  }
  const split = (t: ReadonlyArray<Stamp>, from: number): Split => {
    const end = t.length - 1
    const window = us(t[from]![0], t[end]![0])
    let wire = 0
    let statements = 0
    // A statement sent before the window and not answered yet is on the wire from its start.
    let onWire: bigint | undefined
    let name = ""
    for (let i = 0; i < from; i++) {
      const what = t[i]![1]
      if (what.startsWith("send ")) (onWire = t[from]![0]), (name = what.slice(5))
      if (what === "data") onWire = undefined
    }
    const gaps = new Map<string, Array<number>>()
    for (let i = from; i < end; i++) {
      const [at, what] = t[i]!
      if (what.startsWith("send ")) {
        statements++
        onWire ??= at
        name = what.slice(5)
      }
      if (what === "data" && onWire !== undefined) {
        wire += us(onWire, at)
        const list = gaps.get(`wire ${name}`) ?? []
        list.push(us(onWire, at))
        gaps.set(`wire ${name}`, list)
        onWire = undefined
      }
      if (onWire !== undefined) {
        // On the wire: only a send's next event, named apart (the yield after a checkpoint's send).
        if (what.startsWith("send ")) {
          const next = t[i + 1]!
          const key = `(on the wire) ${what} → ${label(next[1])}`
          const list = gaps.get(key) ?? []
          list.push(us(at, next[0]))
          gaps.set(key, list)
        }
        continue
      }
      const next = t[i + 1]!
      const key = `${label(what)} → ${label(next[1])}`
      const list = gaps.get(key) ?? []
      list.push(us(at, next[0]))
      gaps.set(key, list)
    }
    return { window, wire, statements, gaps }
  }
  const secondModel = (t: ReadonlyArray<Stamp>): number => t.findIndex((s, i) => s[1] === "model" && t.slice(0, i).some((p) => p[1] === "model"))
  const agentSplits = agentRuns.map((t) => split(t, secondModel(t)))
  const windowStatements = median(agentSplits.map((s) => s.statements))
  const rawSplits = rawRuns.map((t) => {
    const sends = t.map((s, i) => [s, i] as const).filter(([s]) => s[1].startsWith("send "))
    const from = sends[sends.length - windowStatements]![1]
    return split(t, from)
  })

  const report = (title: string, splits: ReadonlyArray<Split>, steps: number) => {
    process.stdout.write(`\n${title}: ${splits.length} runs, ${median(splits.map((s) => s.statements))} statements in the window\n`)
    process.stdout.write(`  window ${(median(splits.map((s) => s.window)) / steps).toFixed(1)} µs/step, on the wire ${(median(splits.map((s) => s.wire)) / steps).toFixed(1)} µs/step, ` +
      `off it ${(median(splits.map((s) => s.window - s.wire)) / steps).toFixed(1)} µs/step (medians of runs)\n`)
    const keys = new Set(splits.flatMap((s) => [...s.gaps.keys()]))
    const rows = [...keys].map((key) => {
      const perRun = splits.map((s) => (s.gaps.get(key) ?? []).reduce((a, b) => a + b, 0))
      const each = splits.flatMap((s) => s.gaps.get(key) ?? [])
      return { key, perRun: median(perRun), count: each.length / splits.length, each: median(each) }
    }).sort((a, b) => b.perRun - a.perRun)
    for (const r of rows.slice(0, 40)) {
      process.stdout.write(`  ${r.key.padEnd(44)} ${(r.perRun / steps).toFixed(1).padStart(7)} µs/step  (${r.count.toFixed(1)} a run, ${r.each.toFixed(1)} µs each)\n`)
    }
  }
  process.stdout.write(`PostgresStore, ${flushed ? "waits for the flush (default)" : "waitForFlush: false"}; S = ${S}, H = ${H}; load ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}\n`)
  process.stdout.write(`one run's statements: ${statements.map((s) => nameOf(s.config)).join(", ")}\n`)
  report("agent, steady window (second model call to the end)", agentSplits, S - 1)
  report("agent on a spread copy of the store (the durable compare's counting wrapper until branch durbench)", wrappedRuns.map((t) => split(t, secondModel(t))), S - 1)
  report("the same agent without a store (no wait: the engine's gaps warm)", storelessRuns.map((t) => split(t, secondModel(t))), S - 1)
  report("raw loop, the same count of statements (one held pg.Client)", rawSplits, S - 1)
  // One median run's window, as a timeline.
  const sorted = agentRuns.map((t, i) => [agentSplits[i]!.window, t] as const).sort((a, b) => a[0] - b[0])
  const [, mid] = sorted[Math.floor(sorted.length / 2)]!
  const from = process.env["TRACE_WHOLE"] === "1" ? 0 : secondModel(mid)
  process.stdout.write(`\nthe median run's window (TRACE_WHOLE=1: the whole run):\n`)
  for (let i = from; i < mid.length; i++) process.stdout.write(`  ${us(mid[from]![0], mid[i]![0]).toFixed(1).padStart(8)} µs  +${(i === from ? 0 : us(mid[i - 1]![0], mid[i]![0])).toFixed(1).padStart(7)}  ${mid[i]![1]}\n`)
  await driver.end()
  await RunStore.close(inner)
} catch (e) {
  console.error(e)
  process.exitCode = 1
} finally {
  await server.stop()
}
