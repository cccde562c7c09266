/**
 * The embedded default: PostgreSQL compiled to WebAssembly (PGlite), in a folder of
 * its own, with no server to run. It needs only Node.js and npm, survives the process,
 * and shares its schema and its SQL with `PostgresStore` (docs/decisions.md says why).
 *
 * @since 0.1.0
 */
import { mkdir } from "node:fs/promises"
import { Effect } from "effect"
import * as FolderLock from "./internal/folderLock.js"
import { importPeer } from "./internal/peer.js"
import * as Sql from "./internal/sql.js"
import type * as RunStore from "./RunStore.js"
import * as StoreError from "./StoreError.js"

/**
 * Where the store keeps its data: a folder (made if missing), or `memory://` for a
 * store that lives as long as the process.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly dataDir: string
}

// The two PGlite methods the store uses, typed here so that the package loads (and
// type-checks) without PGlite until a store is opened.
interface PgliteLike {
  readonly query: (text: string, params?: Array<unknown>) => Promise<{ rows: Array<Record<string, unknown>>; affectedRows?: number }>
  readonly transaction: <A>(f: (tx: PgliteLike) => Promise<A>) => Promise<A>
  readonly close?: () => Promise<void>
}

const clientOf = (db: PgliteLike): Sql.SqlClient => ({
  query: async (text, params) => {
    const result = await db.query(text, params === undefined ? undefined : [...params])
    return { rows: result.rows, affected: result.affectedRows ?? 0 }
  },
  transaction: (f) => db.transaction((tx) => f(clientOf(tx))),
})

const folderOf = (dataDir: string): string | undefined =>
  dataDir.startsWith("file://") ? dataDir.slice("file://".length) : dataDir.includes("://") ? undefined : dataDir

/**
 * Opens (and migrates) the store in `dataDir`, making its folders if they do not exist.
 * One process owns a folder while its store is open (a lock file, `hookline.lock`, with
 * its pid): a second opener, in another process or this one, fails at once with
 * `StoreFailed` naming the folder and the holder's pid. `close` frees the folder; a
 * holder that died without closing (SIGKILL) leaves a lock the next opener takes over.
 *
 * @since 0.1.0
 * @category constructors
 */
export const openEffect = (options: Options): Effect.Effect<RunStore.RunStore, StoreError.StoreFailed | StoreError.PeerMissing> =>
  Effect.tryPromise({
    try: async () => {
      // PGlite makes only the last level of a folder path; a path like "data/runs" on a
      // fresh checkout would fail. PGlite's other schemes ("memory://", "idb://") have no folder.
      const folder = folderOf(options.dataDir)
      if (folder !== undefined) await mkdir(folder, { recursive: true })
      // One owner per folder, from before PGlite opens it to after it closed it.
      const lock = folder === undefined ? undefined : FolderLock.take(folder)
      try {
        return await openLocked(options.dataDir, () => lock?.release())
      } catch (cause) {
        lock?.release()
        throw cause
      }
    },
    catch: (cause) => cause instanceof StoreError.PeerMissing ? cause : StoreError.storeFailed(`opening the embedded store in ${options.dataDir}`, cause),
  })

const openLocked = async (dataDir: string, unlock: () => void): Promise<RunStore.RunStore> => {
  const { PGlite } = await importPeer("@electric-sql/pglite", "PgliteStore", () => import("@electric-sql/pglite"))
  // A folder is mounted with Emscripten's NODEFS: every write PostgreSQL makes goes
  // to the file at once (PGlite's syncToFs has nothing to flush for it), so a commit
  // PGlite acknowledged is in the WAL on disk and survives SIGKILL of the process
  // (test/Crash.test.ts). relaxedDurability (acknowledging before the flush) stays off.
  const db = await PGlite.create(dataDir, { relaxedDurability: false })
  const client = clientOf(db as unknown as PgliteLike)
  try {
    await Sql.migrate(client)
  } catch (cause) {
    await db.close()
    throw cause
  }
  let closed: Promise<void> | undefined
  // Closed once, however often `close` is called; the folder is free after it.
  return Sql.make("pglite", client, () => (closed ??= db.close().finally(unlock)))
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const open = (options: Options): Promise<RunStore.RunStore> => Effect.runPromise(openEffect(options))
