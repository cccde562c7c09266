/**
 * One server of a pool: at most one live process (session) at a time, shared by every
 * run and agent that uses the pool. It connects once for all waiters (a waiter that
 * gives up never aborts the handshake the others wait on), is pinged on a timer, and
 * is started again with backoff when its process dies or stops answering: the calls
 * in flight fail with `McpServerExited`, later calls and runs get the new process.
 *
 * @internal
 */
import { McpConnectionFailed } from "../McpError.js"
import type * as McpServer from "../McpServer.js"
import type * as McpTool from "../McpTool.js"
import * as Backoff from "./Backoff.js"
import * as McpSession from "./McpSession.js"
import type * as ToolView from "./ToolView.js"

/**
 * @internal
 */
export interface Settings {
  readonly backoff: Backoff.Settings
  /** Ping every `intervalMs`; no answer within `timeoutMs` ends the process. */
  readonly healthCheck: { readonly intervalMs: number; readonly timeoutMs: number } | undefined
}

/**
 * Where a pooled server is (`McpPool.Status`, which documents it).
 *
 * @internal
 */
export type Status = "connecting" | "open" | "down" | "closed"

/**
 * @internal
 */
export interface PooledServer {
  readonly server: McpServer.McpServer
  /** The open session now, if there is one. */
  readonly current: () => McpSession.Session | undefined
  /** The open session, started (once for every waiter) if there is none. */
  readonly acquire: (connectMs: number) => Promise<McpSession.Session>
  /** The tool list of the session open now, or of the last one. */
  readonly listed: () => ReadonlyArray<McpTool.Listed>
  /** Calls a tool on the process open now, waiting for a start under way (bounded by the call's signal). */
  readonly call: (
    name: string,
    args: Readonly<Record<string, unknown>>,
    call: { readonly signal: AbortSignal; readonly idempotencyKey: string; readonly timeoutMs: number | undefined; readonly connectMs: number },
  ) => Promise<McpTool.CallResult>
  readonly status: () => Status
  readonly pid: () => number | undefined
  /** How many times a process of this server ended and was started again. */
  readonly restarts: () => number
  /**
   * The cache of tools made of this server's lists, for capabilities whose options
   * give the same `key`: a listed tool is compiled once per list and key, however many
   * agents are built.
   */
  readonly memo: (key: string) => ToolView.Memo
  /** Ends the process, stops any start under way; resolves once no process is left. */
  readonly close: () => Promise<void>
}

const poolClosed = (server: McpServer.McpServer): McpConnectionFailed =>
  new McpConnectionFailed({ server: server.name, message: `the MCP server "${server.name}" is not available: its pool is closed` })

// Resolves after `ms`, or at once when `signal` aborts; the timer never keeps the process alive.
const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal.aborted) return resolve()
    const done = () => {
      clearTimeout(timer)
      signal.removeEventListener("abort", done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    timer.unref()
    signal.addEventListener("abort", done, { once: true })
  })

/**
 * Waits for `promise`, or rejects when `signal` aborts first; the promise goes on for
 * whoever else waits on it.
 *
 * @internal
 */
export const waitFor = <A>(promise: Promise<A>, signal: AbortSignal, what: () => Error): Promise<A> => {
  if (signal.aborted) return Promise.reject(what())
  return new Promise<A>((resolve, reject) => {
    const onAbort = () => reject(what())
    signal.addEventListener("abort", onAbort, { once: true })
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort)
        resolve(value)
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort)
        reject(error)
      },
    )
  })
}

/**
 * A pooled server, not started until first used.
 *
 * @internal
 */
export const make = (server: McpServer.McpServer, settings: Settings): PooledServer => {
  // Aborted only when the pool closes: no waiter can cancel a handshake.
  const lifetime = new AbortController()
  let session: McpSession.Session | undefined
  let last: McpSession.Session | undefined
  let connecting: Promise<McpSession.Session> | undefined
  let lastConnectMs = 30_000
  let failures = 0
  let retryAt = 0
  let restarts = 0
  let closed = false
  let health: ReturnType<typeof setInterval> | undefined
  let pinging = false
  // Made tools by listed entry (gone with its list), then by the options' key.
  const made = new WeakMap<McpTool.Listed, Map<string, ToolView.Made>>()
  // Every session started and not yet gone, so that `close` waits for each process group.
  const live = new Set<McpSession.Session>()

  const failed = (): void => {
    failures++
    retryAt = Date.now() + Backoff.delayMs(failures, settings.backoff)
  }

  const stopHealth = (): void => {
    if (health !== undefined) clearInterval(health)
    health = undefined
  }

  const ended = (dead: McpSession.Session): void => {
    void dead.close().finally(() => live.delete(dead))
    if (session !== dead) return
    session = undefined
    stopHealth()
    if (closed) return
    restarts++
    failed()
    // Started again at once (after the backoff), so the next run finds it open.
    void acquire(lastConnectMs).catch(() => undefined)
  }

  const ping = async (): Promise<void> => {
    const checked = session
    if (checked === undefined || pinging || settings.healthCheck === undefined) return
    pinging = true
    try {
      await checked.ping(settings.healthCheck.timeoutMs)
      failures = 0
    } catch {
      if (session === checked && checked.isOpen()) {
        void checked.terminate(`it did not answer a health check (ping) within ${settings.healthCheck.timeoutMs} ms`)
      }
    } finally {
      pinging = false
    }
  }

  const start = async (connectMs: number): Promise<McpSession.Session> => {
    const wait = retryAt - Date.now()
    if (wait > 0) await sleep(wait, lifetime.signal)
    if (closed) throw poolClosed(server)
    let opened: McpSession.Session
    try {
      opened = await McpSession.open(server, connectMs, lifetime.signal)
    } catch (error) {
      if (closed) throw poolClosed(server)
      failed()
      throw error
    }
    if (closed) {
      await opened.close()
      throw poolClosed(server)
    }
    live.add(opened)
    session = opened
    last = opened
    opened.onEnded(() => ended(opened))
    if (settings.healthCheck !== undefined) {
      health = setInterval(() => void ping(), settings.healthCheck.intervalMs)
      health.unref()
    }
    return opened
  }

  const acquire = (connectMs: number): Promise<McpSession.Session> => {
    if (closed) return Promise.reject(poolClosed(server))
    if (session !== undefined && session.isOpen()) return Promise.resolve(session)
    if (connecting !== undefined) return connecting
    lastConnectMs = connectMs
    const started = start(connectMs)
    connecting = started
    const settled = () => {
      if (connecting === started) connecting = undefined
    }
    started.then(settled, settled)
    return started
  }

  const pooled: PooledServer = {
    server,
    current: () => (session !== undefined && session.isOpen() ? session : undefined),
    acquire,
    listed: () => (session ?? last)?.listed() ?? Object.freeze([]),
    call: async (name, args, call) => {
      const open = session !== undefined && session.isOpen()
        ? session
        : await waitFor(acquire(call.connectMs), call.signal, () => new Error("the call was aborted while its server started"))
      const result = await open.call(name, args, call)
      failures = 0
      return result
    },
    status: () =>
      closed ? "closed" : session !== undefined && session.isOpen() ? "open" : connecting !== undefined ? "connecting" : "down",
    pid: () => (session !== undefined && session.isOpen() ? session.pid : undefined),
    restarts: () => restarts,
    memo: (key) => (listed, make) => {
      let byKey = made.get(listed)
      if (byKey === undefined) made.set(listed, byKey = new Map())
      let result = byKey.get(key)
      if (result === undefined) byKey.set(key, result = make())
      return result
    },
    close: async () => {
      closed = true
      lifetime.abort()
      stopHealth()
      session = undefined
      // A start under way sees `closed` and closes what it opened.
      await connecting?.catch(() => undefined)
      await Promise.all([...live].map((s) => s.close()))
      live.clear()
    },
  }
  return Object.freeze(pooled)
}
