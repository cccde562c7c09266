// A durable step on the SQL stores waits for the database twice, in one statement each:
// the model's answer (a journal insert) before its tools run, then the step's checkpoint
// (the head moved and the row inserted in one statement, its own transaction). No
// BEGIN/COMMIT pair around a step's writes, no lease query on the step's path.
import { AgentBuilder, Tool, UseDriver, UseHook, UseTools } from "@hookline/agent"
import { AgentState, HookContext, HookTriggers, Message } from "@hookline/core"
import { ScriptedDriver } from "@hookline/testing"
import { Effect } from "effect"
import * as t from "io-ts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { MemoryStore, RunStore, StoreError, UseCheckpoints } from "../src/index.js"
import * as Ending from "../src/internal/ending.js"
import * as Sql from "../src/internal/sql.js"

interface PgliteLike {
  readonly query: (text: string, params?: Array<unknown>) => Promise<{ rows: Array<Record<string, unknown>>; affectedRows?: number }>
  readonly transaction: <A>(f: (tx: PgliteLike) => Promise<A>) => Promise<A>
  readonly close: () => Promise<void>
}

// What went to the database, in order: one entry per round trip ("begin" and "commit"
// around a transaction's statements).
const log: Array<string> = []
let counting = false

const kindOf = (text: string): string => {
  if (/INSERT INTO hookline_checkpoints/.test(text) && /hookline_leases/.test(text)) return "checkpoint and lease"
  if (/INSERT INTO hookline_journal/.test(text)) return "journal"
  if (/INSERT INTO hookline_checkpoints/.test(text)) return "checkpoint"
  if (/hookline_leases/.test(text)) return "lease"
  return text.trim().split(/\s+/).slice(0, 3).join(" ")
}

const counted = (db: PgliteLike): Sql.SqlClient => ({
  query: async (text, params) => {
    if (counting) log.push(kindOf(text))
    const result = await db.query(text, params === undefined ? undefined : [...params])
    return { rows: result.rows, affected: result.affectedRows ?? 0 }
  },
  transaction: (f) =>
    db.transaction(async (tx) => {
      if (counting) log.push("begin")
      const out = await f(counted(tx))
      if (counting) log.push("commit")
      return out
    }),
})

let db: PgliteLike
let store: RunStore.RunStore

beforeAll(async () => {
  const { PGlite } = await import("@electric-sql/pglite")
  db = (await PGlite.create()) as unknown as PgliteLike
  await Sql.migrate(counted(db))
  store = Sql.make("pglite", counted(db), () => db.close())
}, 120_000)

afterAll(async () => {
  await RunStore.close(store)
})

describe("the SQL store's round trips", () => {
  it("writes a tool step in two statements, each its own commit: the model's answer, then the checkpoint; ends a run in one", async () => {
    const echo = Tool.make({ name: "echo", parameters: t.type({ n: t.number }), execute: ({ n }) => n })
    const steps = [0, 1, 2].map((n) => ScriptedDriver.toolCalls([{ id: `c${n}`, name: "echo", arguments: { n } }]))
    const agent = AgentBuilder.make(UseDriver(ScriptedDriver.make([...steps, ScriptedDriver.text("done")])), UseTools([echo]), UseCheckpoints(store))
    log.length = 0
    counting = true
    const final = await agent.run(AgentState.make({ id: "round-trips", messages: [Message.user("go")] })).finally(() => {
      counting = false
    })
    expect(final.execution.status).toBe("completed")
    expect(log).toEqual([
      "lease", // the run's lease, taken
      "checkpoint", // the run's first checkpoint, inserted only if the id is new
      ...[0, 1, 2].flatMap(() => ["journal", "checkpoint"]),
      // The final answer's step (it ran no tool and stops the run), the run's end and the
      // lease's release: one statement.
      "checkpoint and lease",
    ])
    expect((await RunStore.load(store, "round-trips"))?.state.context.messages.length).toBe(final.context.messages.length)
  }, 120_000)

  it("refuses a checkpoint from a stale head in its one statement, naming the head it found", async () => {
    const state = AgentState.make({ id: "stale-head", messages: [Message.user("one")] })
    const first = await RunStore.save(store, state)
    const next = AgentState.appendMessage(state, Message.user("two"))
    await RunStore.save(store, next, first)
    const error = await RunStore.save(store, AgentState.appendMessage(state, Message.user("other")), first).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(StoreError.CheckpointConflict)
    expect(error).toMatchObject({ runId: "stale-head", expected: 1, actual: 2 })
    const loaded = await RunStore.load(store, "stale-head")
    expect(loaded?.seq).toBe(2)
    expect(loaded?.state.context.messages.toArray().map((m) => m.content)).toEqual(["one", "two"])
  }, 120_000)

  it("refuses a new run of a stored id in its one statement, writing nothing", async () => {
    const state = AgentState.make({ id: "exists-once", messages: [Message.user("first")] })
    await RunStore.save(store, state)
    const error = await RunStore.save(store, AgentState.make({ id: "exists-once", messages: [Message.user("second")] })).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(StoreError.RunExists)
    const loaded = await RunStore.load(store, "exists-once")
    expect(loaded?.seq).toBe(1)
    expect(loaded?.state.context.messages.toArray().map((m) => m.content)).toEqual(["first"])
  }, 120_000)

  it("ends a run in one statement: the checkpoint from the head it names and the release of the owner's lease, the release on a conflict too", async () => {
    const ends = Ending.of(store)!
    const state = AgentState.make({ id: "ending", messages: [Message.user("one")] })
    const first = await RunStore.save(store, state)
    const lease = (owner: string) => Effect.runPromise(store.takeLease({ runId: "ending", owner, expiresAt: 1e15 }, 0))
    const free = () => Effect.runPromise(Effect.result(store.takeLease({ runId: "ending", owner: "probe", expiresAt: 1 }, 0)))
    const commitOf = (text: string, seq: number) => {
      const planned = RunStore.nextSave(AgentState.appendMessage(state, Message.user(text)), first, 5)
      const ready = planned._tag === "Success" ? planned.success : undefined
      return { ...ready!.commit, seq }
    }
    // Another owner's lease stays; the checkpoint is written.
    await lease("other")
    await Effect.runPromise(ends.commitAndRelease(commitOf("two", 2), "me"))
    expect((await free())._tag).toBe("Failure")
    expect((await RunStore.load(store, "ending"))?.seq).toBe(2)
    await Effect.runPromise(store.releaseLease("ending"))
    // From a stale head: refused, naming the head; nothing written; the owner's lease released all the same.
    await lease("me")
    const error = await Effect.runPromise(ends.commitAndRelease(commitOf("stale", 2), "me")).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(StoreError.CheckpointConflict)
    expect(error).toMatchObject({ runId: "ending", expected: 1, actual: 2 })
    expect((await free())._tag).toBe("Success")
    const loaded = await RunStore.load(store, "ending")
    expect(loaded?.state.context.messages.toArray().map((m) => m.content)).toEqual(["one", "two"])
  }, 120_000)

  it("writes a held final answer's step before anything else when an OnStop hook goes on, and loads back the run", async () => {
    const echo = Tool.make({ name: "echo", parameters: t.type({ n: t.number }), execute: ({ n }) => n })
    let asked = 0
    const goOn = UseHook((ctx) => (asked++ === 0 ? HookContext.requestContinuation(ctx, "more") : ctx), { triggers: HookTriggers.of("OnStop"), name: "test:go_on" })
    const model = ScriptedDriver.make([ScriptedDriver.text("first"), ScriptedDriver.toolCalls([{ id: "c0", name: "echo", arguments: { n: 0 } }]), ScriptedDriver.text("done")])
    const agent = AgentBuilder.make(UseDriver(model), UseTools([echo]), goOn, UseCheckpoints(store))
    log.length = 0
    counting = true
    const final = await agent.run(AgentState.make({ id: "held-then-on", messages: [Message.user("go")] })).finally(() => {
      counting = false
    })
    expect(final.execution.status).toBe("completed")
    expect(log).toEqual([
      "lease",
      "checkpoint", // the run's first checkpoint
      "checkpoint", // the held answer's step, written before the next answer is journaled
      "journal",
      "checkpoint",
      "checkpoint and lease",
    ])
    const loaded = await RunStore.load(store, "held-then-on")
    expect(loaded?.state.context.messages.toArray()).toEqual(final.context.messages.toArray())
    expect(loaded?.state.execution.steps.length).toBe(3)
  }, 120_000)

  it("writes a held step's checkpoint apart when the run's last one is refused, storing what MemoryStore stores", async () => {
    const spoil = UseHook((ctx) => HookContext.withState(ctx, { ...ctx.state, metadata: Object.freeze({ bad: () => 1 }) } as unknown as AgentState), {
      triggers: HookTriggers.of("AfterExecution"),
      name: "test:spoil",
    })
    const stored = async (on: RunStore.RunStore, runId: string) => {
      const agent = AgentBuilder.make(UseDriver(ScriptedDriver.make([ScriptedDriver.text("answer")])), spoil, UseCheckpoints(on))
      const final = await agent.run(AgentState.make({ id: runId, messages: [Message.user("go")] }))
      const loaded = await RunStore.load(on, runId)
      return { errors: final.execution.errors.map((e) => e._tag), steps: loaded?.state.execution.steps.length, status: loaded?.state.execution.status }
    }
    const onSql = await stored(store, "held-refused")
    expect(onSql).toEqual(await stored(MemoryStore.make(), "held-refused"))
    expect(onSql.steps).toBe(1)
    // The lease went back all the same.
    expect((await Effect.runPromise(Effect.result(store.takeLease({ runId: "held-refused", owner: "probe", expiresAt: 1 }, 0))))._tag).toBe("Success")
  }, 120_000)

  it("answers a run's head and one journal entry in one statement, stored or not", async () => {
    const read = (runId: string) => Effect.runPromise(RunStore.readHeadAndJournal(store, runId, "marker"))
    log.length = 0
    counting = true
    const unknown = await read("head-journal")
    await Effect.runPromise(store.journalPut("head-journal", "marker", "{}"))
    const marked = await read("head-journal")
    const state = AgentState.make({ id: "head-journal", messages: [Message.user("one")] })
    await RunStore.save(store, AgentState.appendMessage(state, Message.user("two")), await RunStore.save(store, state))
    const stored = await read("head-journal")
    counting = false
    expect([unknown, marked, stored]).toEqual([{ head: 0, body: undefined }, { head: 0, body: "{}" }, { head: 2, body: "{}" }])
    expect(log.filter((entry) => entry.startsWith("SELECT"))).toEqual(["SELECT (SELECT seq", "SELECT (SELECT seq", "SELECT (SELECT seq"])
  }, 120_000)

  it("reads a spread copy of the store through the copy's own head and journalGet, not the one statement", async () => {
    const reads: Array<string> = []
    const copy: RunStore.RunStore = {
      ...store,
      head: (runId) => Effect.suspend(() => (reads.push("head"), store.head(runId))),
      journalGet: (runId, key) => Effect.suspend(() => (reads.push("journalGet"), Effect.succeed(`redirected ${key}`))),
    }
    log.length = 0
    counting = true
    const read = await Effect.runPromise(RunStore.readHeadAndJournal(copy, "head-journal-copy", "marker"))
    counting = false
    expect(read).toEqual({ head: 0, body: "redirected marker" })
    expect(reads.sort()).toEqual(["head", "journalGet"])
    expect(log.filter((entry) => entry.startsWith("SELECT (SELECT seq"))).toEqual([])
  }, 120_000)
})
