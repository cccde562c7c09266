import { fileURLToPath } from "node:url"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { AgentBuilder, UseDriver, UseGuards, UseHook, UseTools, Tool } from "@hookline/agent"
import { AgentError, Hook, HookContext, HookTrigger, type AgentState } from "@hookline/core"
import { McpConnectionFailed, McpServer, UseMcp } from "@hookline/mcp"
import { ScriptedDriver } from "@hookline/testing"
import { startHttp, type HttpToolServer } from "./support/httpServer.js"

const script = fileURLToPath(new URL("./support/toolServer.mjs", import.meta.url))
const stdioServer = McpServer.stdio({ name: "tools", command: process.execPath, args: [script] })

const toolMessages = (state: AgentState) =>
  [...state.context.messages].flatMap((m) => (m.role === "tool" ? [{ name: m.toolName, content: m.content, isError: m.isError }] : []))

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

const pidOf = (state: AgentState): number => {
  const found = toolMessages(state).find((m) => m.name === "pid")
  expect(found).toBeDefined()
  const pid = Number(found!.content)
  expect(Number.isSafeInteger(pid) && pid > 0).toBe(true)
  return pid
}

describe("UseMcp", () => {
  describe("over stdio (a child process)", () => {
    it("offers the server's tools with its JSON Schema and calls them", async () => {
      const driver = ScriptedDriver.make([
        ScriptedDriver.toolCalls([{ name: "add", arguments: { a: 2, b: 3 } }, { name: "structured", arguments: {} }]),
        ScriptedDriver.text("5"),
      ])
      const final = await AgentBuilder.make(UseDriver(driver), UseMcp(stdioServer)).run("2+3?")
      expect(final.execution.status).toBe("completed")
      expect(toolMessages(final)).toEqual([
        { name: "add", content: "5", isError: false },
        { name: "structured", content: "{\"n\":1}", isError: false },
      ])
      const add = driver.requests[0]?.tools.find((d) => d.name === "add")
      expect(add).toEqual({
        name: "add",
        description: "Adds two numbers",
        parameters: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
      })
    })

    it("checks the model's arguments against the server's schema before calling it", async () => {
      const driver = ScriptedDriver.make([
        ScriptedDriver.toolCalls([{ name: "add", arguments: { a: "two", b: 3 } }, { name: "add", arguments: { a: 1 } }]),
        ScriptedDriver.text("sorry"),
      ])
      const final = await AgentBuilder.make(UseDriver(driver), UseMcp(stdioServer)).run("2+3?")
      expect(final.execution.status).toBe("completed")
      const errors = final.execution.errors.filter((e) => e._tag === "ToolArgumentsInvalid")
      expect(errors.map((e) => (e as AgentError.ToolArgumentsInvalid).path)).toEqual(["a", "b"])
      expect(toolMessages(final).every((m) => m.isError)).toBe(true)
    })

    it("feeds a call the server answers with isError back to the model as a tool error", async () => {
      const driver = ScriptedDriver.make([ScriptedDriver.toolCalls([{ name: "fail", arguments: {} }]), ScriptedDriver.text("ok")])
      const final = await AgentBuilder.make(UseDriver(driver), UseMcp(stdioServer)).run("go")
      expect(final.execution.status).toBe("completed")
      expect(toolMessages(final)).toEqual([{ name: "fail", content: expect.stringContaining("it failed"), isError: true }])
      expect(final.execution.errors.map((e) => e._tag)).toEqual(["ToolFailed"])
    })

    it("keeps only the tools the filter selects, under the prefix", async () => {
      const driver = ScriptedDriver.make([ScriptedDriver.toolCalls([{ name: "m_echo", arguments: { text: "hi" } }]), ScriptedDriver.text("ok")])
      const byName = await AgentBuilder.make(UseDriver(driver), UseMcp(stdioServer, { tools: ["add", "echo"], prefix: "m_" })).run("go")
      expect(driver.requests[0]?.tools.map((d) => d.name)).toEqual(["m_add", "m_echo"])
      expect(toolMessages(byName)).toEqual([{ name: "m_echo", content: "hi", isError: false }])

      const second = ScriptedDriver.make([ScriptedDriver.text("ok")])
      await AgentBuilder.make(UseDriver(second), UseMcp(stdioServer, { tools: (tool) => tool.name.startsWith("e") })).run("go")
      expect(second.requests[0]?.tools.map((d) => d.name)).toEqual(["echo", "exit"])
    })

    it("puts its tools after the agent's own, and an own tool keeps its name", async () => {
      const anything = { "~standard": { version: 1 as const, vendor: "test", validate: (value: unknown) => ({ value }) } }
      const own = Tool.make({ name: "echo", parameters: anything, jsonSchema: { type: "object" }, execute: () => "mine" })
      const driver = ScriptedDriver.make([ScriptedDriver.toolCalls([{ name: "echo", arguments: {} }]), ScriptedDriver.text("ok")])
      const final = await AgentBuilder.make(UseDriver(driver), UseTools([own]), UseMcp(stdioServer, { tools: ["echo", "add"] })).run("go")
      expect(driver.requests[0]?.tools.map((d) => d.name)).toEqual(["echo", "add"])
      expect(toolMessages(final)).toEqual([{ name: "echo", content: "mine", isError: false }])
    })

    it("runs the hooks on its tools as on any tool: a block holds", async () => {
      const driver = ScriptedDriver.make([ScriptedDriver.toolCalls([{ name: "add", arguments: { a: 1, b: 1 } }]), ScriptedDriver.text("ok")])
      const deny = UseHook(
        (ctx) => (ctx.toolCall?.name === "add" ? HookContext.withToolExecutionBlocked(ctx, "no sums") : ctx),
        { triggers: HookTrigger.BeforeToolUse, name: "policy:no_add" },
      )
      const final = await AgentBuilder.make(UseDriver(driver), UseMcp(stdioServer), deny).run("go")
      expect(final.execution.errors.map((e) => e._tag)).toEqual(["ToolBlocked"])
      expect(toolMessages(final)[0]?.content).toContain("no sums")
    })

    it("picks up a tool list change at the next step", async () => {
      const driver = ScriptedDriver.make([
        ScriptedDriver.toolCalls([{ name: "learn", arguments: {} }]),
        ScriptedDriver.toolCalls([{ name: "later", arguments: {} }]),
        ScriptedDriver.text("ok"),
      ])
      const final = await AgentBuilder.make(UseDriver(driver), UseMcp(stdioServer)).run("go")
      expect(driver.requests[0]?.tools.map((d) => d.name)).not.toContain("later")
      expect(driver.requests[1]?.tools.map((d) => d.name)).toContain("later")
      expect(toolMessages(final)).toEqual([
        { name: "learn", content: "learned", isError: false },
        { name: "later", content: "later", isError: false },
      ])
    })

    it("bounds the output like any tool's", async () => {
      const driver = ScriptedDriver.make([ScriptedDriver.toolCalls([{ name: "big", arguments: { n: 5_000 } }]), ScriptedDriver.text("ok")])
      const final = await AgentBuilder.make(UseDriver(driver), UseMcp(stdioServer, { maxOutputLength: 100 })).run("go")
      const content = toolMessages(final)[0]?.content ?? ""
      expect(content.startsWith("x".repeat(100))).toBe(true)
      expect(content).toContain("truncated: 5000 characters, limit 100")
    })

    it("leaves no child process behind when the run ends", async () => {
      const driver = ScriptedDriver.make([ScriptedDriver.toolCalls([{ name: "pid", arguments: {} }]), ScriptedDriver.text("ok")])
      const final = await AgentBuilder.make(UseDriver(driver), UseMcp(stdioServer)).run("go")
      expect(final.execution.status).toBe("completed")
      expect(isAlive(pidOf(final))).toBe(false)
    })

    it("leaves no child process behind when the run is aborted", async () => {
      const controller = new AbortController()
      const driver = ScriptedDriver.make([
        ScriptedDriver.toolCalls([{ name: "pid", arguments: {} }]),
        ScriptedDriver.respond(() => {
          controller.abort()
          return ScriptedDriver.hang()
        }),
      ])
      const final = await AgentBuilder.make(UseDriver(driver), UseMcp(stdioServer)).run("go", { signal: controller.signal })
      expect(final.execution.status).toBe("stopped")
      expect(isAlive(pidOf(final))).toBe(false)
    })

    it("leaves no child process behind when a stream ends", async () => {
      const driver = ScriptedDriver.make([ScriptedDriver.toolCalls([{ name: "pid", arguments: {} }]), ScriptedDriver.text("ok")])
      let last: AgentState | undefined
      for await (const event of AgentBuilder.make(UseDriver(driver), UseMcp(stdioServer)).stream("go")) {
        if (event._tag === "RunEnded") last = event.state
      }
      expect(last?.execution.status).toBe("completed")
      expect(isAlive(pidOf(last!))).toBe(false)
    })

    it("turns every call into a tool error once the server died, and the run goes on", async () => {
      const driver = ScriptedDriver.make([
        ScriptedDriver.toolCalls([{ name: "exit", arguments: {} }]),
        ScriptedDriver.toolCalls([{ name: "add", arguments: { a: 1, b: 2 } }]),
        ScriptedDriver.text("the server is gone"),
      ])
      const final = await AgentBuilder.make(UseDriver(driver), UseMcp(stdioServer), UseGuards({ maxSteps: 5 })).run("go")
      expect(final.execution.status).toBe("completed")
      expect(toolMessages(final).map((m) => [m.name, m.isError])).toEqual([["exit", true], ["add", true]])
      expect(final.execution.errors.map((e) => e._tag)).toEqual(["ToolFailed", "ToolFailed"])
      expect(final.context.messages.at(-1)?.content).toBe("the server is gone")
    })

    it("rejects the run with McpConnectionFailed naming the server when it cannot start", async () => {
      const broken = McpServer.stdio({ name: "broken", command: process.execPath, args: ["-e", "process.stderr.write('boom'); process.exit(2)"] })
      const driver = ScriptedDriver.make([ScriptedDriver.text("never")])
      const error = await AgentBuilder.make(UseDriver(driver), UseMcp(broken)).run("go").then(() => undefined, (e: unknown) => e)
      expect(error).toBeInstanceOf(McpConnectionFailed)
      expect((error as McpConnectionFailed).server).toBe("broken")
      expect((error as McpConnectionFailed).message).toContain("\"broken\"")
      expect((error as McpConnectionFailed).message).toContain("boom")
      expect(driver.requests).toHaveLength(0)

      const missing = McpServer.stdio({ name: "missing", command: "/nonexistent/hookline-mcp-server" })
      const error2 = await AgentBuilder.make(UseDriver(driver), UseMcp(missing)).run("go").then(() => undefined, (e: unknown) => e)
      expect(error2).toMatchObject({ _tag: "McpConnectionFailed", server: "missing" })
    })
  })

  describe("over streamable HTTP", () => {
    let http: HttpToolServer
    beforeEach(async () => {
      http = await startHttp()
    })
    afterEach(async () => {
      await http.close()
    })

    it("calls the server's tools, picks up a list change, and ends its session with the run", async () => {
      const driver = ScriptedDriver.make([
        ScriptedDriver.toolCalls([{ name: "h_add", arguments: { a: 20, b: 22 } }, { name: "h_learn", arguments: {} }]),
        ScriptedDriver.toolCalls([{ name: "h_later", arguments: {} }]),
        ScriptedDriver.text("42"),
      ])
      const server = McpServer.http({ name: "remote", url: http.url })
      const final = await AgentBuilder.make(UseDriver(driver), UseMcp(server, { prefix: "h_" })).run("go")
      expect(final.execution.status).toBe("completed")
      expect(toolMessages(final)).toEqual([
        { name: "h_add", content: "42", isError: false },
        { name: "h_learn", content: "learned", isError: false },
        { name: "h_later", content: "later", isError: false },
      ])
      expect(http.sessions()).toBe(0)
    })

    it("feeds calls back as tool errors once the server is gone", async () => {
      const driver = ScriptedDriver.make([
        ScriptedDriver.toolCalls([{ name: "echo", arguments: { text: "a" } }]),
        ScriptedDriver.toolCalls([{ name: "echo", arguments: { text: "b" } }]),
        ScriptedDriver.text("done"),
      ])
      // The server goes away just before the second call.
      const stopServer = UseHook(
        Hook.promise(async (ctx) => {
          if ((ctx.toolCall?.arguments as { text?: string } | undefined)?.text === "b") await http.close()
          return ctx
        }),
        { triggers: HookTrigger.BeforeToolUse, name: "test:stop_server" },
      )
      const server = McpServer.http({ name: "remote", url: http.url })
      const final = await AgentBuilder.make(UseDriver(driver), UseMcp(server), stopServer).run("go")
      expect(final.execution.status).toBe("completed")
      expect(toolMessages(final).map((m) => [m.content, m.isError])).toEqual([["a", false], [expect.any(String), true]])
      expect(final.context.messages.at(-1)?.content).toBe("done")
    })

    it("rejects the run with McpConnectionFailed when nothing answers at the URL", async () => {
      const url = http.url
      await http.close()
      const driver = ScriptedDriver.make([ScriptedDriver.text("never")])
      const error = await AgentBuilder.make(UseDriver(driver), UseMcp(McpServer.http({ name: "down", url }))).run("go")
        .then(() => undefined, (e: unknown) => e)
      expect(error).toMatchObject({ _tag: "McpConnectionFailed", server: "down" })
      expect(String((error as Error).message)).toContain(url)
    })
  })

  describe("hostile schemas", () => {
    const schemaScript = fileURLToPath(new URL("./support/schemaServer.mjs", import.meta.url))
    const stringArg = (schema: Record<string, unknown>) => ({ type: "object", properties: { s: { type: "string", ...schema } }, required: ["s"] })
    const hostile = McpServer.stdio({
      name: "hostile",
      command: process.execPath,
      args: [schemaScript, JSON.stringify([
        { name: "plain", inputSchema: stringArg({}) },
        { name: "self_ref", inputSchema: { type: "object", $ref: "#" } },
        { name: "redos", inputSchema: stringArg({ pattern: "(a+)+$" }) },
        { name: "backref", inputSchema: stringArg({ pattern: "(a)\\1" }) },
        { name: "bad_output", inputSchema: stringArg({}), outputSchema: { type: "object", $ref: "#" } },
      ])],
    })

    it("does not offer a tool whose schema cannot be checked safely, and lists it in skipped() with the reason", async () => {
      const driver = ScriptedDriver.make([ScriptedDriver.toolCalls([{ name: "plain", arguments: { s: "hi" } }]), ScriptedDriver.text("ok")])
      const mcp = UseMcp(hostile)
      expect(mcp.skipped()).toEqual([])
      const final = await AgentBuilder.make(UseDriver(driver), mcp).run("go")
      expect(final.execution.status).toBe("completed")
      expect(driver.requests[0]?.tools.map((d) => d.name)).toEqual(["plain", "redos"])
      expect(toolMessages(final)).toEqual([{ name: "plain", content: "{\"s\":\"hi\"}", isError: false }])
      expect(mcp.skipped()).toEqual([
        { name: "self_ref", reason: expect.stringMatching(/input schema cannot be checked safely: .*cycle/) },
        { name: "backref", reason: expect.stringMatching(/input schema cannot be checked safely: .*linear time/) },
        { name: "bad_output", reason: expect.stringMatching(/output schema cannot be checked safely: .*cycle/) },
      ])
    })

    it("checks a pattern that backtracks catastrophically in linear time: (a+)+$ against 40 a's and a '!' answers at once", async () => {
      const driver = ScriptedDriver.make([
        ScriptedDriver.toolCalls([
          { name: "redos", arguments: { s: `${"a".repeat(40)}!` } },
          { name: "redos", arguments: { s: "a".repeat(40) } },
        ]),
        ScriptedDriver.text("ok"),
      ])
      const final = await AgentBuilder.make(UseDriver(driver), UseMcp(hostile)).run("go")
      expect(final.execution.status).toBe("completed")
      expect(final.execution.errors.map((e) => [e._tag, (e as AgentError.ToolArgumentsInvalid).path])).toEqual([["ToolArgumentsInvalid", "s"]])
      expect(toolMessages(final).map((m) => m.isError)).toEqual([true, false])
      expect(toolMessages(final)[1]?.content).toBe(JSON.stringify({ s: "a".repeat(40) }))
    })
  })

  describe("options", () => {
    it("refuses a bad prefix, an unknown option and a server not made by McpServer", () => {
      expect(() => UseMcp(stdioServer, { prefix: "a b" })).toThrow(/options\.prefix/)
      expect(() => UseMcp(stdioServer, { prefx: "a" } as never)).toThrow(/options\.prefx/)
      expect(() => UseMcp({ name: "x" } as never)).toThrow(/server/)
      expect(() => McpServer.http({ name: "x", url: "file:///etc/passwd" })).toThrow(/url/)
      expect(() => McpServer.stdio({ name: "bad name", command: "node" })).toThrow(/name/)
    })
  })
})
