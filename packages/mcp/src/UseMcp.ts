/**
 * `UseMcp(server, { tools, prefix, pool })`: the capability that gives an agent the
 * tools of an MCP server. Without a pool the connection is a resource of each run:
 * opened before the run starts (a server that cannot be reached rejects `agent.run`
 * with `McpConnectionFailed`, naming it), closed when the run ends, whatever the
 * outcome. With a pool (`McpPool.make()`) the run uses the pool's process for that
 * server, started by the first run that needs it and kept until the pool closes.
 * Its tools are ordinary tools to the loop: every hook, permission and guard applies.
 *
 * @since 0.1.0
 */
import { type AgentBuilder, Resource, Tool, UseResource } from "@hookline/agent"
import { AgentError } from "@hookline/core"
import { Duration, Effect } from "effect"
import * as PoolInternals from "./internal/PoolInternals.js"
import type * as PooledServer from "./internal/PooledServer.js"
import * as Durations from "./internal/Durations.js"
import * as ToolView from "./internal/ToolView.js"
import * as McpConnection from "./McpConnection.js"
import * as McpPool from "./McpPool.js"
import type * as McpServer from "./McpServer.js"
import type * as McpTool from "./McpTool.js"

const invalid = (path: string, detail: string): never => {
  throw new AgentError.HooklineError(AgentError.invalidConfiguration(path, detail))
}

const optionKeys = ["tools", "prefix", "timeout", "maxOutputLength", "connectTimeout", "pool"]

/**
 * The options of `UseMcp`: those of a connection, and the pool to take the server's
 * process from.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options extends McpConnection.Options {
  /**
   * Share the server's process with every run and agent that uses this pool (see
   * `McpPool`); without it each run starts its own and ends it when the run ends.
   */
  readonly pool?: McpPool.McpPool | undefined
}

const checkDuration = (path: string, timeout: unknown): void => {
  if (timeout === undefined) return
  const duration = Durations.decode(timeout)
  if (duration === undefined || !Duration.isPositive(duration)) {
    invalid(path, "expected a positive duration such as \"30 seconds\" or a number of milliseconds")
  }
}

const checkOptions = (options: unknown): Options => {
  if (typeof options !== "object" || options === null || Array.isArray(options)) return invalid("options", "expected an object")
  for (const key of Object.keys(options)) {
    if (!optionKeys.includes(key)) invalid(`options.${key}`, `unknown option ${JSON.stringify(key)}: expected one of ${optionKeys.join(", ")}`)
  }
  const { tools, prefix, timeout, maxOutputLength, connectTimeout, pool } = options as Options
  if (
    tools !== undefined && typeof tools !== "function"
    && !(Array.isArray(tools) && tools.every((name) => typeof name === "string"))
  ) {
    invalid("options.tools", "expected an array of tool names or a predicate")
  }
  if (prefix !== undefined && (typeof prefix !== "string" || !/^[a-zA-Z0-9_-]{0,32}$/.test(prefix))) {
    invalid("options.prefix", `expected up to 32 letters, digits, "_" or "-", got ${JSON.stringify(prefix) ?? String(prefix)}`)
  }
  checkDuration("options.timeout", timeout)
  checkDuration("options.connectTimeout", connectTimeout)
  Tool.maxOutputLengthOf(maxOutputLength, "options.maxOutputLength")
  if (pool !== undefined && !McpPool.isMcpPool(pool)) invalid("options.pool", "expected a pool made with McpPool.make")
  return Object.freeze({ tools, prefix, timeout, maxOutputLength, connectTimeout, pool })
}

/**
 * The capability `UseMcp` gives: add it to a builder as any capability; `skipped()`
 * lists the server's tools that were not offered, and why (see
 * `McpConnection.skipped`), as the connection most recently opened for a run saw them
 * (empty before the first run).
 *
 * @since 0.1.0
 * @category models
 */
export type McpCapability = AgentBuilder.Capability & {
  readonly skipped: () => ReadonlyArray<McpTool.Skipped>
}

/**
 * The tools of an MCP server, for every run of the agent (see the module's note).
 * Throws `InvalidConfiguration` for a server not made with `McpServer.stdio`/`http`
 * or a bad option.
 *
 * @example
 * ```ts
 * AgentBuilder.make(
 *   UseDriver(driver),
 *   UseMcp(McpServer.stdio({ name: "files", command: "node", args: ["files.mjs"] }), { prefix: "files_" }),
 * )
 * ```
 *
 * @since 0.1.0
 * @category capabilities
 */
export const UseMcp = (server: McpServer.McpServer, options: Options = {}): McpCapability => {
  if (typeof server !== "object" || server === null || (server._tag !== "Stdio" && server._tag !== "Http")) {
    return invalid("server", "expected a server made with McpServer.stdio or McpServer.http")
  }
  const checked = checkOptions(options)
  if (checked.pool !== undefined) return pooled(server, checked, checked.pool)
  let latest: McpConnection.McpConnection | undefined
  const capability = UseResource(Resource.make({
    name: `mcp:${server.name}`,
    open: Effect.map(McpConnection.connect(server, checked), (connection) => {
      latest = connection
      return { tools: connection.tools }
    }),
  }))
  return Object.freeze({ ...capability, skipped: () => latest?.skipped() ?? Object.freeze([]) })
}

// A run over a pooled server: nothing to open when its process is up (the tools are
// made once per tool list, not per run), a wait for its start otherwise. The run's
// abort, or its interruption, stops its own wait only: the start goes on for the others.
const pooled = (server: McpServer.McpServer, options: Options, pool: McpPool.McpPool): McpCapability => {
  const connectMs = Durations.millisOf(options.connectTimeout) ?? McpConnection.connectTimeoutMs
  const callMs = Durations.millisOf(options.timeout)
  // Capabilities that make the same tools of a list share them (the filter picks after).
  const memoKey = JSON.stringify([options.prefix ?? "", options.timeout === undefined ? null : callMs ?? "infinite", options.maxOutputLength ?? null, connectMs])
  let shared: PooledServer.PooledServer | undefined
  let view: ToolView.ToolView | undefined
  let opened: Resource.Opened | undefined
  const capability = UseResource(Resource.make({
    name: `mcp:${server.name}`,
    open: Effect.suspend(() => {
      let from: PooledServer.PooledServer
      try {
        from = PoolInternals.serverOf(pool, server)
      } catch (error) {
        return Effect.fail(error)
      }
      if (from !== shared) {
        const through = from
        const made = ToolView.fromOptions(options, {
          call: (name, args, call) => through.call(name, args, { ...call, timeoutMs: callMs, connectMs }),
        }, through.memo(memoKey))
        shared = through
        view = made
        opened = Object.freeze({ tools: () => made.tools(through.listed()) })
      }
      const ready = opened!
      if (from.current() !== undefined) return Effect.succeed(ready)
      return Effect.callback<Resource.Opened, unknown>((resume) => {
        from.acquire(connectMs).then(() => resume(Effect.succeed(ready)), (error: unknown) => resume(Effect.fail(error)))
      })
    }),
  }))
  return Object.freeze({ ...capability, skipped: () => view?.skipped() ?? Object.freeze([]) })
}
