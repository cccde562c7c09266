/**
 * An open connection to an MCP server through the official SDK client: the server's
 * tools as hookline tools, kept up to date when the server announces a change, and a
 * `close` that leaves nothing behind (the child process of a stdio server is gone
 * when it resolves).
 *
 * @since 0.1.0
 */
import type { Tool } from "@hookline/agent"
import { AgentError, type JsonObject } from "@hookline/core"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { Duration, Effect, Option, type Scope } from "effect"
import { McpConnectionFailed } from "./McpError.js"
import * as McpServer from "./McpServer.js"
import * as McpTool from "./McpTool.js"

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
}

/**
 * @since 0.1.0
 * @category models
 */
export interface McpConnection {
  readonly server: McpServer.McpServer
  /** The server's tools now (the same array until the list changes). */
  readonly tools: () => ReadonlyArray<Tool>
  /** Listed tools that could not be offered, and why (a bad name or schema). */
  readonly skipped: () => ReadonlyArray<string>
  /** The child process of a stdio server, while it runs. */
  readonly pid: number | undefined
  /** Closes the session and ends the child process; never rejects; idempotent. */
  readonly close: () => Promise<void>
}

/** How long the MCP handshake and the first tool list may take. */
export const connectTimeoutMs = 30_000

/** The most tools taken from one server, and pages of `tools/list` read. */
export const maxTools = 1_000
const maxPages = 50

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

// The SDK kills a child that will not exit but does not wait for it: wait here, so a
// closed connection has no process left.
const reap = async (pid: number): Promise<void> => {
  for (let i = 0; i < 200 && isAlive(pid); i++) {
    if (i === 100) {
      try {
        process.kill(pid, "SIGKILL")
      } catch {
        return
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

const selected = (filter: ToolFilter | undefined, listed: McpTool.Listed): boolean => {
  if (filter === undefined) return true
  if (typeof filter === "function") {
    try {
      return filter({ name: listed.name, description: typeof listed.description === "string" ? listed.description : "" }) === true
    } catch {
      return false
    }
  }
  return filter.includes(listed.name)
}

const timeoutMs = (timeout: Options["timeout"]): number | undefined => {
  if (timeout === undefined) return undefined
  const duration = Duration.fromInput(timeout)
  return Option.isSome(duration) && Duration.isFinite(duration.value) ? Duration.toMillis(duration.value) : undefined
}

/**
 * Connects, lists the tools, and returns the connection. Rejects with
 * `McpConnectionFailed` naming the server; whatever was started is closed first.
 *
 * @since 0.1.0
 * @category constructors
 */
export const open = async (server: McpServer.McpServer, options: Options = {}): Promise<McpConnection> => {
  let stderr = ""
  const transport = server._tag === "Stdio"
    ? new StdioClientTransport({
      command: server.command,
      args: [...server.args],
      ...(server.env === undefined ? {} : { env: { ...server.env } }),
      ...(server.cwd === undefined ? {} : { cwd: server.cwd }),
      stderr: "pipe",
    })
    : new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { ...server.headers } } })
  if (transport instanceof StdioClientTransport) {
    // Kept for the error message; read, so a chatty server never blocks on a full pipe.
    transport.stderr?.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString("utf8")).slice(-2_000)
    })
  }
  const client = new Client({ name: "hookline", version: "0.1.0" }, { capabilities: {} })
  const ajv = McpTool.newAjv()
  const toolOptions: McpTool.Options = {
    prefix: options.prefix ?? "",
    timeout: options.timeout,
    maxOutputLength: options.maxOutputLength,
  }
  let tools: ReadonlyArray<Tool> = Object.freeze([])
  let skipped: ReadonlyArray<string> = Object.freeze([])
  let pending: Promise<void> | undefined
  let again = false
  let pid: number | undefined
  let closed = false

  const listAll = async (): Promise<ReadonlyArray<McpTool.Listed>> => {
    const all: Array<McpTool.Listed> = []
    let cursor: string | undefined
    for (let page = 0; page < maxPages && all.length < maxTools; page++) {
      const result = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout: connectTimeoutMs })
      all.push(...(result.tools as ReadonlyArray<McpTool.Listed>))
      cursor = result.nextCursor
      if (cursor === undefined) break
    }
    return all.slice(0, maxTools)
  }
  const caller: McpTool.Caller = {
    call: async (name: string, args: JsonObject, signal: AbortSignal) => {
      const ms = timeoutMs(options.timeout)
      const result = await client.callTool({ name, arguments: { ...args } }, undefined, {
        signal,
        ...(ms === undefined ? {} : { timeout: ms }),
      })
      // A call that changed the list (the server announced it before answering) gives
      // its result once the new list is in, so the next step sees it.
      if (pending !== undefined) await pending
      return result as McpTool.CallResult
    },
  }
  const apply = (listed: ReadonlyArray<McpTool.Listed>): void => {
    const made: Array<Tool> = []
    const left: Array<string> = []
    for (const entry of listed) {
      if (!selected(options.tools, entry)) continue
      const result = McpTool.make(entry, caller, toolOptions, ajv)
      if ("tool" in result) made.push(result.tool)
      else left.push(result.skipped)
    }
    tools = Object.freeze(made)
    skipped = Object.freeze(left)
  }
  const refresh = (): Promise<void> => {
    if (pending !== undefined) {
      again = true
      return pending
    }
    pending = (async () => {
      do {
        again = false
        apply(await listAll())
      } while (again)
    })()
      // A failed refresh keeps the last list; the calls themselves will report a dead server.
      .catch(() => undefined)
      .finally(() => {
        pending = undefined
      })
    return pending
  }
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    void refresh()
  })

  const close = async (): Promise<void> => {
    if (closed) return
    closed = true
    if (transport instanceof StreamableHTTPClientTransport && transport.sessionId !== undefined) {
      await transport.terminateSession().catch(() => undefined)
    }
    await client.close().catch(() => undefined)
    if (pid !== undefined) await reap(pid)
  }

  try {
    await client.connect(transport, { timeout: connectTimeoutMs })
    if (transport instanceof StdioClientTransport) pid = transport.pid ?? undefined
    apply(await listAll())
  } catch (error) {
    if (transport instanceof StdioClientTransport) pid ??= transport.pid ?? undefined
    await close()
    const tail = stderr.trim()
    throw new McpConnectionFailed({
      server: server.name,
      message: `cannot connect to the MCP server "${server.name}" (${McpServer.describe(server)}): ${AgentError.messageOf(error)}${
        tail === "" ? "" : `; its stderr ends with: ${tail.slice(-500)}`
      }`,
    })
  }
  return Object.freeze({
    server,
    tools: () => tools,
    skipped: () => skipped,
    pid,
    close,
  })
}

/**
 * `open` as a scoped Effect: the connection closes when the scope does.
 *
 * @since 0.1.0
 * @category constructors
 */
export const connect = (
  server: McpServer.McpServer,
  options: Options = {},
): Effect.Effect<McpConnection, McpConnectionFailed, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: () => open(server, options),
      catch: (error) =>
        error instanceof McpConnectionFailed
          ? error
          : new McpConnectionFailed({ server: server.name, message: AgentError.messageOf(error) }),
    }),
    (connection) => Effect.promise(() => connection.close()),
  )
