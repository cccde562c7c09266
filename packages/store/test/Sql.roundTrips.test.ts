// A durable step on the SQL stores waits for the database twice, in one statement each:
// the model's answer (a journal insert) before its tools run, then the step's checkpoint
// (the head moved and the row inserted in one statement, its own transaction). No
// BEGIN/COMMIT pair around a step's writes, no lease query on the step's path.
import { AgentBuilder, Tool, UseDriver, UseTools } from "@hookline/agent"
import { AgentState, Message } from "@hookline/core"
import { ScriptedDriver } from "@hookline/testing"
import { Effect } from "effect"
import * as t from "io-ts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { RunStore, StoreError, UseCheckpoints } from "../src/index.js"
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
  it("writes a tool step in two statements, each its own commit: the model's answer, then the checkpoint", async () => {
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
      "checkpoint", // the final answer's step
      "checkpoint", // the run's end
      "lease", // released
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

  it("answers a run's head and one journal entry in one statement, stored or not", async () => {
    const read = (runId: string) => Effect.runPromise(store.headAndJournal!(runId, "marker"))
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
})
