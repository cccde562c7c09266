import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Effect } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import { AgentBuilder, UseDriver } from "@hookline/agent"
import type { AgentState, JsonObject } from "@hookline/core"
import { McpConnectionFailed, McpPool, McpServer, McpTool, UseMcp } from "@hookline/mcp"
import { ScriptedDriver } from "@hookline/testing"
import { isRunning, killLeft, until } from "./support/processes.js"

const script = fileURLToPath(new URL("./support/poolServer.mjs", import.meta.url))
const server = (options: { readonly name?: string; readonly env?: Record<string, string>; readonly args?: ReadonlyArray<string> } = {}) =>
  McpServer.stdio({ name: options.name ?? "pooled", command: process.execPath, args: [script, ...(options.args ?? [])], env: options.env })

const toolMessages = (state: AgentState) =>
  [...state.context.messages].flatMap((m) => (m.role === "tool" ? [{ name: m.toolName, content: m.content, isError: m.isError }] : []))

// Processes and folders a failed test may leave, and pools it did not close.
const pids: Array<number> = []
const dirs: Array<string> = []
const pools: Array<McpPool> = []
afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.close()))
  for (const pid of pids.splice(0)) killLeft(pid)
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const newPool = (options?: McpPool.Options): McpPool => {
  const pool = McpPool.make(options)
  pools.push(pool)
  return pool
}

const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "hookline-pool-"))
  dirs.push(dir)
  return dir
}

// One run that calls `tool` once; the content of its answer.
const callOnce = async (
  agentOf: (driver: ScriptedDriver.ScriptedDriver) => ReturnType<typeof AgentBuilder.make>,
  tool: string,
  args: JsonObject = {},
): Promise<{ readonly content: string; readonly isError: boolean; readonly final: AgentState }> => {
  const driver = ScriptedDriver.make([ScriptedDriver.toolCalls([{ name: tool, arguments: args }]), ScriptedDriver.text("ok")])
  const final = await agentOf(driver).run("go")
  const message = toolMessages(final)[0]
  expect(message).toBeDefined()
  return { content: message!.content, isError: message!.isError, final }
}

const pidOf = async (agentOf: Parameters<typeof callOnce>[0]): Promise<number> => {
  const { content, isError } = await callOnce(agentOf, "pid")
  expect(isError).toBe(false)
  const pid = Number(content)
  expect(Number.isSafeInteger(pid) && pid > 1).toBe(true)
  pids.push(pid)
  return pid
}

describe("McpPool", () => {
  describe("make", () => {
    it("starts a server once for every run and every agent that use the pool, and lists its tools once", async () => {
      const pool = newPool()
      const first = (driver: ScriptedDriver.ScriptedDriver) => AgentBuilder.make(UseDriver(driver), UseMcp(server(), { pool }))
      const second = (driver: ScriptedDriver.ScriptedDriver) =>
        AgentBuilder.make(UseDriver(driver), UseMcp(server(), { pool, prefix: "p_", tools: ["pid", "lists"] }))
      expect(pool.servers()).toEqual([])
      const pid = await pidOf(first)
      expect(await pidOf(first)).toBe(pid)
      expect(await pidOf((d) => AgentBuilder.make(UseDriver(d), UseMcp(server(), { pool })))).toBe(pid)
      const viaSecond = await callOnce(second, "p_pid")
      expect(Number(viaSecond.content)).toBe(pid)
      // The handshake's tools/list, and no other.
      expect((await callOnce(second, "p_lists")).content).toBe("1")
      expect(pool.servers()).toEqual([{ name: "pooled", status: "open", pid, restarts: 0 }])
      expect(isRunning(pid)).toBe(true)
      await pool.close()
      expect(isRunning(pid)).toBe(false)
      expect(pool.servers()).toEqual([{ name: "pooled", status: "closed", pid: undefined, restarts: 0 }])
    })

    it("keys servers by their whole launch spec: another environment is another process", async () => {
      const pool = newPool()
      const tenant = (token: string) => (driver: ScriptedDriver.ScriptedDriver) =>
        AgentBuilder.make(UseDriver(driver), UseMcp(server({ env: { TENANT_TOKEN: token } }), { pool }))
      const a = await pidOf(tenant("a"))
      const b = await pidOf(tenant("b"))
      expect(b).not.toBe(a)
      expect(await pidOf(tenant("a"))).toBe(a)
      expect((await callOnce(tenant("b"), "env", { name: "TENANT_TOKEN" })).content).toBe("\"b\"")
      expect((await callOnce(tenant("a"), "env", { name: "TENANT_TOKEN" })).content).toBe("\"a\"")
      await pool.close()
      expect([a, b].map(isRunning)).toEqual([false, false])
    })

    it("gives the call that hits a dead server McpServerExited as a tool error, and the next run a new process", async () => {
      const pool = newPool({ restartBackoff: { initial: 10 } })
      const agentOf = (driver: ScriptedDriver.ScriptedDriver) => AgentBuilder.make(UseDriver(driver), UseMcp(server(), { pool }))
      const before = await pidOf(agentOf)
      const death = await callOnce(agentOf, "exit")
      expect(death.final.execution.status).toBe("completed")
      expect(death.isError).toBe(true)
      expect(death.content).toContain("is gone: its process exited with code 3")
      expect(death.final.execution.errors.map((e) => e._tag)).toEqual(["ToolFailed"])
      const after = await pidOf(agentOf)
      expect(after).not.toBe(before)
      expect(isRunning(before)).toBe(false)
      expect(pool.servers()).toEqual([{ name: "pooled", status: "open", pid: after, restarts: 1 }])
      await pool.close()
      expect(isRunning(after)).toBe(false)
    })

    it("ends a server that stops answering its health check and starts it again", async () => {
      const pool = newPool({ healthCheck: { interval: 100, timeout: 2_000 }, restartBackoff: { initial: 10 } })
      const agentOf = (driver: ScriptedDriver.ScriptedDriver) =>
        AgentBuilder.make(UseDriver(driver), UseMcp(server(), { pool, timeout: "1 hour" }))
      const before = await pidOf(agentOf)
      // The call never answers: the health check ends the process under it.
      const frozen = await callOnce(agentOf, "freeze")
      expect(frozen.isError).toBe(true)
      expect(frozen.content).toContain("did not answer a health check")
      await until(() => pool.servers()[0]?.status === "open")
      const after = await pidOf(agentOf)
      expect(after).not.toBe(before)
      expect(isRunning(before)).toBe(false)
      expect(pool.servers()[0]?.restarts).toBe(1)
    })

    it("refreshes the shared tool list when the server announces a change", async () => {
      const pool = newPool()
      const agentOf = (driver: ScriptedDriver.ScriptedDriver) => AgentBuilder.make(UseDriver(driver), UseMcp(server(), { pool }))
      expect((await callOnce(agentOf, "learn")).content).toBe("learned")
      const driver = ScriptedDriver.make([ScriptedDriver.toolCalls([{ name: "later", arguments: {} }]), ScriptedDriver.text("ok")])
      const final = await agentOf(driver).run("go")
      expect(driver.requests[0]?.tools.map((d) => d.name)).toContain("later")
      expect(toolMessages(final)).toEqual([{ name: "later", content: "later", isError: false }])
      expect((await callOnce(agentOf, "lists")).content).toBe("2")
    })

    it("keeps a handshake going for the other runs when the run that started it is aborted", async () => {
      const dir = tempDir()
      const gate = join(dir, "gate")
      const startedFile = join(dir, "pid")
      const pool = newPool()
      const agentOf = (driver: ScriptedDriver.ScriptedDriver) =>
        AgentBuilder.make(UseDriver(driver), UseMcp(server({ args: ["--gate", gate, "--started", startedFile] }), { pool }))
      const controller = new AbortController()
      const aborted = agentOf(ScriptedDriver.make([ScriptedDriver.text("never")])).run("go", { signal: controller.signal })
      await until(() => existsSync(startedFile) && readFileSync(startedFile, "utf8") !== "")
      const pid = Number(readFileSync(startedFile, "utf8"))
      pids.push(pid)
      const waiting = callOnce(agentOf, "pid")
      controller.abort()
      const stopped = await aborted
      expect(stopped.execution.status).toBe("stopped")
      expect(isRunning(pid)).toBe(true)
      writeFileSync(gate, "")
      const other = await waiting
      expect(Number(other.content)).toBe(pid)
      await pool.close()
      expect(isRunning(pid)).toBe(false)
    })

    it("stops a handshake under way when the pool closes, and leaves no process", async () => {
      const dir = tempDir()
      const startedFile = join(dir, "pid")
      const pool = newPool()
      const agent = AgentBuilder.make(
        UseDriver(ScriptedDriver.make([ScriptedDriver.text("never")])),
        UseMcp(server({ args: ["--gate", join(dir, "never"), "--started", startedFile] }), { pool, connectTimeout: "1 hour" }),
      )
      const running = agent.run("go").then(() => undefined, (e: unknown) => e)
      await until(() => existsSync(startedFile) && readFileSync(startedFile, "utf8") !== "")
      const pid = Number(readFileSync(startedFile, "utf8"))
      pids.push(pid)
      await pool.close()
      expect(isRunning(pid)).toBe(false)
      expect(await running).toMatchObject({ _tag: "McpConnectionFailed", server: "pooled" })
    })

    it("refuses runs once closed with McpConnectionFailed, starting nothing", async () => {
      const pool = newPool()
      await pool.close()
      const driver = ScriptedDriver.make([ScriptedDriver.text("never")])
      const error = await AgentBuilder.make(UseDriver(driver), UseMcp(server(), { pool })).run("go").then(() => undefined, (e: unknown) => e)
      expect(error).toBeInstanceOf(McpConnectionFailed)
      expect((error as McpConnectionFailed).message).toContain("pool is closed")
      expect(driver.requests).toHaveLength(0)
      expect(pool.servers()).toEqual([])
    })

    it("keeps the guarantees of a run's own connection: the idempotency key in _meta, skipped() with reasons", async () => {
      const pool = newPool()
      const tools = McpServer.stdio({ name: "tools", command: process.execPath, args: [fileURLToPath(new URL("./support/toolServer.mjs", import.meta.url))] })
      const driver = ScriptedDriver.make([ScriptedDriver.toolCalls([{ name: "meta", arguments: {} }]), ScriptedDriver.text("ok")])
      const final = await AgentBuilder.make(UseDriver(driver), UseMcp(tools, { pool })).run("go")
      const message = [...final.context.messages].find((m) => m.role === "tool")
      expect(message?.role === "tool" && JSON.parse(message.content)).toEqual({
        [McpTool.idempotencyKeyMeta]: `${final.id}:${message?.role === "tool" ? message.toolCallId : ""}`,
      })

      const hostile = McpServer.stdio({
        name: "hostile",
        command: process.execPath,
        args: [fileURLToPath(new URL("./support/schemaServer.mjs", import.meta.url)), JSON.stringify([
          { name: "plain", inputSchema: { type: "object" } },
          { name: "self_ref", inputSchema: { type: "object", $ref: "#" } },
        ])],
      })
      const mcp = UseMcp(hostile, { pool })
      expect(mcp.skipped()).toEqual([])
      const second = ScriptedDriver.make([ScriptedDriver.text("ok")])
      await AgentBuilder.make(UseDriver(second), mcp).run("go")
      expect(second.requests[0]?.tools.map((d) => d.name)).toEqual(["plain"])
      expect(mcp.skipped()).toEqual([{ name: "self_ref", reason: expect.stringMatching(/cannot be checked safely: .*cycle/) }])
    })

    it("refuses bad options with InvalidConfiguration naming them", () => {
      expect(() => McpPool.make({ healthCheck: { interval: -1 } })).toThrow(/options\.healthCheck\.interval/)
      expect(() => McpPool.make({ restartBackoff: { initial: "2 seconds", max: "1 second" } })).toThrow(/options\.restartBackoff\.max/)
      expect(() => McpPool.make({ healthChek: false } as never)).toThrow(/options\.healthChek/)
      expect(() => UseMcp(server(), { pool: {} as never })).toThrow(/options\.pool/)
    })
  })

  describe("scoped", () => {
    it("closes the pool, and every process it started, with its scope", async () => {
      let pid = 0
      await Effect.runPromise(Effect.scoped(Effect.gen(function* () {
        const pool = yield* McpPool.scoped()
        const agentOf = (driver: ScriptedDriver.ScriptedDriver) => AgentBuilder.make(UseDriver(driver), UseMcp(server(), { pool }))
        pid = yield* Effect.promise(() => pidOf(agentOf))
        expect(isRunning(pid)).toBe(true)
      })))
      expect(isRunning(pid)).toBe(false)
    })
  })
})
