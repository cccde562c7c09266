/**
 * `node --conditions=@hookline/source --import tsx bench/src/cluster-shards.ts [rounds]`:
 * effect/cluster's read of new messages (`SqlMessageStorage`'s `unprocessedMessages`, the
 * statement a runner sends for every Notify and poll, its shard ids written into its text)
 * for 300, 100 and 30 shard ids, alternated in one sitting on one embedded PostgreSQL with
 * a message table as a busy runner leaves it (processed messages on every shard, none new;
 * SHARDS_ROWS of them, default 6,000).
 * Each call on a connection with `synchronous_commit = off`, as the shipped runner's.
 */
import { PgClient } from "@effect/sql-pg"
import { NodeCrypto } from "@effect/platform-node"
import { Effect, Layer, Redacted } from "effect"
import { ShardId, SqlMessageStorage } from "effect/cluster"
import { Reactivity } from "effect/reactivity"
import { SqlClient } from "effect/sql"
import pg from "pg"
import { startPostgres } from "../../packages/store/test/support/postgres.js"

const rounds = Number(process.argv[2] ?? 5)
// SHARDS_ROWS=n: processed messages in the table before the calls (default 6,000).
const rows = Number(process.env["SHARDS_ROWS"] ?? 6_000)
const perRound = 100
const counts = [300, 100, 30]
const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN
const server = await startPostgres()
try {
  const sql = Layer.effect(
    SqlClient.SqlClient,
    PgClient.make({ url: Redacted.make(server.connectionString), maxConnections: 4, preparedStatementCacheSize: 0, startupParameters: { synchronous_commit: "off" } })
      .pipe(Effect.provide(Reactivity.layer)),
  )
  const took = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const storage = yield* SqlMessageStorage.makeEncoded()
    // Processed messages spread over the 300 shards, the table a runner leaves behind.
    const raw = new pg.Client({ connectionString: server.connectionString })
    yield* Effect.promise(() => raw.connect())
    yield* Effect.promise(() =>
      raw.query(`INSERT INTO cluster_messages (id, message_id, shard_id, entity_type, entity_id, kind, tag, payload, processed, request_id)
        SELECT g, 'm' || g, 'default:' || (1 + g % 300), 'HooklineRun', 'run-' || g, 0, 'Start', '{}', true, g FROM generate_series(1, $1::int) g`, [rows])
    )
    yield* Effect.promise(() => raw.query("VACUUM ANALYZE cluster_messages"))
    yield* Effect.promise(() => raw.end())
    const ids = (n: number) => Array.from({ length: n }, (_, i) => ShardId.make("default", i + 1).toString()) as unknown as [string, ...Array<string>]
    const out = new Map<number, Array<number>>(counts.map((n) => [n, []]))
    for (let warm = 0; warm < 50; warm++) for (const n of counts) yield* storage.unprocessedMessages(ids(n), Date.now())
    for (let round = 0; round < rounds; round++) {
      for (const n of counts) {
        const shardIds = ids(n)
        for (let i = 0; i < perRound; i++) {
          const t0 = performance.now()
          yield* storage.unprocessedMessages(shardIds, Date.now())
          out.get(n)!.push(performance.now() - t0)
        }
      }
    }
    return out
  }).pipe(Effect.provide(Layer.merge(sql, NodeCrypto.layerDigest)))))
  console.log(`unprocessedMessages over ${rows} processed messages, ${rounds} rounds of ${perRound} calls per shard count, alternated; medians (p90), ms:`)
  for (const [n, xs] of took) {
    const sorted = [...xs].sort((a, b) => a - b)
    console.log(`  ${String(n).padStart(4)} shard ids: ${median(xs).toFixed(3)} (${sorted[Math.floor(sorted.length * 0.9)]!.toFixed(3)})`)
  }
} finally {
  await server.stop()
}
