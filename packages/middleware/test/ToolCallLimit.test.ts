import { describe, expect, it } from "vitest"
import * as t from "io-ts"
import { AgentBuilder, Tool, UseDriver, UseGuards, UseTools } from "@hookline/agent"
import { StopSignal, type AgentState } from "@hookline/core"
import { ToolCallLimit, UseToolCallLimit } from "@hookline/middleware"
import { HookLaws, ScriptedDriver } from "@hookline/testing"

const ran: Array<string> = []
const tool = (name: string) =>
  Tool.make({
    name,
    parameters: t.type({}),
    execute: () => {
      ran.push(name)
      return "ok"
    },
  })

const toolMessages = (state: AgentState) =>
  [...state.context.messages].flatMap((m) => (m.role === "tool" ? [`${m.toolName}:${m.isError ? "error" : m.content}`] : []))

const calls = (...names: ReadonlyArray<string>) => ScriptedDriver.toolCalls(names.map((name) => ({ name, arguments: {} })))

describe("ToolCallLimit", () => {
  describe("use", () => {
    it("blocks calls past the total and feeds the reason back; the run goes on", async () => {
      ran.length = 0
      const driver = ScriptedDriver.make([calls("a", "b"), calls("a"), ScriptedDriver.text("done")])
      const final = await AgentBuilder.make(UseDriver(driver), UseTools([tool("a"), tool("b")]), UseToolCallLimit({ total: 2 })).run("go")
      expect(final.execution.status).toBe("completed")
      expect(ran).toEqual(["a", "b"])
      expect(toolMessages(final)).toEqual(["a:ok", "b:ok", "a:error"])
      const blocked = [...final.context.messages].find((m) => m.role === "tool" && m.isError)
      expect(blocked?.content).toContain("Tool call limit reached: 2/2")
      expect(final.context.messages.at(-1)?.content).toBe("done")
    })

    it("limits each tool on its own", async () => {
      ran.length = 0
      const driver = ScriptedDriver.make([calls("a", "a", "b", "b"), ScriptedDriver.text("done")])
      const final = await AgentBuilder.make(UseDriver(driver), UseTools([tool("a"), tool("b")]), UseToolCallLimit({ perTool: { a: 1 } })).run("go")
      expect(ran).toEqual(["a", "b", "b"])
      expect(toolMessages(final)).toEqual(["a:ok", "a:error", "b:ok", "b:ok"])
    })

    it("stops the run with onLimit: stop", async () => {
      ran.length = 0
      const driver = ScriptedDriver.make([calls("a"), calls("a"), ScriptedDriver.text("never")])
      const final = await AgentBuilder.make(
        UseDriver(driver),
        UseTools([tool("a")]),
        UseGuards({ maxSteps: 10 }),
        UseToolCallLimit({ total: 1, onLimit: "stop" }),
      ).run("go")
      expect(final.execution.status).toBe("stopped")
      expect(StopSignal.highest(final.execution.stopSignals)).toMatchObject({ reason: ToolCallLimit.stopReason, source: ToolCallLimit.name })
      expect(ran).toEqual(["a"])
      expect(driver.requests).toHaveLength(2)
    })

    it("counts each run from zero", async () => {
      ran.length = 0
      const agent = AgentBuilder.make(
        UseDriver(ScriptedDriver.make([calls("a"), ScriptedDriver.text("one"), calls("a"), ScriptedDriver.text("two")])),
        UseTools([tool("a")]),
        UseToolCallLimit({ total: 1 }),
      )
      const first = await agent.run("go")
      await agent.run(first)
      expect(ran).toEqual(["a", "a"])
    })

    it("refuses bad options", () => {
      expect(() => UseToolCallLimit({})).toThrow(/total, perTool or both/)
      expect(() => UseToolCallLimit({ total: -1 })).toThrow(/options\.total/)
      expect(() => UseToolCallLimit({ perTool: { a: 1.5 } })).toThrow(/options\.perTool\.a/)
      expect(() => UseToolCallLimit({ total: 1, onLimit: "explode" as never })).toThrow(/options\.onLimit/)
      expect(() => UseToolCallLimit({ totl: 1 } as never)).toThrow(/options\.totl/)
    })
  })

  describe("make", () => {
    it("obeys the laws of hooks", () => {
      HookLaws.check(ToolCallLimit.make({ total: 2, perTool: { a: 1 } }), { name: ToolCallLimit.name, triggers: ["BeforeExecution", "BeforeToolUse"] })
      HookLaws.check(ToolCallLimit.make({ total: 0, onLimit: "stop" }), { name: ToolCallLimit.name, triggers: ["BeforeToolUse"] })
    })
  })
})
