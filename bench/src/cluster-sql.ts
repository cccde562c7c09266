/**
 * `node --conditions=@hookline/source --import tsx bench/src/cluster-sql.ts [statements]`:
 * the client CPU a statement costs on the cluster's PostgreSQL pool with effect/sql-pg's
 * prepared-statement cache (100 per connection, its default) and without it (what
 * `internal/sql.ts` ships), in this one process, the two alternating over 4 rounds. The
 * statements are shaped like effect/cluster's per-message ones: a reply's insert (5
 * parameters), the processed mark's update (3), a read with an id list as literals (a
 * new text each time, as SqlMessageStorage writes them), 10 at once.
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { startPostgres } from "../../packages/store/test/support/postgres.js"

const count = Number(process.argv[2] ?? 3_000)
const server = await startPostgres()

const layerOf = (cache: number) => PgClient.layer({ url: Redacted.make(server.connectionString), maxConnections: 10, preparedStatementCacheSize: cache })

const work = (cache: number, round: number) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql.unsafe(`CREATE TABLE IF NOT EXISTS bench_replies_${cache} (id bigint PRIMARY KEY, kind int, request_id bigint, payload text, sequence int)`)
    yield* sql.unsafe(`CREATE TABLE IF NOT EXISTS bench_messages_${cache} (request_id bigint PRIMARY KEY, processed boolean, last_reply_id bigint)`)
    const one = (i: number) =>
      Effect.gen(function*() {
        const id = round * 1_000_000 + i
        yield* sql.unsafe(`INSERT INTO bench_messages_${cache} (request_id, processed, last_reply_id) VALUES ($1, false, null)`, [id])
        yield* sql.unsafe(`INSERT INTO bench_replies_${cache} (id, kind, request_id, payload, sequence) VALUES ($1, $2, $3, $4, $5)`, [id, 0, id, `{"_tag":"Success","value":{"runId":"r-${i}"}}`, 0])
        yield* sql.unsafe(`UPDATE bench_messages_${cache} SET processed = $3, last_reply_id = $1 WHERE request_id = $2`, [id, id, true])
        yield* sql.unsafe(`SELECT request_id FROM bench_messages_${cache} WHERE request_id IN (${id}, ${id + 1}, ${id + 2}) AND NOT processed`)
      })
    const began = process.cpuUsage()
    yield* Effect.forEach(Array.from({ length: count / 4 }, (_, i) => i), one, { concurrency: 10, discard: true })
    const cpu = process.cpuUsage(began)
    return (cpu.user + cpu.system) / count
  }).pipe(Effect.provide(layerOf(cache)))

try {
  const rows: Array<string> = []
  const perCache = new Map<number, Array<number>>([[100, []], [0, []]])
  for (let round = 0; round < 4; round++) {
    for (const cache of round % 2 === 0 ? [100, 0] : [0, 100]) {
      const us = await Effect.runPromise(work(cache, round))
      perCache.get(cache)?.push(us)
      rows.push(`round ${round}, cache ${cache}: ${us.toFixed(1)} us CPU per statement`)
    }
  }
  for (const r of rows) console.log(r)
  const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN
  console.log(`median of rounds 1-3 (round 0 warms up): cache 100 ${median(perCache.get(100)!.slice(1)).toFixed(1)} us, cache 0 ${median(perCache.get(0)!.slice(1)).toFixed(1)} us per statement`)
} finally {
  await server.stop()
}
