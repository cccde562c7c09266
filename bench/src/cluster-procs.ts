/**
 * The processes of the cluster bench: `hookline-runner` processes on 127.0.0.1 (from the
 * package's source, with tsx), what the bench reads of them from outside (CPU time from
 * /proc, heap through the agents module's SIGUSR2), and PostgreSQL's count of write
 * transactions.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { createServer } from "node:net"
import { fileURLToPath } from "node:url"
import pg from "pg"

const root = fileURLToPath(new URL("../..", import.meta.url))
const bin = fileURLToPath(new URL("../../packages/cluster/src/bin/runner.ts", import.meta.url))
const agentsModule = fileURLToPath(new URL("./cluster-agents.ts", import.meta.url))

export interface RunnerProc {
  readonly pid: number
  /** Its address as effect/cluster stores it (`cluster_runners.address`). */
  readonly address: string
  readonly child: ChildProcess
  readonly exited: Promise<void>
}

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.on("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
    })
  })

/**
 * A runner, answered once it is ready; `args` are its settings flags (none: the shipped
 * defaults), `nodeArgs` node's own (`--cpu-prof`, which NODE_OPTIONS refuses), `entry`
 * another main taking the same flags (the timeline's runner); its agents module is
 * cluster-agents.ts.
 */
export const startRunner = async (
  database: string,
  args: ReadonlyArray<string>,
  env: Record<string, string> = {},
  nodeArgs: ReadonlyArray<string> = [],
  entry: string = bin,
): Promise<RunnerProc> => {
  const port = await freePort()
  const child = spawn(
    process.execPath,
    [...nodeArgs, "--conditions=@hookline/source", "--expose-gc", "--import", "tsx", entry, "--agents", agentsModule, "--db", database, "--port", String(port), ...args],
    { cwd: root, env: { ...process.env, ...env }, stdio: ["ignore", "ignore", "pipe"] },
  )
  let stderr = ""
  const exited = new Promise<void>((resolve) => child.on("close", () => resolve()))
  await new Promise<void>((resolve, reject) => {
    child.stderr?.on("data", (d) => {
      stderr += String(d)
      if (stderr.includes("hookline-runner ready")) resolve()
    })
    void exited.then(() => reject(new Error(`a runner exited before it was ready:\n${stderr.slice(-2_000)}`)))
  })
  return { pid: child.pid as number, address: `127.0.0.1:${port}`, child, exited }
}

/** Stops runners gracefully (SIGTERM), killing one that has not exited within 30 s. */
export const stopRunners = async (runners: ReadonlyArray<RunnerProc>): Promise<void> => {
  for (const r of runners) r.child.kill("SIGTERM")
  await Promise.all(runners.map((r) =>
    Promise.race([r.exited, new Promise<void>((resolve) => setTimeout(() => {
      r.child.kill("SIGKILL")
      resolve()
    }, 30_000))])
  ))
}

const ticksPerSecond = 100 // USER_HZ: 100 on Linux for /proc's clock ticks

/** A process's CPU time so far (user + system), ms, from /proc/<pid>/stat. */
export const cpuMillis = (pid: number): number => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  // Fields after the command name (which may hold spaces): utime is the 14th field, stime the 15th.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return ((Number(fields[11]) + Number(fields[12])) * 1_000) / ticksPerSecond
}

/** The heap a runner holds after two full collections, bytes (asked through SIGUSR2). */
export const heapOf = async (runner: RunnerProc, memLog: string): Promise<number> => {
  const lines = () => (existsSync(memLog) ? readFileSync(memLog, "utf8").split("\n").filter((l) => l !== "") : [])
  const before = lines().length
  runner.child.kill("SIGUSR2")
  const began = Date.now()
  while (lines().length === before) {
    if (Date.now() - began > 30_000) throw new Error("the runner did not report its heap")
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return Number(lines().at(-1))
}

/**
 * Write transactions PostgreSQL has begun so far (committed or not): the next transaction
 * id, read from a snapshot (`pg_snapshot_xmax`), which assigns none itself. Exact at once,
 * where `pg_stat_database.xact_commit` is not: each backend reports its counts at most
 * once a second and, once idle, only after 10 s (PGSTAT_IDLE_INTERVAL), and
 * `pg_stat_force_next_flush()` reaches the calling backend only, so a fast batch read 2 s
 * after it lost most of its commits (a 200-run in-process batch read 1.3 a run). A
 * read-only transaction takes no id: it costs no flush either.
 */
export const writeTransactions = async (database: string): Promise<number> => {
  const client = new pg.Client({ connectionString: database })
  await client.connect()
  try {
    const result = await client.query<{ readonly n: string }>("SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS n")
    return Number(result.rows[0]?.n ?? 0)
  } finally {
    await client.end()
  }
}
