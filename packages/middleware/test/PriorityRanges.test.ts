// docs/ordering.md: an audit hook in the observation range (−101 to −199) runs after
// every built-in redaction, so it logs masked data.
import * as t from "io-ts"
import { describe, expect, it } from "vitest"
import { Hook, HookTriggers } from "@hookline/core"
import { AgentBuilder, Tool, UseDriver, UseHook, UseTools } from "@hookline/agent"
import { ScriptedDriver } from "@hookline/testing"
import { UsePiiRedaction } from "@hookline/middleware"

const lookup = Tool.make({
  name: "lookup",
  description: "Finds a customer",
  parameters: t.type({ q: t.string }),
  execute: async () => ({ email: "ada@example.com" }),
})

const auditAt = async (priority: number): Promise<ReadonlyArray<string>> => {
  const lines: Array<string> = []
  const audit = Hook.observe((ctx) => {
    lines.push(JSON.stringify({ execution: ctx.toolExecution, response: ctx.response?.text }))
  })
  const agent = AgentBuilder.make(
    UseDriver(ScriptedDriver.make([ScriptedDriver.toolCalls([{ name: "lookup", arguments: { q: "ada" } }]), ScriptedDriver.text("Mail ada@example.com.")])),
    UseTools([lookup]),
    UsePiiRedaction(),
    UseHook(audit, { triggers: HookTriggers.of("AfterToolUse", "AfterInference"), priority, name: "log:audit" }),
  )
  expect((await agent.run("Who is Ada?")).execution.status).toBe("completed")
  return lines
}

describe("priority ranges with the built-in redaction", () => {
  it("an audit hook anywhere in the observation range sees only redacted data", async () => {
    for (const priority of [-101, -150, -199]) {
      const lines = await auditAt(priority)
      expect(lines.some((line) => line.includes("[REDACTED:email]"))).toBe(true)
      expect(lines.filter((line) => line.includes("ada@example.com"))).toEqual([])
    }
  })

  it("an audit hook above the redaction (the old logging range, 100–199) sees the raw data", async () => {
    expect((await auditAt(150)).some((line) => line.includes("ada@example.com"))).toBe(true)
  })
})
