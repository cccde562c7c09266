/**
 * The stdio transport of the MCP SDK, but with the server started as the leader of its
 * own process group (`detached`), so that closing it ends the whole group: a server
 * started through a wrapper (`sh -c`, `npx`) leaves no grandchild behind. The SDK's
 * transport signals its direct child only.
 *
 * @internal
 */
import { type ChildProcess, spawn } from "node:child_process"
import { PassThrough } from "node:stream"
import { getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js"
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"

/** How long a server has to exit by itself once its stdin is closed, then after SIGTERM. */
const graceMs = 1_000
const pollMs = 10

// Process groups are POSIX; on Windows the child alone is signalled.
const grouped = process.platform !== "win32"

const signalGroup = (pid: number, signal: NodeJS.Signals | 0): boolean => {
  try {
    process.kill(grouped ? -pid : pid, signal)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/**
 * Whether any process of the group `pid` leads is still there.
 */
export const groupAlive = (pid: number): boolean => signalGroup(pid, 0)

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const waitGone = async (pid: number, ms: number): Promise<boolean> => {
  for (let waited = 0; waited < ms; waited += pollMs) {
    if (!groupAlive(pid)) return true
    await sleep(pollMs)
  }
  return !groupAlive(pid)
}

/**
 * Ends the process group `pid` leads: SIGTERM, then SIGKILL after `graceMs`; resolves
 * once no process of the group is left (or SIGKILL was sent and a further grace passed).
 */
export const killGroup = async (pid: number): Promise<void> => {
  if (!groupAlive(pid)) return
  signalGroup(pid, "SIGTERM")
  if (await waitGone(pid, graceMs)) return
  signalGroup(pid, "SIGKILL")
  await waitGone(pid, graceMs)
}

/**
 * @internal
 */
export interface Options {
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly env: Readonly<Record<string, string>> | undefined
  readonly cwd: string | undefined
}

/**
 * An MCP transport over a child process's stdin and stdout, the child leading its own
 * process group. `stderr` is readable from the start (for error messages).
 *
 * @internal
 */
export class StdioGroupTransport implements Transport {
  onclose?: (() => void) | undefined
  onerror?: ((error: Error) => void) | undefined
  onmessage?: ((message: JSONRPCMessage) => void) | undefined
  readonly stderr = new PassThrough()
  private child: ChildProcess | undefined
  private readonly buffer = new ReadBuffer()
  private closing: Promise<void> | undefined

  constructor(private readonly options: Options) {}

  /** The server's pid (its group's id), once started. */
  pid: number | undefined

  /** How the server's process ended, once it has: its exit code or the signal that ended it. */
  exit: { readonly code: number | null; readonly signal: NodeJS.Signals | null } | undefined

  start(): Promise<void> {
    if (this.child !== undefined) return Promise.reject(new Error("the stdio transport is already started"))
    return new Promise((resolve, reject) => {
      const child = spawn(this.options.command, [...this.options.args], {
        env: { ...getDefaultEnvironment(), ...this.options.env },
        cwd: this.options.cwd,
        stdio: ["pipe", "pipe", "pipe"],
        shell: false,
        detached: grouped,
        windowsHide: true,
      })
      this.child = child
      child.on("error", (error) => {
        reject(error)
        this.onerror?.(error)
      })
      child.on("spawn", () => {
        this.pid = child.pid
        resolve()
      })
      child.on("close", (code, signal) => {
        this.exit = Object.freeze({ code, signal })
        this.child = undefined
        this.onclose?.()
      })
      child.stdin?.on("error", (error) => this.onerror?.(error))
      child.stdout?.on("error", (error) => this.onerror?.(error))
      child.stdout?.on("data", (chunk: Buffer) => {
        try {
          this.buffer.append(chunk)
          for (let message = this.buffer.readMessage(); message !== null; message = this.buffer.readMessage()) {
            this.onmessage?.(message)
          }
        } catch (error) {
          this.onerror?.(error as Error)
          void this.close()
        }
      })
      child.stderr?.pipe(this.stderr)
    })
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin
      if (stdin === undefined || stdin === null || stdin.destroyed) {
        reject(new Error("Not connected"))
        return
      }
      if (stdin.write(serializeMessage(message))) resolve()
      else stdin.once("drain", resolve)
    })
  }

  /**
   * Closes stdin, gives the server `graceMs` to exit, then ends its whole group.
   * Resolves when no process of the group is left. Idempotent.
   */
  close(): Promise<void> {
    this.closing ??= this.shutdown()
    return this.closing
  }

  /** Ends the whole group at once (an aborted start): SIGKILL, no grace. */
  kill(): void {
    if (this.pid !== undefined) signalGroup(this.pid, "SIGKILL")
  }

  private async shutdown(): Promise<void> {
    const child = this.child
    const pid = this.pid
    try {
      child?.stdin?.end()
    } catch {
      // already closed
    }
    if (pid !== undefined) {
      // The leader exiting is not enough: a wrapper's children may still run.
      if (child !== undefined && child.exitCode === null && child.signalCode === null) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, graceMs)
          child.once("exit", () => {
            clearTimeout(timer)
            resolve()
          })
        })
      }
      await killGroup(pid)
    }
    this.buffer.clear()
  }
}
