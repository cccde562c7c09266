import { AgentState, Message } from "@hookline/core"
import { StoreConformance } from "@hookline/testing/store"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { PostgresStore, RunStore, StoreError } from "../src/index.js"
import * as Sql from "../src/internal/sql.js"
import { postgresForAll } from "./support/storeForAll.js"

// One server for the whole file.
const postgres = postgresForAll()

describe("PostgresStore", () => {
  // A lost row, as a bad restore or an administrator's DELETE would leave it.
  const dropCheckpoint = async (_store: RunStore.RunStore, runId: string, seq: number) => {
    const pg = await import("pg")
    const admin = new pg.default.Client({ connectionString: postgres.server.connectionString })
    await admin.connect()
    try {
      const dropped = await admin.query("DELETE FROM hookline_checkpoints WHERE run_id = $1 AND seq = $2", [runId, seq])
      if (dropped.rowCount !== 1) throw new Error(`no checkpoint ${seq} of run ${runId} to drop`)
    } finally {
      await admin.end()
    }
  }
  StoreConformance.register(it, async () => postgres.store, { dropCheckpoint, propertyRuns: 3 })

  it("migrates once, whoever opens the database", async () => {
    const again = await Promise.all([1, 2, 3].map(() => PostgresStore.open({ connectionString: postgres.server.connectionString })))
    try {
      const state = AgentState.make({ id: "shared", messages: [Message.user("hi")] })
      await RunStore.save(again[0]!, state)
      expect((await RunStore.load(again[2]!, "shared"))?.state).toEqual(state)
    } finally {
      await Promise.all(again.map(RunStore.close))
    }
  })

  it("lets one of two stores (two processes) commit from the same head", async () => {
    const other = await PostgresStore.open({ connectionString: postgres.server.connectionString })
    try {
      const first = await RunStore.save(postgres.store, AgentState.make({ id: "two-writers" }))
      const a = AgentState.appendMessage(first.state, Message.user("a"))
      const b = AgentState.appendMessage(first.state, Message.user("b"))
      const exits = await Promise.all([
        Effect.runPromiseExit(RunStore.saveEffect(postgres.store, a, first)),
        Effect.runPromiseExit(RunStore.saveEffect(other, b, first)),
      ])
      expect(exits.map((e) => e._tag).sort()).toEqual(["Failure", "Success"])
      const winner = exits[0]._tag === "Success" ? a : b
      expect((await RunStore.load(other, "two-writers"))?.state).toEqual(winner)
    } finally {
      await RunStore.close(other)
    }
  })

  it("lets one of two stores (two processes) take a run's lease at once", async () => {
    const others = await Promise.all([1, 2, 3].map(() => PostgresStore.open({ connectionString: postgres.server.connectionString })))
    try {
      const stores = [postgres.store, ...others]
      const exits = await Promise.all(
        stores.map((s, i) => Effect.runPromiseExit(s.takeLease({ runId: "two-holders", owner: `process-${i}`, expiresAt: 2_000 }, 1_000))),
      )
      expect(exits.filter((e) => e._tag === "Success")).toHaveLength(1)
      const refused = exits.filter((e) => e._tag === "Failure").map((e) => (e._tag === "Failure" ? e.cause.reasons[0] : undefined))
      expect(refused.every((r) => r?._tag === "Fail" && r.error instanceof StoreError.RunLeased && r.error.expiresAt === 2_000)).toBe(true)
    } finally {
      await Promise.all(others.map(RunStore.close))
    }
  })

  it("lets one of two stores (two processes) create a run of one id at once; the other gets RunExists", async () => {
    const others = await Promise.all([1, 2, 3].map(() => PostgresStore.open({ connectionString: postgres.server.connectionString })))
    try {
      const stores = [postgres.store, ...others]
      const states = stores.map((_, i) => AgentState.make({ id: "two-creators", messages: [Message.user(`process ${i}`)] }))
      const exits = await Promise.all(stores.map((s, i) => Effect.runPromiseExit(RunStore.startEffect(s, states[i]!))))
      const won = exits.flatMap((e, i) => (e._tag === "Success" ? [i] : []))
      expect(won).toHaveLength(1)
      const refused = exits.filter((e) => e._tag === "Failure").map((e) => (e._tag === "Failure" ? e.cause.reasons[0] : undefined))
      expect(refused.every((r) => r?._tag === "Fail" && r.error instanceof StoreError.RunExists)).toBe(true)
      expect((await RunStore.load(others[0]!, "two-creators"))?.state).toEqual(states[won[0]!])
    } finally {
      await Promise.all(others.map(RunStore.close))
    }
  })

  it("opens a database of schema version 1 (before leases): its runs load, and leases work", async () => {
    const pg = await import("pg")
    const admin = new pg.default.Client({ connectionString: postgres.server.connectionString })
    await admin.connect()
    const url = new URL(postgres.server.connectionString)
    url.pathname = "/hookline_v1"
    try {
      await admin.query("DROP DATABASE IF EXISTS hookline_v1")
      await admin.query("CREATE DATABASE hookline_v1")
      // The database as the previous version of the library left it.
      const pool = new pg.default.Pool({ connectionString: url.toString(), max: 1 })
      const client: Sql.SqlClient = {
        query: async (text, params) => {
          const result = await pool.query(text, params === undefined ? undefined : [...params])
          return { rows: result.rows, affected: result.rowCount ?? 0 }
        },
        // Setting up a fixture: its statements need not be atomic.
        transaction: (f) => f(client),
      }
      expect(await Sql.migrate(client, 1)).toBe(1)
      const state = AgentState.make({ id: "from-v1", messages: [Message.user("written before leases")] })
      await RunStore.save(Sql.make("postgres", client, () => pool.end()), state)
      await pool.end()
      const current = await PostgresStore.open({ connectionString: url.toString() })
      try {
        expect((await RunStore.load(current, "from-v1"))?.state).toEqual(state)
        await Effect.runPromise(current.takeLease({ runId: "from-v1", owner: "a", expiresAt: 2_000 }, 1_000))
        const refused = await Effect.runPromise(Effect.flip(current.takeLease({ runId: "from-v1", owner: "b", expiresAt: 2_000 }, 1_000)))
        expect(refused).toBeInstanceOf(StoreError.RunLeased)
      } finally {
        await RunStore.close(current)
      }
      const check = new pg.default.Client({ connectionString: url.toString() })
      await check.connect()
      try {
        const applied = await check.query("SELECT version FROM hookline_migrations ORDER BY version")
        expect(applied.rows.map((r: { version: number }) => r.version)).toEqual([1, 2])
      } finally {
        await check.end()
      }
    } finally {
      await admin.query("DROP DATABASE IF EXISTS hookline_v1").catch(() => undefined)
      await admin.end()
    }
  })

  it("survives the server ending its idle connections (no uncaught error), and goes on working", async () => {
    const own = await PostgresStore.open({ connectionString: postgres.server.connectionString })
    const uncaught: Array<unknown> = []
    const onUncaught = (error: unknown) => void uncaught.push(error)
    process.prependListener("uncaughtException", onUncaught)
    const pg = await import("pg")
    const admin = new pg.default.Client({ connectionString: postgres.server.connectionString })
    await admin.connect()
    try {
      const state = AgentState.make({ id: "terminated", messages: [Message.user("hi")] })
      await RunStore.save(own, state) // the pool now holds an idle connection
      await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND datname = current_database() AND state = 'idle'")
      await new Promise((resolve) => setTimeout(resolve, 200)) // the pool hears of it
      expect(uncaught).toEqual([])
      expect((await RunStore.load(own, "terminated"))?.state).toEqual(state)
    } finally {
      process.removeListener("uncaughtException", onUncaught)
      await admin.end()
      await RunStore.close(own)
    }
  })

  it("refuses to open a database whose schema is newer than the library", async () => {
    const pg = await import("pg")
    const client = new pg.default.Client({ connectionString: postgres.server.connectionString })
    await client.connect()
    try {
      await client.query("INSERT INTO hookline_migrations (version, applied_at) VALUES (999, 0)")
      const opened = await PostgresStore.open({ connectionString: postgres.server.connectionString }).catch((e: unknown) => e)
      expect(opened).toMatchObject({ _tag: "StoreFailed" })
      expect(String((opened as Error).message)).toContain("schema version 999")
    } finally {
      await client.query("DELETE FROM hookline_migrations WHERE version = 999")
      await client.end()
    }
  })
})
