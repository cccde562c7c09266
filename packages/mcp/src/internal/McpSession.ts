/**
 * One MCP session through the official SDK client: the handshake, the server's tool
 * list (listed once, listed again when the server announces a change), calls, pings,
 * and a `close` that leaves no process behind. What tools the agent makes of the list
 * is not its business (see `ToolView`): an `McpConnection` has one session, a pooled
 * server has one session per process it started.
 *
 * @internal
 */
import { AgentError } from "@hookline/core"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { McpConnectionFailed, McpServerExited } from "../McpError.js"
import * as McpServer from "../McpServer.js"
import * as McpTool from "../McpTool.js"
import { StdioGroupTransport } from "./StdioGroupTransport.js"

/** The most tools taken from one server, and pages of `tools/list` read. */
export const maxTools = 1_000
const maxPages = 50

/**
 * @internal
 */
export interface Session {
  readonly server: McpServer.McpServer
  /** The child process of a stdio server (the leader of its process group). */
  readonly pid: number | undefined
  /** The tools as the server listed them last (the same array until the list changes). */
  readonly listed: () => ReadonlyArray<McpTool.Listed>
  /**
   * Calls a tool. Rejects with `McpServerExited` when the session ended by itself
   * (the process died) before the answer came.
   */
  readonly call: (
    name: string,
    args: Readonly<Record<string, unknown>>,
    call: { readonly signal: AbortSignal; readonly idempotencyKey: string; readonly timeoutMs: number | undefined },
  ) => Promise<McpTool.CallResult>
  /** An MCP `ping`; rejects when the server does not answer within `timeoutMs`. */
  readonly ping: (timeoutMs: number) => Promise<void>
  /** Whether the session is still open: not closed, and its process has not ended. */
  readonly isOpen: () => boolean
  /** Called once when the session ends by itself (not through `close`), with why. */
  readonly onEnded: (listener: (reason: string) => void) => void
  /**
   * Ends a session that is no longer healthy: as if its process had died (calls in
   * flight fail with `McpServerExited` giving `reason`, `onEnded` listeners run), and
   * its process group is killed at once.
   */
  readonly terminate: (reason: string) => Promise<void>
  /** Closes the session and ends the server's process group; never rejects; idempotent. */
  readonly close: () => Promise<void>
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

const exitText = (transport: StdioGroupTransport | StreamableHTTPClientTransport): string => {
  if (!(transport instanceof StdioGroupTransport) || transport.exit === undefined) return "the connection closed"
  const { code, signal } = transport.exit
  return signal !== null ? `its process was ended by ${signal}` : `its process exited with code ${code}`
}

/**
 * Connects and lists the tools. Rejects with `McpConnectionFailed` naming the server;
 * whatever was started is closed first. When `signal` aborts before the session is
 * open, the handshake stops, a stdio server's process group is killed at once, and it
 * rejects (`McpConnectionFailed`, "aborted").
 *
 * @internal
 */
export const open = async (
  server: McpServer.McpServer,
  connectMs: number,
  signal?: AbortSignal | undefined,
): Promise<Session> => {
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
  // The SDK checks structured outputs against each tool's output schema: on the safe ajv.
  const client = new Client(
    { name: "hookline", version: "0.1.0" },
    { capabilities: {}, jsonSchemaValidator: McpTool.outputValidator(McpTool.newAjv()) },
  )
  let listed: ReadonlyArray<McpTool.Listed> = Object.freeze([])
  let pending: Promise<void> | undefined
  let again = false
  let closed = false
  let ended: string | undefined
  const listeners: Array<(reason: string) => void> = []

  const listAll = async (): Promise<ReadonlyArray<McpTool.Listed>> => {
    const all: Array<McpTool.Listed> = []
    let cursor: string | undefined
    for (let page = 0; page < maxPages && all.length < maxTools; page++) {
      const result = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout: connectMs })
      all.push(...(result.tools as ReadonlyArray<McpTool.Listed>))
      cursor = result.nextCursor
      if (cursor === undefined) break
    }
    return Object.freeze(all.slice(0, maxTools))
  }
  const refresh = (): Promise<void> => {
    if (pending !== undefined) {
      again = true
      return pending
    }
    pending = (async () => {
      do {
        again = false
        listed = await listAll()
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
      listed = await listAll()
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

  const end = (reason: string): void => {
    if (closed || ended !== undefined) return
    ended = reason
    for (const listener of listeners.splice(0)) listener(reason)
  }
  // Set after the handshake: a server that dies while connecting is a connection failure.
  client.onclose = () => {
    end(exitText(transport))
    // What is left of a wrapper's process group goes too.
    void transport.close().catch(() => undefined)
  }
  const pid = transport instanceof StdioGroupTransport ? transport.pid : undefined
  const died = (): McpServerExited =>
    new McpServerExited({
      server: server.name,
      pid,
      message: `the MCP server "${server.name}" (${McpServer.describe(server)}) is gone: ${ended ?? exitText(transport)}`,
    })
  const session: Session = {
    server,
    pid,
    listed: () => listed,
    call: async (name, args, call) => {
      if (ended !== undefined) throw died()
      let result: unknown
      try {
        result = await client.callTool(
          { name, arguments: { ...args }, _meta: { [McpTool.idempotencyKeyMeta]: call.idempotencyKey } },
          undefined,
          { signal: call.signal, ...(call.timeoutMs === undefined ? {} : { timeout: call.timeoutMs }) },
        )
      } catch (error) {
        if (ended !== undefined) throw died()
        throw error
      }
      // A call that changed the list (the server announced it before answering) gives
      // its result once the new list is in, so the next step sees it.
      if (pending !== undefined) await pending
      return result as McpTool.CallResult
    },
    ping: async (timeoutMs) => {
      await client.ping({ timeout: timeoutMs })
    },
    isOpen: () => !closed && ended === undefined,
    onEnded: (listener) => {
      if (ended !== undefined) listener(ended)
      else if (!closed) listeners.push(listener)
    },
    terminate: async (reason) => {
      end(reason)
      if (transport instanceof StdioGroupTransport) transport.kill()
      await close()
    },
    close,
  }
  return Object.freeze(session)
}
