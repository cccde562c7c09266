// The statements of a run's path are named prepared statements (parsed and planned once
// per connection), unless the store is opened with `prepared: false`; either way the
// store reads back what it acknowledged.
import { AgentState, Message } from "@hookline/core"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { PostgresStore, RunStore } from "../src/index.js"
import { startPostgres, type Server } from "./support/postgres.js"

let server: Server | undefined

beforeAll(async () => {
  server = await startPostgres()
}, 120_000)

afterAll(async () => {
  await server?.stop()
}, 60_000)

// A run's path on a pool of one connection, then the statements that connection keeps.
const preparedAfterRun = async (runId: string, prepared: boolean | undefined): Promise<ReadonlyArray<string>> => {
  const pg = await import("pg")
  const pool = new pg.default.Pool({ connectionString: (server as Server).connectionString, max: 1 })
  try {
    const store = await PostgresStore.open(prepared === undefined ? { pool } : { pool, prepared })
    const first = await RunStore.save(store, AgentState.make({ id: runId, messages: [Message.user("go")] }))
    const second = await RunStore.save(store, AgentState.appendMessage(first.state, Message.assistant("one")), first)
    const third = await RunStore.save(store, AgentState.appendMessage(second.state, Message.assistant("two")), second)
    expect(await Effect.runPromise(store.journalPut(runId, "k", "\"v\""))).toBe(true)
    expect(await Effect.runPromise(store.journalGet(runId, "k"))).toBe("\"v\"")
    expect((await RunStore.load(store, runId))?.state).toEqual(third.state)
    await RunStore.close(store)
    const found = await pool.query("SELECT name FROM pg_prepared_statements ORDER BY name")
    return found.rows.map((row: { name: string }) => row.name)
  } finally {
    await pool.end()
  }
}

describe("PostgresStore's prepared statements", () => {
  it("names the step's statements by default, each prepared once on the connection", async () => {
    const names = await preparedAfterRun("prepared-default", undefined)
    expect(names).toEqual(expect.arrayContaining(["hookline_commit", "hookline_commit_first", "hookline_journal_get", "hookline_journal_put", "hookline_rows"]))
    expect(names.every((name) => name.startsWith("hookline_"))).toBe(true)
  })

  it("prepares nothing with prepared: false", async () => {
    expect(await preparedAfterRun("prepared-off", false)).toEqual([])
  })
})
