/**
 * What `UseMcp` reads of a pool and users do not: its pooled server for a launch spec.
 * Kept under a symbol, so the public `McpPool` stays `servers` and `close`.
 *
 * @internal
 */
import type * as McpServer from "../McpServer.js"
import type * as PooledServer from "./PooledServer.js"

/** The key of a pool's internals. */
export const internals: unique symbol = Symbol.for("@hookline/mcp/McpPool") as never

/**
 * @internal
 */
export interface Internals {
  /** The pooled server for `server`'s launch spec, made on first use; throws once the pool is closed. */
  readonly serverFor: (server: McpServer.McpServer) => PooledServer.PooledServer
}

/**
 * The pooled server of `pool` for `server`. Throws `McpConnectionFailed` once the pool
 * is closed.
 *
 * @internal
 */
export const serverOf = (pool: object, server: McpServer.McpServer): PooledServer.PooledServer =>
  (pool as { readonly [internals]: Internals })[internals].serverFor(server)

/**
 * Whether `u` carries a pool's internals.
 *
 * @internal
 */
export const hasInternals = (u: object): boolean => internals in u
