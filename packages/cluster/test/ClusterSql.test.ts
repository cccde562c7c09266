// The cluster's PostgreSQL pool keeps no statement prepared: effect/cluster's SQL carries
// id lists as literals, and a statement cache would keep each new text (a runner's heap
// grew with the runs it had served until the cache was full).
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startPostgres, type Server } from "../../store/test/support/postgres.js"
import { sqlLayer } from "../src/internal/sql.js"

let pg: Server
beforeAll(async () => {
  pg = await startPostgres()
}, 60_000)
afterAll(async () => {
  await pg?.stop()
})

describe("internal/sql", () => {
  describe("sqlLayer", () => {
    it("keeps no prepared statement on a connection after statements whose literals differ", async () => {
      const prepared = await Effect.runPromise(
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          // One transaction: one connection, whose session's prepared statements are read.
          return yield* sql.withTransaction(Effect.gen(function*() {
            for (const id of [1, 2, 3]) yield* sql.unsafe(`SELECT ${id} AS id WHERE ${id} IN (1, 2, 3)`)
            const rows = yield* sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM pg_prepared_statements`
            return rows[0]?.n
          }))
        }).pipe(Effect.provide(sqlLayer(pg.connectionString))),
      )
      expect(prepared).toBe(0)
    })
  })
})
