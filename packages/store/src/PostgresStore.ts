/**
 * The production store: PostgreSQL through node-postgres (`pg`), with the schema's
 * migrations applied when the store opens (under an advisory lock, so processes that
 * start together migrate once).
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import type { Pool, PoolClient, PoolConfig } from "pg"
import { importPeer } from "./internal/peer.js"
import * as Sql from "./internal/sql.js"
import type * as RunStore from "./RunStore.js"
import * as StoreError from "./StoreError.js"

/**
 * A connection string or pool settings (the store makes and ends its pool), or a pool
 * of yours (the store never ends it).
 *
 * `prepared` (default true): the statements of a run's path (a step's journal insert and
 * checkpoint, the lease's) are named prepared statements, parsed and planned once per
 * connection instead of at every call. `false` for a connection pooler that does not keep
 * prepared statements between transactions (PgBouncer's transaction mode before 1.21).
 *
 * `waitForFlush` (default true): a commit is acknowledged once PostgreSQL flushed it to
 * disk. `false` gives that up for speed (the store's connections run with
 * `synchronous_commit = off`): a commit is acknowledged once the server holds it, and a
 * crash of the database server (its process or its machine) loses the commits it
 * acknowledged in the last moments before (up to three times `wal_writer_delay`, 600 ms
 * by default), a journaled tool result among them, so that call can run again on resume,
 * and a lease's take or renewal, so another process may take a running run's lease over
 * before the holder's next renewal finds it gone. What the server keeps is a prefix of what
 * it acknowledged: the run loads and resumes from an earlier checkpoint. The client's
 * crash loses nothing. Only for connections the store makes (with a pool of yours, set it
 * on your pool's connections).
 *
 * @since 0.1.0
 * @category models
 */
export type Options =
  & (
    | { readonly connectionString: string; readonly max?: number | undefined }
    | { readonly config: PoolConfig }
    | { readonly pool: Pool }
  )
  & { readonly prepared?: boolean | undefined; readonly waitForFlush?: boolean | undefined }

// The settings of the pool the store makes: `waitForFlush: false` is a startup option of
// each connection, so it holds from the migration on, on every connection alike.
const poolConfigOf = (options: Exclude<Options, { readonly pool: Pool }>): PoolConfig => {
  const config: PoolConfig = "config" in options ? options.config : { connectionString: options.connectionString, max: options.max ?? 10 }
  if (options.waitForFlush ?? true) return config
  const startup = [config.options, "-c synchronous_commit=off"].filter((part) => part !== undefined && part !== "").join(" ")
  return { ...config, options: startup }
}

// A named statement is parsed and planned once per connection (`pg` keeps it by name);
// the others, made per call (a listing's filters), stay unnamed.
const run = (on: Pool | PoolClient, text: string, params: ReadonlyArray<unknown> | undefined, name: string | undefined) =>
  name === undefined
    ? on.query(text, params === undefined ? undefined : [...params])
    : on.query({ name, text, values: params === undefined ? [] : [...params] })

const clientOf = (pool: Pool, prepared: boolean): Sql.SqlClient => ({
  query: async (text, params, name) => {
    const result = await run(pool, text, params, prepared ? name : undefined)
    return { rows: result.rows, affected: result.rowCount ?? 0 }
  },
  transaction: async (f) => {
    const connection = await pool.connect()
    const tx: Sql.SqlClient = {
      query: async (text, params, name) => {
        const result = await run(connection, text, params, prepared ? name : undefined)
        return { rows: result.rows, affected: result.rowCount ?? 0 }
      },
      transaction: (g) => g(tx),
    }
    let failed = true
    try {
      await connection.query("BEGIN")
      const out = await f(tx)
      await connection.query("COMMIT")
      failed = false
      return out
    } finally {
      if (failed) await connection.query("ROLLBACK").catch(() => undefined)
      connection.release()
    }
  },
})

/**
 * Connects, migrates and gives the store.
 *
 * @since 0.1.0
 * @category constructors
 */
export const openEffect = (options: Options): Effect.Effect<RunStore.RunStore, StoreError.StoreFailed | StoreError.PeerMissing> =>
  Effect.tryPromise({
    try: async () => {
      const pg = await importPeer("pg", "PostgresStore", () => import("pg"))
      const PoolClass = (pg.default ?? pg).Pool
      if ("pool" in options && options.waitForFlush === false) {
        throw new Error("waitForFlush: false applies to the connections the store makes; with a pool of yours, set synchronous_commit = off on its connections")
      }
      const owned = !("pool" in options)
      const pool = "pool" in options ? options.pool : new PoolClass(poolConfigOf(options))
      // An idle connection the server ends (a restart, an administrator) is an 'error'
      // event of the pool: unhandled, it would crash the process. The pool drops that
      // connection and the next query opens another; the query in flight fails as usual.
      if (owned) pool.on("error", () => undefined)
      const client = clientOf(pool, options.prepared ?? true)
      try {
        await Sql.migrate(client)
      } catch (cause) {
        if (owned) await pool.end()
        throw cause
      }
      return Sql.make("postgres", client, () => (owned ? pool.end() : Promise.resolve()))
    },
    catch: (cause) => cause instanceof StoreError.PeerMissing ? cause : StoreError.storeFailed("opening the PostgreSQL store", cause),
  })

/**
 * @since 0.1.0
 * @category constructors
 */
export const open = (options: Options): Promise<RunStore.RunStore> => Effect.runPromise(openEffect(options))
