// A store the tests of a file (or a describe) share: opened in `beforeAll` (a new PGlite
// folder's first open and an embedded server's start take seconds), closed in `afterAll`
// with its folder or server, whatever happened. `then` runs once it is open (fixtures).
import { afterAll, beforeAll } from "vitest"
import { PgliteStore, PostgresStore, RunStore } from "../../src/index.js"
import { temporaryFolder } from "./folders.js"
import { startPostgres, type Server } from "./postgres.js"

type Then = (store: RunStore.RunStore) => Promise<void>

const opened = <A>(value: A | undefined, what: string): A => {
  if (value === undefined) throw new Error(`the ${what} is open only inside the tests of its file`)
  return value
}

/** A PgliteStore on a temporary folder (named after `label`), for the tests that follow. */
export const pgliteForAll = (label: string, then?: Then): { readonly store: RunStore.RunStore } => {
  const folder = temporaryFolder(label)
  let store: RunStore.RunStore | undefined
  beforeAll(async () => {
    store = await PgliteStore.open({ dataDir: folder.path })
    await then?.(store)
  }, 120_000)
  afterAll(async () => {
    try {
      if (store !== undefined) await RunStore.close(store)
    } finally {
      folder.remove()
    }
  })
  return {
    get store() {
      return opened(store, "PGlite store")
    },
  }
}

/** A PostgresStore on an embedded PostgreSQL server of its own, for the tests that follow. */
export const postgresForAll = (then?: Then): { readonly store: RunStore.RunStore; readonly server: Server } => {
  let server: Server | undefined
  let store: RunStore.RunStore | undefined
  beforeAll(async () => {
    server = await startPostgres()
    store = await PostgresStore.open({ connectionString: server.connectionString })
    await then?.(store)
  }, 120_000)
  afterAll(async () => {
    try {
      if (store !== undefined) await RunStore.close(store)
    } finally {
      await server?.stop()
    }
  }, 60_000)
  return {
    get store() {
      return opened(store, "PostgreSQL store")
    },
    get server() {
      return opened(server, "PostgreSQL server")
    },
  }
}
