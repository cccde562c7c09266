// A runner's effect/cluster storage over PostgreSQL: its runner rows and shard locks and
// the messages it sends on a pool whose commits wait for the WAL flush, and what it only
// marks read or replies on a pool that does not wait (synchronous_commit = off).
//
// Why that split is sound (docs/decisions.md, "A runner's reads and replies without the
// flush wait"): a commit that did not wait is lost only when PostgreSQL crashes before
// its WAL is flushed, and the WAL is one sequence, so what is lost is a tail: every commit
// after it, none before a flushed one. A lost `last_read` mark or reply leaves its message
// unprocessed, so it is handled again (a PostgreSQL crash drops every runner's advisory
// locks, and a runner that takes its shards again resets their `last_read` marks anyway);
// the entity answers it again from the run's store, whose commits wait for the flush:
// a Start is idempotent per run id, a repeated identical Resume is a no-op, a Cancel is
// stored and idempotent. A message this process sends (a Start a client is acknowledged
// on) is stored on the flushing pool, so it is never in a lost tail.
import { NodeClusterSocket, NodeCrypto } from "@effect/platform-node"
import { PgClient } from "@effect/sql-pg"
import { Context, Effect, Layer, Option, Redacted } from "effect"
import { MessageStorage, type RunnerAddress, ShardingConfig, Snowflake, SqlMessageStorage, SqlRunnerStorage } from "effect/cluster"
import { Reactivity } from "effect/reactivity"
import { SqlClient } from "effect/sql"
import * as Settings from "../Settings.js"
import { preparedStatementCacheSize } from "./sql.js"

// The connections of a runner's two pools: together as many as its one pool had (10).
// The flushing pool keeps the runner storage's reserved lock connection, its heartbeats
// and lock checks, resets, reads and sends; the other only the reads of new messages and
// the replies (each a short transaction that no longer waits for a flush).
export const flushingConnections = 6
export const unflushedConnections = 4

// Inside effect/cluster's `withTransaction` (the flushing pool's transaction), every
// statement stays on its connection: a reply saved there commits with the transaction.
const InTransaction = Context.Reference<boolean>("@hookline/cluster/internal/storage/InTransaction", { defaultValue: () => false })

/**
 * effect/cluster's encoded storage, method by method: `saveReply` and `unprocessedMessages`
 * (a read that marks `last_read` in an UPDATE that commits) on `unflushed`, everything
 * else on `flushing` (`saveEnvelope`, which stores every request and envelope sent; the
 * resets and clears; the plain reads). Both are SqlMessageStorage over the same tables.
 */
export const compose = (flushing: MessageStorage.Encoded, unflushed: MessageStorage.Encoded): MessageStorage.Encoded => ({
  ...flushing,
  saveReply: (reply) => Effect.flatMap(InTransaction, (inTransaction) => (inTransaction ? flushing : unflushed).saveReply(reply)),
  unprocessedMessages: (shardIds, now, options) =>
    Effect.flatMap(InTransaction, (inTransaction) => (inTransaction ? flushing : unflushed).unprocessedMessages(shardIds, now, options)),
  withTransaction: (effect) => flushing.withTransaction(Effect.provideService(effect, InTransaction, true)),
})

const pool = (database: string, maxConnections: number, waitForFlush: boolean) =>
  PgClient.make({
    url: Redacted.make(database),
    maxConnections,
    preparedStatementCacheSize,
    ...(waitForFlush ? {} : { startupParameters: { synchronous_commit: "off" } }),
  }).pipe(Effect.provide(Reactivity.layer))

// The pool whose commits wait for the flush (PostgreSQL's default).
export const flushingSqlLayer = (database: string, maxConnections: number) => Layer.effect(SqlClient.SqlClient, pool(database, maxConnections, true))

/**
 * The encoded storage a runner uses, on the flushing `SqlClient` it is given; unless
 * `waitForFlush`, with a second pool (scoped) for the replies and read marks.
 */
export const encodedStorage = (database: string, options: { readonly waitForFlush: boolean }) =>
  Effect.gen(function*() {
    const flushing = yield* SqlMessageStorage.makeEncoded()
    if (options.waitForFlush) return flushing
    const unflushedSql = yield* pool(database, unflushedConnections, false)
    const unflushed = yield* Effect.provideService(SqlMessageStorage.makeEncodedStorage(), SqlClient.SqlClient, unflushedSql)
    return compose(flushing, unflushed)
  })

/**
 * A runner's `MessageStorage` and `RunnerStorage` (for `NodeClusterSocket.layer` with
 * `storage: "byo"`). `waitForFlush: true` keeps one flushing pool for everything, as
 * effect/cluster's `storage: "sql"` does.
 */
export const runnerStorageLayer = (database: string, options: { readonly waitForFlush: boolean }) => {
  const messages = Layer.effect(MessageStorage.MessageStorage, Effect.flatMap(encodedStorage(database, options), MessageStorage.makeEncoded)).pipe(
    Layer.provide([Snowflake.layerGenerator, NodeCrypto.layerDigest]),
  )
  const flushing = flushingSqlLayer(database, options.waitForFlush ? flushingConnections + unflushedConnections : flushingConnections)
  return Layer.merge(messages, Layer.orDie(SqlRunnerStorage.layer)).pipe(Layer.provide(flushing))
}

/**
 * A runner's effect/cluster (sharding, its socket server, the storage above) with the
 * settings given: what `Runner.layer` runs its entities on.
 */
export const runnerCluster = (database: string, settings: Settings.Settings, address: RunnerAddress.RunnerAddress) => {
  const shardingConfig = { ...Settings.shardingConfig(settings), runnerAddress: Option.some(address) }
  return NodeClusterSocket.layer({ storage: "byo", shardingConfig }).pipe(
    Layer.provide(runnerStorageLayer(database, { waitForFlush: settings.repliesWaitForFlush })),
    Layer.provide(ShardingConfig.layer(shardingConfig)),
  )
}
