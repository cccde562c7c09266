/**
 * `UseMcp(server, { tools, prefix })`: the capability that gives an agent the tools of
 * an MCP server. The connection is a resource of each run: opened before the run
 * starts (a server that cannot be reached rejects `agent.run` with
 * `McpConnectionFailed`, naming it), closed when the run ends, whatever the outcome.
 * Its tools are ordinary tools to the loop: every hook, permission and guard applies.
 *
 * @since 0.1.0
 */
import { type AgentBuilder, Resource, Tool, UseResource } from "@hookline/agent"
import { AgentError } from "@hookline/core"
import { Duration, Effect, Option } from "effect"
import * as McpConnection from "./McpConnection.js"
import type * as McpServer from "./McpServer.js"
import type * as McpTool from "./McpTool.js"

const invalid = (path: string, detail: string): never => {
  throw new AgentError.HooklineError(AgentError.invalidConfiguration(path, detail))
}

const optionKeys = ["tools", "prefix", "timeout", "maxOutputLength", "connectTimeout"]

const checkDuration = (path: string, timeout: unknown): void => {
  if (timeout === undefined) return
  let duration: Option.Option<Duration.Duration>
  try {
    duration = Duration.fromInput(timeout as Duration.Input)
  } catch {
    duration = Option.none()
  }
  if (Option.isNone(duration) || !Duration.isPositive(duration.value)) {
    invalid(path, "expected a positive duration such as \"30 seconds\" or a number of milliseconds")
  }
}

const checkOptions = (options: unknown): McpConnection.Options => {
  if (typeof options !== "object" || options === null || Array.isArray(options)) return invalid("options", "expected an object")
  for (const key of Object.keys(options)) {
    if (!optionKeys.includes(key)) invalid(`options.${key}`, `unknown option ${JSON.stringify(key)}: expected one of ${optionKeys.join(", ")}`)
  }
  const { tools, prefix, timeout, maxOutputLength, connectTimeout } = options as McpConnection.Options
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
  return Object.freeze({ tools, prefix, timeout, maxOutputLength, connectTimeout })
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
export const UseMcp = (server: McpServer.McpServer, options: McpConnection.Options = {}): McpCapability => {
  if (typeof server !== "object" || server === null || (server._tag !== "Stdio" && server._tag !== "Http")) {
    return invalid("server", "expected a server made with McpServer.stdio or McpServer.http")
  }
  const checked = checkOptions(options)
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
