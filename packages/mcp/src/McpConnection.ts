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
import { AgentError, type JsonObject } from "@hookline/core"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { Duration, Effect, Option, type Scope } from "effect"
import { StdioGroupTransport } from "./internal/StdioGroupTransport.js"
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
export const maxTools = 1_000
const maxPages = 50

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

// Rejects once the signal aborts; never rejects unobserved.
const abortion = (signal: AbortSignal | undefined): { readonly promise: Promise<never>; readonly dispose: () => void } => {
  if (signal === undefined) return { promise: new Promise<never>(() => {}), dispose: () => {} }
  let onAbort = () => {}
  const promise = new Promise<never>((_, reject) => {
    onAbort = () => reject(new Error("connecting was aborted"))
  })
  promise.catch(() => undefined)
  if (signal.aborted) onAbort()
  else signal.addEventListener("abort", onAbort, { once: true })
  return { promise, dispose: () => signal.removeEventListener("abort", onAbort) }
}

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
  let stderr = ""
  const transport = server._tag === "Stdio"
    ? new StdioGroupTransport({ command: server.command, args: server.args, env: server.env, cwd: server.cwd })
    : new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { ...server.headers } } })
  if (transport instanceof StdioGroupTransport) {
    // Kept for the error message; read, so a chatty server never blocks on a full pipe.
    transport.stderr.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString("utf8")).slice(-2_000)
    })
  }
  const ajv = McpTool.newAjv()
  // The SDK checks structured outputs against each tool's output schema: on the same safe ajv.
  const client = new Client(
    { name: "hookline", version: "0.1.0" },
    { capabilities: {}, jsonSchemaValidator: McpTool.outputValidator(ajv) },
  )
  const toolOptions: McpTool.Options = {
    prefix: options.prefix ?? "",
    timeout: options.timeout,
    maxOutputLength: options.maxOutputLength,
  }
  const connectMs = timeoutMs(options.connectTimeout) ?? connectTimeoutMs
  let tools: ReadonlyArray<Tool> = Object.freeze([])
  let skipped: ReadonlyArray<McpTool.Skipped> = Object.freeze([])
  let pending: Promise<void> | undefined
  let again = false
  let closed = false

  const listAll = async (): Promise<ReadonlyArray<McpTool.Listed>> => {
    const all: Array<McpTool.Listed> = []
    let cursor: string | undefined
    for (let page = 0; page < maxPages && all.length < maxTools; page++) {
      const result = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout: connectMs })
      all.push(...(result.tools as ReadonlyArray<McpTool.Listed>))
      cursor = result.nextCursor
      if (cursor === undefined) break
    }
    return all.slice(0, maxTools)
  }
  const caller: McpTool.Caller = {
    call: async (name, args, call) => {
      const ms = timeoutMs(options.timeout)
      const result = await client.callTool(
        { name, arguments: { ...args }, _meta: { [McpTool.idempotencyKeyMeta]: call.idempotencyKey } },
        undefined,
        { signal: call.signal, ...(ms === undefined ? {} : { timeout: ms }) },
      )
      // A call that changed the list (the server announced it before answering) gives
      // its result once the new list is in, so the next step sees it.
      if (pending !== undefined) await pending
      return result as McpTool.CallResult
    },
  }
  const apply = (listed: ReadonlyArray<McpTool.Listed>): void => {
    const made: Array<Tool> = []
    const left: Array<McpTool.Skipped> = []
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
    // The SDK client closes its transport; this waits until a stdio server's group is gone.
    await transport.close().catch(() => undefined)
  }

  const aborted = abortion(signal)
  try {
    const opening = (async () => {
      await client.connect(transport, { timeout: connectMs, ...(signal === undefined ? {} : { signal }) })
      apply(await listAll())
    })()
    opening.catch(() => undefined)
    await Promise.race([opening, aborted.promise])
  } catch (error) {
    // Aborted: no grace for a server that may never answer.
    if (signal?.aborted === true && transport instanceof StdioGroupTransport) transport.kill()
    await close()
    const tail = stderr.trim()
    throw new McpConnectionFailed({
      server: server.name,
      message: `cannot connect to the MCP server "${server.name}" (${McpServer.describe(server)}): ${
        signal?.aborted === true ? "aborted" : AgentError.messageOf(error)
      }${tail === "" ? "" : `; its stderr ends with: ${tail.slice(-500)}`}`,
    })
  } finally {
    aborted.dispose()
  }
  return Object.freeze({
    server,
    tools: () => tools,
    skipped: () => skipped,
    pid: transport instanceof StdioGroupTransport ? transport.pid : undefined,
    close,
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
