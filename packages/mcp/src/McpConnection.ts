/**
 * An open connection to an MCP server through the official SDK client: the server's
 * tools as hookline tools, kept up to date when the server announces a change, and a
 * `close` that leaves nothing behind: a stdio server runs as the leader of its own
 * process group, and the whole group is gone when `close` resolves (a server started
 * through `sh -c` or `npx` included). Connecting can be aborted (a signal, or the
 * Effect's interruption): the handshake stops and the group is killed at once.
 *
 * @since 0.1.0
 */
import type { Tool } from "@hookline/agent"
import { AgentError } from "@hookline/core"
import { Effect, type Scope } from "effect"
import * as McpSession from "./internal/McpSession.js"
import * as Durations from "./internal/Durations.js"
import * as ToolView from "./internal/ToolView.js"
import { McpConnectionFailed } from "./McpError.js"
import type * as McpServer from "./McpServer.js"
import type * as McpTool from "./McpTool.js"

/**
 * Which of the server's tools the agent gets: a list of names, or a predicate on each
 * listed tool. Names are the server's, before any prefix.
 *
 * @since 0.1.0
 * @category models
 */
export type ToolFilter =
  | ReadonlyArray<string>
  | ((tool: { readonly name: string; readonly description: string }) => boolean)

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly tools?: ToolFilter | undefined
  /** Put before each tool's name: `files_` makes `read` into `files_read`. */
  readonly prefix?: string | undefined
  /** How long one call may take (`"30 seconds"`, or milliseconds); default 60 s. */
  readonly timeout?: Tool.Options<unknown>["timeout"]
  /** The longest output the model gets from one call; default the agent's. */
  readonly maxOutputLength?: number | undefined
  /** How long the MCP handshake and the first tool list may take; default 30 s. */
  readonly connectTimeout?: Tool.Options<unknown>["timeout"]
}

/**
 * @since 0.1.0
 * @category models
 */
export interface McpConnection {
  readonly server: McpServer.McpServer
  /** The server's tools now (the same array until the list changes). */
  readonly tools: () => ReadonlyArray<Tool>
  /**
   * Listed tools that are not offered, and why: a bad name, or a schema that cannot be
   * checked safely (a `$ref` cycle, too deep or too large, a pattern that cannot run in
   * linear time). Follows the tool list as it changes.
   */
  readonly skipped: () => ReadonlyArray<McpTool.Skipped>
  /** The child process of a stdio server (the leader of its process group). */
  readonly pid: number | undefined
  /** Closes the session and ends the child process; never rejects; idempotent. */
  readonly close: () => Promise<void>
}

/** How long the MCP handshake and the first tool list may take, by default. */
export const connectTimeoutMs = 30_000

/** The most tools taken from one server, and pages of `tools/list` read. */
export const maxTools = McpSession.maxTools

/**
 * Connects, lists the tools, and returns the connection. Rejects with
 * `McpConnectionFailed` naming the server; whatever was started is closed first. When
 * `signal` aborts before the connection is open, the handshake stops, a stdio server's
 * process group is killed at once, and it rejects (`McpConnectionFailed`, "aborted").
 *
 * @since 0.1.0
 * @category constructors
 */
export const open = async (
  server: McpServer.McpServer,
  options: Options = {},
  signal?: AbortSignal | undefined,
): Promise<McpConnection> => {
  const session = await McpSession.open(server, Durations.millisOf(options.connectTimeout) ?? connectTimeoutMs, signal)
  const callMs = Durations.millisOf(options.timeout)
  const view = ToolView.fromOptions(options, {
    call: (name, args, call) => session.call(name, args, { ...call, timeoutMs: callMs }),
  })
  return Object.freeze({
    server,
    tools: () => view.tools(session.listed()),
    skipped: () => (view.tools(session.listed()), view.skipped()),
    pid: session.pid,
    close: session.close,
  })
}

/**
 * `open` as a scoped Effect: the connection closes when the scope does. Interrupting it
 * while it connects stops the handshake and kills a stdio server's group at once.
 *
 * @since 0.1.0
 * @category constructors
 */
export const connect = (
  server: McpServer.McpServer,
  options: Options = {},
): Effect.Effect<McpConnection, McpConnectionFailed, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.callback<McpConnection, McpConnectionFailed>((resume, signal) => {
      // Interruption aborts the signal: `open` stops and cleans up, and the interruption
      // ends once it has (a connection that opened in that very moment is closed).
      const opening = open(server, options, signal)
      opening.then(
        (connection) => resume(Effect.succeed(connection)),
        (error: unknown) =>
          resume(Effect.fail(
            error instanceof McpConnectionFailed
              ? error
              : new McpConnectionFailed({ server: server.name, message: AgentError.messageOf(error) }),
          )),
      )
      return Effect.promise(() => opening.then((connection) => connection.close(), () => undefined))
    }),
    (connection) => Effect.promise(() => connection.close()),
    { interruptible: true },
  )
