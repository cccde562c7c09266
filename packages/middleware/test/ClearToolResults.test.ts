import { describe, expect, it } from "vitest"
import * as t from "io-ts"
import { AgentBuilder, Tool, UseDriver, UseTools } from "@hookline/agent"
import { ClearToolResults, UseClearToolResults } from "@hookline/middleware"
import { HookLaws, ScriptedDriver } from "@hookline/testing"

const read = Tool.make({ name: "read", parameters: t.type({ n: t.number }), execute: ({ n }) => `page ${n}` })
const plan = Tool.make({ name: "plan", parameters: t.type({}), execute: () => "the plan" })

const call = (name: string, args: object = {}) => ScriptedDriver.toolCalls([{ name, arguments: { ...args } }])

describe("ClearToolResults", () => {
  describe("use", () => {
    it("keeps the last N results for the model, clears older ones, and keeps them all in the state", async () => {
      const driver = ScriptedDriver.make([
        call("plan"),
        call("read", { n: 1 }),
        call("read", { n: 2 }),
        call("read", { n: 3 }),
        ScriptedDriver.text("done"),
      ])
      const final = await AgentBuilder.make(
        UseDriver(driver),
        UseTools([read, plan]),
        UseClearToolResults({ keep: 2, exclude: ["plan"] }),
      ).run("go")
      const seen = (i: number) => [...(driver.requests[i]?.messages ?? [])].flatMap((m) => (m.role === "tool" ? [m.content] : []))
      expect(seen(3)).toEqual(["the plan", "page 1", "page 2"])
      expect(seen(4)).toEqual(["the plan", ClearToolResults.defaultPlaceholder, "page 2", "page 3"])
      // The state keeps every result.
      expect([...final.context.messages].flatMap((m) => (m.role === "tool" ? [m.content] : []))).toEqual(["the plan", "page 1", "page 2", "page 3"])
      // Every call still has its answer.
      const last = [...(driver.requests[4]?.messages ?? [])]
      expect(last.filter((m) => m.role === "tool").map((m) => m.role === "tool" && m.toolCallId)).toHaveLength(4)
    })

    it("refuses bad options", () => {
      expect(() => UseClearToolResults({ keep: -2 })).toThrow(/options\.keep/)
      expect(() => UseClearToolResults({ exclude: "plan" as never })).toThrow(/options\.exclude/)
    })
  })

  describe("make", () => {
    it("obeys the laws of hooks and is idempotent", () => {
      HookLaws.check(ClearToolResults.make({ keep: 1 }), { name: ClearToolResults.name, triggers: "BeforeInference", idempotent: true })
      HookLaws.check(ClearToolResults.make({ keep: 0 }), { name: ClearToolResults.name, triggers: "BeforeInference", idempotent: true })
    })
  })
})
