/**
 * The cluster timeline's recorder, for bench/src/cluster-timeline.ts only (never on a
 * shipped path): a tracer that keeps every span effect makes (effect/cluster's messages,
 * effect/sql's statements, the RPC socket) with its start and end on the machine's
 * monotonic clock (`process.hrtime`, CLOCK_MONOTONIC, the same in every process of the
 * machine), and a run store's statements stamped the same way (at its pool, so the store
 * is the shipped one, unwrapped). `dump` writes them as JSON lines.
 */
import { Runner, Settings } from "@hookline/cluster"
import { NodeClusterSocket, NodeCrypto } from "@effect/platform-node"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Option, Redacted, Tracer } from "effect"
import { MessageStorage, type RunnerAddress, ShardingConfig, SqlMessageStorage, SqlRunnerStorage } from "effect/cluster"
import { writeFileSync } from "node:fs"
import type pg from "pg"

// A client's PostgreSQL pool as `Runner.clientLayer` opens it (packages/cluster/src/
// internal/sql.ts, not exported): keep the two alike.
const sqlLayer = (database: string) => PgClient.layer({ url: Redacted.make(database), maxConnections: 10, preparedStatementCacheSize: 0 })

export interface Mark {
  /** Who: "client" or "runner". */
  readonly who: string
  readonly name: string
  /** Monotonic microseconds. */
  readonly start: number
  readonly end: number
  /** The SQL statement (its first 120 characters), or the store call's run id. */
  readonly detail?: string | undefined
  readonly parent?: string | undefined
  readonly id: string
}

export const nowMicros = (): number => Number(process.hrtime.bigint() / 1_000n)

class TimedSpan extends Tracer.NativeSpan {
  readonly began = nowMicros()
  constructor(options: ConstructorParameters<typeof Tracer.NativeSpan>[0], private readonly done: (span: TimedSpan, end: number) => void) {
    super(options)
  }
  override end(endTime: bigint, exit: Parameters<Tracer.NativeSpan["end"]>[1]): void {
    if (this.status._tag !== "Ended") this.done(this, nowMicros())
    super.end(endTime, exit)
  }
}

export const recorder = (who: string) => {
  const marks: Array<Mark> = []
  const tracer = Tracer.make({
    span: (options) =>
      new TimedSpan(options, (span, end) => {
        const statement = span.attributes.get("db.statement") ?? span.attributes.get("db.query.text") ?? span.attributes.get("runId")
        const parent = Option.getOrUndefined(span.parent)
        marks.push({
          who,
          name: span.name,
          start: span.began,
          end,
          detail: statement === undefined ? undefined : String(statement).replace(/\s+/g, " ").slice(0, 120),
          parent: parent?._tag === "Span" ? parent.spanId : undefined,
          id: span.spanId,
        })
      }),
  })
  return {
    marks,
    layer: Layer.succeed(Tracer.Tracer, tracer),
    mark: (name: string, start: number, end: number, detail?: string) => marks.push({ who, name, start, end, detail, id: `${who}-${marks.length}` }),
    dump: (file: string) => writeFileSync(file, marks.map((m) => JSON.stringify(m)).join("\n") + "\n"),
  }
}

// The run store's named statements (packages/store/src/internal/sql.ts) by the store call
// each serves; another statement is kept as `sql.<its first words>`.
const calls: Readonly<Record<string, string>> = {
  hookline_lease_take: "store.takeLease",
  hookline_commit_first: "store.create",
  hookline_journal_put: "store.journalPut",
  hookline_journal_get: "store.journalGet",
  hookline_commit: "store.commit",
  hookline_commit_release: "store.commitAndRelease",
  hookline_lease_release: "store.releaseLease",
  hookline_lease_renew: "store.renewLease",
  hookline_head: "store.head",
  hookline_head_journal: "store.headAndJournal",
  hookline_rows: "store.rows",
}

/**
 * The pool a `PostgresStore` is opened on (`{ pool }`), with each statement it runs
 * through `pool.query` (every statement of a run: each is one) kept as a mark named by
 * the store call it serves, its first parameter (the run id) as the detail. The store
 * itself is the shipped one, unwrapped: it makes exactly the statements it makes anywhere.
 */
export const stampedPool = (pool: pg.Pool, rec: ReturnType<typeof recorder>): pg.Pool => {
  const query = pool.query.bind(pool) as (config: unknown, values?: unknown) => Promise<unknown>
  const stamped = (config: unknown, values?: unknown) => {
    const named = typeof config === "object" && config !== null ? config as { readonly name?: string; readonly text?: string; readonly values?: ReadonlyArray<unknown> } : undefined
    const text = named?.text ?? String(config)
    const params = (named?.values ?? values) as ReadonlyArray<unknown> | undefined
    const name = (named?.name !== undefined ? calls[named.name] : undefined) ?? `sql.${text.trim().split(/\s+/).slice(0, 3).join(" ")}`
    const began = nowMicros()
    const done = () => rec.mark(name, began, nowMicros(), params?.[0] === undefined ? undefined : String(params[0]))
    return query(config, values).then((result) => {
      done()
      return result
    }, (error: unknown) => {
      done()
      throw error
    })
  }
  ;(pool as unknown as { query: typeof stamped }).query = stamped
  return pool
}

/**
 * The cluster's layers (effect/cluster over its SQL tables, as `Runner.layer` and
 * `Runner.clientLayer` build them) with each call of the message storage kept as a mark
 * (effect/cluster runs its storage with the tracer off): `storage.saveRequest` (a
 * persisted message's row), `storage.unprocessedMessages` (a runner's read of its new
 * messages), `storage.saveReply` and the rest.
 */
export const tracedCluster = (
  rec: ReturnType<typeof recorder>,
  database: string,
  options: { readonly clientOnly: true; readonly shardsPerGroup?: number } | { readonly runnerAddress: RunnerAddress.RunnerAddress; readonly settings?: Partial<Settings.Settings> },
) => {
  // A runner's storage is `Runner.storageLayer`'s (its replies and read marks on their own
  // pool unless `repliesWaitForFlush`); a client's, effect/cluster's on one pool.
  const inner = "clientOnly" in options
    ? Layer.merge(SqlMessageStorage.layer.pipe(Layer.provide(NodeCrypto.layerDigest)), Layer.orDie(SqlRunnerStorage.layer)).pipe(Layer.provide(sqlLayer(database)))
    : Runner.storageLayer(database, options.settings)
  const storage = Layer.effect(
    MessageStorage.MessageStorage,
    Effect.map(MessageStorage.MessageStorage, (inner) => {
      const out: Record<string, unknown> = { ...inner }
      for (const [key, value] of Object.entries(inner)) {
        if (typeof value !== "function") continue
        out[key] = (...args: Array<unknown>) => {
          const began = nowMicros()
          const result = (value as (...a: Array<unknown>) => unknown).apply(inner, args)
          if (!Effect.isEffect(result)) return result
          return Effect.ensuring(result, Effect.sync(() => rec.mark(`storage.${key}`, began, nowMicros())))
        }
      }
      return out as unknown as MessageStorage.MessageStorage["Service"]
    }),
  )
  // The client's settings are the bench's (cluster.ts): assignments and polls every second.
  const shardingConfig = "clientOnly" in options
    ? Settings.shardingConfig({ ...Settings.defaults, assignmentsRefresh: "1 second", messagePoll: "1 second", shardsPerGroup: options.shardsPerGroup ?? Settings.defaults.shardsPerGroup })
    : { ...Settings.shardingConfig({ ...Settings.defaults, ...options.settings }), runnerAddress: Option.some(options.runnerAddress) }
  return NodeClusterSocket.layer({ ...("clientOnly" in options ? { clientOnly: true } : {}), storage: "byo", shardingConfig }).pipe(
    Layer.provide(Layer.provideMerge(storage, inner)),
    Layer.provide(ShardingConfig.layer(shardingConfig)),
  )
}
