// The PostgreSQL pool of effect/cluster's tables (messages, replies, runners, locks) in a
// client-only process; a runner's two pools are internal/storage.ts's. The runs' own
// store is a PostgresStore beside them.
import { PgClient } from "@effect/sql-pg"
import { Redacted } from "effect"

// No statement kept prepared per connection (effect/sql-pg keeps 100 by default).
// effect/cluster's SqlMessageStorage writes id lists into its SQL as literals, so its
// polls are new statements again and again: a cache keeps up to 100 of them per
// connection, each with its text and row parser, and the runner's heap climbed about
// 1 KB per evicted run until it was full. Without it each statement is parsed by the
// server every time: about 6 µs a statement on the client, no change in the runner's CPU
// per run beyond its noise (docs/performance.md, "Cluster cost, cut again").
export const preparedStatementCacheSize = 0

export const sqlLayer = (database: string) =>
  PgClient.layer({ url: Redacted.make(database), maxConnections: 10, preparedStatementCacheSize })
