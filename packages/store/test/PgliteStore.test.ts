import { AgentState, Message } from "@hookline/core"
import { StoreConformance } from "@hookline/testing/store"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { join } from "node:path"
import { PgliteStore, RunStore, StoreError } from "../src/index.js"
import * as Sql from "../src/internal/sql.js"
import { temporaryFolder } from "./support/folders.js"

// One folder for the whole file: a new folder's first open takes seconds.
const folder = temporaryFolder("pglite")
let store: RunStore.RunStore | undefined

beforeAll(async () => {
  store = await PgliteStore.open({ dataDir: folder.path })
}, 120_000)

afterAll(async () => {
  if (store !== undefined) await RunStore.close(store)
  folder.remove()
})

// Stores a test opened on folders of its own, closed at its end.
const opened: Array<RunStore.RunStore> = []
const reopen = async (path: string) => {
  for (const s of opened.splice(0)) await RunStore.close(s)
  const s = await PgliteStore.open({ dataDir: path })
  opened.push(s)
  return s
}
const closeAll = async () => {
  for (const s of opened.splice(0)) await RunStore.close(s)
}

describe("PgliteStore", () => {
  StoreConformance.register(it, async () => store as RunStore.RunStore, { propertyRuns: 3 })

  it("reports a last checkpoint deleted from its folder as CheckpointMissing", async () => {
    const lost = temporaryFolder("pglite-lost")
    try {
      let saved = await RunStore.save(await reopen(lost.path), AgentState.make({ id: "lost", messages: [Message.user("one")] }))
      saved = await RunStore.save(await reopen(lost.path), AgentState.appendMessage(saved.state, Message.user("two")), saved)
      await closeAll()
      // Behind the store's back, as a lost write or a bad restore leaves it.
      const { PGlite } = await import("@electric-sql/pglite")
      const db = await PGlite.create(lost.path)
      expect((await db.query("DELETE FROM hookline_checkpoints WHERE run_id = 'lost' AND seq = 2")).affectedRows).toBe(1)
      await db.close()
      const again = await reopen(lost.path)
      const error = await RunStore.load(again, "lost").catch((e: unknown) => e)
      expect(error).toBeInstanceOf(StoreError.CheckpointMissing)
      expect(error).toMatchObject({ runId: "lost", seq: 2, head: 2 })
    } finally {
      await closeAll()
      lost.remove()
    }
  }, 120_000)

  it("keeps runs in its folder after it is closed and opened again", async () => {
    const state = AgentState.make({ id: "survivor", messages: [Message.user("still here?")] })
    await RunStore.save(store as RunStore.RunStore, state)
    await RunStore.close(store as RunStore.RunStore)
    store = await PgliteStore.open({ dataDir: folder.path })
    expect((await RunStore.load(store, "survivor"))?.state).toEqual(state)
  }, 120_000)

  it("opens a database of schema version 1 (before leases): its runs load, and leases work", async () => {
    const old = temporaryFolder("pglite-v1")
    try {
      // A database as the previous version of the library left it.
      const { PGlite } = await import("@electric-sql/pglite")
      const db = await PGlite.create(old.path)
      const client: Sql.SqlClient = {
        query: async (text, params) => {
          const result = await db.query<Record<string, unknown>>(text, params === undefined ? undefined : [...params])
          return { rows: result.rows, affected: result.affectedRows ?? 0 }
        },
        transaction: (f) => db.transaction((tx) => f({ query: async (text, params) => {
          const result = await tx.query<Record<string, unknown>>(text, params === undefined ? undefined : [...params])
          return { rows: result.rows, affected: result.affectedRows ?? 0 }
        }, transaction: () => Promise.reject(new Error("nested")) })),
      }
      expect(await Sql.migrate(client, 1)).toBe(1)
      const v1 = Sql.make("pglite", client, () => db.close())
      const state = AgentState.make({ id: "from-v1", messages: [Message.user("written before leases")] })
      await RunStore.save(v1, state)
      const tables = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 'hookline_leases'`)
      expect(tables.rows[0]?.n).toBe(0)
      await RunStore.close(v1)
      // This version opens it: migration 2 adds the leases, the run is still there.
      const current = await PgliteStore.open({ dataDir: old.path })
      try {
        expect((await RunStore.load(current, "from-v1"))?.state).toEqual(state)
        await Effect.runPromise(current.takeLease({ runId: "from-v1", owner: "a", expiresAt: 2_000 }, 1_000))
        const refused = await Effect.runPromise(Effect.flip(current.takeLease({ runId: "from-v1", owner: "b", expiresAt: 2_000 }, 1_000)))
        expect(refused).toBeInstanceOf(StoreError.RunLeased)
        const saved = await RunStore.load(current, "from-v1")
        await RunStore.save(current, AgentState.appendMessage(state, Message.user("and after")), saved)
        expect((await RunStore.load(current, "from-v1"))?.seq).toBe(2)
      } finally {
        await RunStore.close(current)
      }
    } finally {
      old.remove()
    }
  }, 120_000)

  it("makes the folders of a nested path that does not exist yet", async () => {
    const nested = temporaryFolder("pglite-nested")
    try {
      const deep = await PgliteStore.open({ dataDir: join(nested.path, "runs", "of", "today") })
      const state = AgentState.make({ id: "deep", messages: [Message.user("down here")] })
      await RunStore.save(deep, state)
      expect((await RunStore.load(deep, "deep"))?.state).toEqual(state)
      await RunStore.close(deep)
    } finally {
      nested.remove()
    }
  }, 120_000)
})
