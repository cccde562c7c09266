// A store the tests of a file (or a describe) share: opened in `beforeAll` (a new PGlite
// folder's first open and an embedded server's start take seconds), closed in `afterAll`
// with its folder or server, whatever happened. `then` runs once it is open (fixtures).
import { afterAll, beforeAll } from "vitest"
import { PgliteStore, PostgresStore, RunStore } from "../../src/index.js"
import { temporaryFolder } from "./folders.js"
import { startPostgres, type Server } from "./postgres.js"

type Then = (store: RunStore.RunStore) => Promise<void>

interface Opened {
  readonly store: RunStore.RunStore
  /** Lets go of what the store stood on (its folder, its server), after the store closed. */
  readonly release: () => Promise<void>
}

// Opens before the tests, closes and releases after them; the getter is the open store.
const forAll = (what: string, open: () => Promise<Opened>, then: Then | undefined): (() => Opened) => {
  let opened: Opened | undefined
  beforeAll(async () => {
    opened = await open()
    await then?.(opened.store)
  }, 120_000)
  afterAll(async () => {
    try {
      if (opened !== undefined) await RunStore.close(opened.store)
    } finally {
      await opened?.release()
    }
  }, 60_000)
  return () => {
    if (opened === undefined) throw new Error(`the ${what} is open only inside the tests of its file`)
    return opened
  }
}

/** A PgliteStore on a temporary folder (named after `label`), for the tests that follow. */
export const pgliteForAll = (label: string, then?: Then): { readonly store: RunStore.RunStore } => {
  const folder = temporaryFolder(label)
  const current = forAll("PGlite store", async () => {
    try {
      return { store: await PgliteStore.open({ dataDir: folder.path }), release: async () => folder.remove() }
    } catch (error) {
      folder.remove()
      throw error
    }
  }, then)
  return {
    get store() {
      return current().store
    },
  }
}

/** A PostgresStore on an embedded PostgreSQL server of its own, for the tests that follow. */
export const postgresForAll = (then?: Then): { readonly store: RunStore.RunStore; readonly server: Server } => {
  let server: Server | undefined
  const current = forAll("PostgreSQL store", async () => {
    const started = await startPostgres()
    server = started
    try {
      return { store: await PostgresStore.open({ connectionString: started.connectionString }), release: () => started.stop() }
    } catch (error) {
      await started.stop()
      throw error
    }
  }, then)
  return {
    get store() {
      return current().store
    },
    get server() {
      current()
      return server as Server
    },
  }
}
