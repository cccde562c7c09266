import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Effect, Exit } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import { AgentBuilder, Tool, UseDriver, UseHook, UseTools } from "@hookline/agent"
import { type AgentState, HookTrigger } from "@hookline/core"
import { McpConnection, McpServer, McpTool, UseMcp } from "@hookline/mcp"
import { ScriptedDriver } from "@hookline/testing"
import { isRunning, killLeft, until } from "./support/processes.js"

const toolScript = fileURLToPath(new URL("./support/toolServer.mjs", import.meta.url))
const silentScript = fileURLToPath(new URL("./support/silentServer.mjs", import.meta.url))
const stdioServer = McpServer.stdio({ name: "tools", command: process.execPath, args: [toolScript] })

const toolMessages = (state: AgentState) =>
  [...state.context.messages].flatMap((m) =>
    m.role === "tool" ? [{ id: m.toolCallId, name: m.toolName, content: m.content, isError: m.isError }] : []
  )

// Processes a failed test may leave: killed after each test.
const started: Array<number> = []
const dirs: Array<string> = []
afterEach(() => {
  for (const pid of started.splice(0)) killLeft(pid)
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const pidFile = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "hookline-mcp-"))
  dirs.push(dir)
  return join(dir, "pid")
}

const silentServer = (file: string) => McpServer.stdio({ name: "silent", command: process.execPath, args: [silentScript, file] })

// The silent server's pid, once it has started (it writes it before it waits forever).
const startedPid = async (file: string): Promise<number> => {
  await until(() => existsSync(file) && readFileSync(file, "utf8") !== "")
  const pid = Number(readFileSync(file, "utf8"))
  started.push(pid)
  return pid
}

// Calls a tool of an open connection directly, as the loop would.
const callTool = async (connection: McpConnection, name: string): Promise<string> => {
  const tool = connection.tools().find((t) => t.name === name)
  expect(tool).toBeDefined()
  const context = { signal: new AbortController().signal, idempotencyKey: `test:${name}` } as Tool.ToolContext
  return String(await tool!.run({}, context))
}

describe("McpConnection", () => {
  describe("tools/call", () => {
    it("sends the call's idempotency key (runId:toolCallId, as tools get it) in the request's _meta", async () => {
      const anything = { "~standard": { version: 1 as const, vendor: "test", validate: (value: unknown) => ({ value }) } }
      const own = Tool.make({
        name: "own_key",
        parameters: anything,
        jsonSchema: { type: "object" },
        execute: (_args, context) => context.idempotencyKey,
      })
      const driver = ScriptedDriver.make([
        ScriptedDriver.toolCalls([{ name: "meta", arguments: {} }, { name: "own_key", arguments: {} }]),
        ScriptedDriver.toolCalls([{ name: "meta", arguments: {} }]),
        ScriptedDriver.text("ok"),
      ])
      const final = await AgentBuilder.make(UseDriver(driver), UseTools([own]), UseMcp(stdioServer)).run("go")
      expect(final.execution.status).toBe("completed")
      const [first, own_, second] = toolMessages(final)
      // What the server received, read back from it.
      expect(JSON.parse(first!.content)).toEqual({ [McpTool.idempotencyKeyMeta]: `${final.id}:${first!.id}` })
      expect(JSON.parse(second!.content)).toEqual({ [McpTool.idempotencyKeyMeta]: `${final.id}:${second!.id}` })
      // The same key a tool of the agent gets for its call.
      expect(own_!.content).toBe(`${final.id}:${own_!.id}`)
      expect(McpTool.idempotencyKeyMeta).toBe("io.hookline/idempotencyKey")
    })
  })

  describe("close", () => {
    it("leaves no process of a server started through a wrapper: the wrapper, the server and its sibling", async () => {
      // sh stays the parent of the server and of a sibling that never exits (as npx or a
      // shell script that starts a helper would).
      const wrapped = McpServer.stdio({
        name: "wrapped",
        command: "/bin/sh",
        args: ["-c", `"$0" -e "setInterval(() => {}, 1 << 30)" & SIBLING_PID=$! "$0" "$1"; wait`, process.execPath, toolScript],
      })
      const connection = await McpConnection.open(wrapped)
      const wrapper = connection.pid!
      started.push(wrapper)
      const [server, family] = await Promise.all(["pid", "family"].map((name) => callTool(connection, name)))
      const { parent, sibling } = JSON.parse(family!) as { parent: number; sibling: number }
      started.push(Number(server), sibling)
      // The server runs under the wrapper, beside the sibling.
      expect(parent).toBe(wrapper)
      for (const pid of [wrapper, Number(server), sibling]) expect(Number.isSafeInteger(pid) && pid > 1 && isRunning(pid)).toBe(true)
      await connection.close()
      expect([wrapper, Number(server), sibling].map(isRunning)).toEqual([false, false, false])
    })
  })

  describe("open", () => {
    it("stops a handshake the server never answers as soon as the signal aborts, and kills the server", async () => {
      const file = pidFile()
      const controller = new AbortController()
      // The handshake may take an hour: only the abort can end this open.
      const opening = McpConnection.open(silentServer(file), { connectTimeout: "1 hour" }, controller.signal)
      const pid = await startedPid(file)
      controller.abort()
      const error = await opening.then(() => undefined, (e: unknown) => e)
      expect(error).toMatchObject({ _tag: "McpConnectionFailed", server: "silent" })
      expect((error as Error).message).toContain("aborted")
      expect(isRunning(pid)).toBe(false)
    })

    it("stops a handshake when the connecting Effect is interrupted, and kills the server", async () => {
      const file = pidFile()
      const controller = new AbortController()
      const exit = Effect.runPromiseExit(
        Effect.scoped(McpConnection.connect(silentServer(file), { connectTimeout: "1 hour" })),
        { signal: controller.signal },
      )
      const pid = await startedPid(file)
      controller.abort()
      const result = await exit
      expect(Exit.isFailure(result) && Exit.hasInterrupts(result)).toBe(true)
      // The interruption ends once the server is gone.
      expect(isRunning(pid)).toBe(false)
    })

    it("ends a run aborted while its server connects as stopped, before any model call, with the server gone", async () => {
      const file = pidFile()
      const controller = new AbortController()
      const driver = ScriptedDriver.make([ScriptedDriver.text("never")])
      let afterExecution = 0
      const count = UseHook((ctx) => (afterExecution++, ctx), { triggers: HookTrigger.AfterExecution, name: "test:count" })
      const running = AgentBuilder.make(UseDriver(driver), UseMcp(silentServer(file), { connectTimeout: "1 hour" }), count)
        .run("go", { signal: controller.signal })
      const pid = await startedPid(file)
      controller.abort()
      const final = await running
      expect(final.execution.status).toBe("stopped")
      expect(final.execution.stopSignals.map((s) => s.reason)).toContain("UserRequested")
      expect(afterExecution).toBe(1)
      expect(driver.requests).toHaveLength(0)
      expect(isRunning(pid)).toBe(false)
    })
  })
})
