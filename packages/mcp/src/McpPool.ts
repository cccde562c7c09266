/**
 * A pool of MCP server connections shared by runs and agents: each server is started
 * (and handshaken, and its tools listed) once, when a run first needs it, and kept
 * until the pool closes. Give it to `UseMcp(server, { pool })`. Servers are keyed by
 * their whole launch spec (command, arguments, working directory, environment; URL and
 * headers), so per-tenant settings never share a process. A pooled server is pinged on
 * a timer and started again, with backoff, when its process dies or stops answering:
 * the calls in flight fail as tool errors (`McpServerExited`), later calls and runs get
 * the new process. A run aborted while its server starts leaves the start going for
 * the others. `close` ends every process (each server's whole process group).
 *
 * @since 0.1.0
 */
import { AgentError } from "@hookline/core"
import { Duration, Effect, type Scope } from "effect"
import * as Backoff from "./internal/Backoff.js"
import * as Durations from "./internal/Durations.js"
import * as LaunchKey from "./internal/LaunchKey.js"
import * as PoolInternals from "./internal/PoolInternals.js"
import * as PooledServer from "./internal/PooledServer.js"
import { McpConnectionFailed } from "./McpError.js"
import type * as McpServer from "./McpServer.js"

/**
 * Where a pooled server is: `connecting` (starting, or waiting out its backoff),
 * `open`, `down` (its last start failed; the next use tries again once the backoff
 * allows), `closed`.
 *
 * @since 0.1.0
 * @category models
 */
export type Status = "connecting" | "open" | "down" | "closed"

/**
 * A server of the pool as it is now (`pool.servers()`).
 *
 * @since 0.1.0
 * @category models
 */
export interface ServerInfo {
  /** The name given to `McpServer.stdio`/`McpServer.http`. */
  readonly name: string
  readonly status: Status
  /** The process of a stdio server while it is open. */
  readonly pid: number | undefined
  /** How many times its process ended (died, or failed a health check) and was started again. */
  readonly restarts: number
}

/**
 * @since 0.1.0
 * @category models
 */
export interface McpPool {
  readonly _tag: "McpPool"
  /** The servers the pool has started, in the order it first did. */
  readonly servers: () => ReadonlyArray<ServerInfo>
  /**
   * Ends every server's process group and stops any start under way; resolves once no
   * process is left. Runs that use the pool afterwards are refused with
   * `McpConnectionFailed`; calls in flight fail as tool errors. Idempotent; never rejects.
   */
  readonly close: () => Promise<void>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /**
   * Ping each open server every `interval` (default 30 s); one that does not answer
   * within `timeout` (default 10 s) is ended and started again. `false`: no pings (a
   * process that exits is still noticed at once).
   */
  readonly healthCheck?: false | {
    readonly interval?: Duration.Input | undefined
    readonly timeout?: Duration.Input | undefined
  } | undefined
  /**
   * The wait before a server is started again after a failure (its process died, a
   * handshake or a health check failed): `initial` (default 100 ms), doubled with each
   * failure in a row, at most `max` (default 30 s). A call or ping that succeeds resets it.
   */
  readonly restartBackoff?: {
    readonly initial?: Duration.Input | undefined
    readonly max?: Duration.Input | undefined
  } | undefined
}

const invalid = (path: string, detail: string): never => {
  throw new AgentError.HooklineError(AgentError.invalidConfiguration(path, detail))
}

const millis = (path: string, input: unknown, fallback: number): number => {
  if (input === undefined) return fallback
  const duration = Durations.decode(input)
  if (duration === undefined || !Duration.isPositive(duration) || !Duration.isFinite(duration)) {
    return invalid(path, "expected a positive, finite duration such as \"30 seconds\" or a number of milliseconds")
  }
  return Duration.toMillis(duration)
}

const object = (path: string, u: unknown, keys: ReadonlyArray<string>): Readonly<Record<string, unknown>> => {
  if (typeof u !== "object" || u === null || Array.isArray(u)) return invalid(path, "expected an object")
  for (const key of Object.keys(u)) {
    if (!keys.includes(key)) invalid(`${path}.${key}`, `unknown option ${JSON.stringify(key)}: expected one of ${keys.join(", ")}`)
  }
  return u as Readonly<Record<string, unknown>>
}

const settingsOf = (options: unknown): PooledServer.Settings => {
  const { healthCheck, restartBackoff } = object("options", options, ["healthCheck", "restartBackoff"])
  const backoff = object("options.restartBackoff", restartBackoff ?? {}, ["initial", "max"])
  const initialMs = millis("options.restartBackoff.initial", backoff["initial"], Backoff.defaults.initialMs)
  const maxMs = millis("options.restartBackoff.max", backoff["max"], Math.max(Backoff.defaults.maxMs, initialMs))
  if (maxMs < initialMs) invalid("options.restartBackoff.max", "expected at least the initial wait")
  if (healthCheck === false) return { backoff: { initialMs, maxMs }, healthCheck: undefined }
  const health = object("options.healthCheck", healthCheck ?? {}, ["interval", "timeout"])
  return {
    backoff: { initialMs, maxMs },
    healthCheck: {
      intervalMs: millis("options.healthCheck.interval", health["interval"], 30_000),
      timeoutMs: millis("options.healthCheck.timeout", health["timeout"], 10_000),
    },
  }
}

/**
 * An empty pool: nothing starts until a run uses one of its servers. Close it when
 * done (`await pool.close()`), or make it with `scoped`. Throws `InvalidConfiguration`
 * naming a bad option.
 *
 * @example
 * ```ts
 * import { AgentBuilder, UseDriver } from "@hookline/agent"
 * import { McpPool, McpServer, UseMcp } from "@hookline/mcp"
 * import { ScriptedDriver } from "@hookline/testing"
 *
 * const pool = McpPool.make()
 * const files = McpServer.stdio({ name: "files", command: "node", args: ["files-server.mjs"] })
 * const agent = AgentBuilder.make(UseDriver(ScriptedDriver.make([ScriptedDriver.text("done")])), UseMcp(files, { pool }))
 * try {
 *   await agent.run("list the files") // starts the server
 *   await agent.run("and again") // the same process, no handshake
 * } finally {
 *   await pool.close() // no process left
 * }
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options = {}): McpPool => {
  const settings = settingsOf(options)
  const servers = new Map<string, PooledServer.PooledServer>()
  let closing: Promise<void> | undefined
  const serverFor = (server: McpServer.McpServer): PooledServer.PooledServer => {
    if (closing !== undefined) {
      throw new McpConnectionFailed({ server: server.name, message: `the MCP server "${server.name}" is not available: its pool is closed` })
    }
    const key = LaunchKey.of(server)
    let pooled = servers.get(key)
    if (pooled === undefined) {
      pooled = PooledServer.make(server, settings)
      servers.set(key, pooled)
    }
    return pooled
  }
  const pool: McpPool = {
    _tag: "McpPool",
    servers: () =>
      Object.freeze([...servers.values()].map((s) =>
        Object.freeze({ name: s.server.name, status: s.status(), pid: s.pid(), restarts: s.restarts() })
      )),
    close: () => {
      closing ??= Promise.all([...servers.values()].map((s) => s.close())).then(() => undefined)
      return closing
    },
  }
  Object.defineProperty(pool, PoolInternals.internals, { value: Object.freeze({ serverFor } satisfies PoolInternals.Internals) })
  return Object.freeze(pool)
}

/**
 * A pool closed when the scope closes (every process gone before the scope's close
 * completes).
 *
 * @since 0.1.0
 * @category constructors
 */
export const scoped = (options: Options = {}): Effect.Effect<McpPool, never, Scope.Scope> =>
  Effect.acquireRelease(Effect.sync(() => make(options)), (pool) => Effect.promise(() => pool.close()))

/**
 * @since 0.1.0
 * @category guards
 */
export const isMcpPool = (u: unknown): u is McpPool =>
  typeof u === "object" && u !== null && (u as { readonly _tag?: unknown })._tag === "McpPool"
  && PoolInternals.hasInternals(u)
