// One embedded PostgreSQL per test file, to be crashed (an immediate shutdown) by its tests.
// Its WAL writer waits 10 s between flushes (`wal_writer_delay`, at its longest), so a
// commit that did not wait for the flush is still unflushed when the crash comes.
import { afterAll, beforeAll } from "vitest"
import { startPostgres, type Server } from "./postgres.js"

export const crashableServer = (): (() => Server) => {
  let server: Server | undefined
  beforeAll(async () => {
    server = await startPostgres(["wal_writer_delay=10000ms"])
  }, 120_000)
  afterAll(async () => {
    await server?.stop()
  }, 60_000)
  return () => {
    if (server === undefined) throw new Error("the server is started in beforeAll")
    return server
  }
}
