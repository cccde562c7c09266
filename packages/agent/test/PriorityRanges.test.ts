import * as t from "io-ts"
import { describe, expect, it } from "vitest"
import { Hook, HookContext, HookTriggers, type HookStack } from "@hookline/core"
import { AgentBuilder, Tool, UseDriver, UseHook, UseTools } from "@hookline/agent"
import { ScriptedDriver } from "@hookline/testing"

// docs/ordering.md, "Priority ranges": privacy 100–199, observation −100 to −199.
const ranges = { privacy: 150, observation: -150 }
// The ranges before issue 15: logging at 100–199 above business logic (0–99), where a redaction hook sat.
const oldRanges = { privacy: 50, observation: 100 }

const secret = /sk-[a-z0-9-]+/g
const lookup = Tool.make({
  name: "lookup",
  description: "Looks a key up",
  parameters: t.type({ q: t.string }),
  execute: async () => ({ note: "the key is sk-live-42" }),
})

// Masks secrets in a tool's output and in what the model said.
const redact: Hook = (ctx) => {
  if (ctx.toolExecution?.status === "success") {
    const text = JSON.stringify(ctx.toolExecution.output)
    return /sk-/.test(text) ? HookContext.withToolResult(ctx, JSON.parse(text.replace(secret, "[redacted]"))) : ctx
  }
  if (ctx.trigger === "AfterInference" && ctx.response !== undefined && /sk-/.test(ctx.response.text)) {
    return HookContext.withResponse(ctx, { ...ctx.response, text: ctx.response.text.replace(secret, "[redacted]") })
  }
  return ctx
}

/** What an audit hook at `priorities.observation` logs of a run, with redaction at `priorities.privacy`. */
const auditOf = async (priorities: { privacy: number; observation: number }): Promise<ReadonlyArray<string>> => {
  const lines: Array<string> = []
  const audit = Hook.observe((ctx) => {
    lines.push(JSON.stringify({ trigger: ctx.trigger, execution: ctx.toolExecution, response: ctx.response?.text, messages: [...ctx.state.context.messages] }))
  })
  const privacy: HookStack.HookOptions = { triggers: HookTriggers.of("AfterToolUse", "AfterInference"), priority: priorities.privacy, name: "privacy:redact" }
  const agent = AgentBuilder.make(
    UseDriver(ScriptedDriver.make([ScriptedDriver.toolCalls([{ name: "lookup", arguments: { q: "key" } }]), ScriptedDriver.text("It is sk-live-42.")])),
    UseTools([lookup]),
    UseHook(redact, privacy),
    UseHook(audit, { triggers: HookTriggers.all, priority: priorities.observation, name: "log:audit" }),
  )
  const final = await agent.run("What is the key?")
  expect(final.execution.status).toBe("completed")
  return lines
}

describe("priority ranges", () => {
  it("an audit hook in the observation range sees only redacted data", async () => {
    const lines = await auditOf(ranges)
    expect(lines.some((line) => line.includes("[redacted]"))).toBe(true)
    expect(lines.filter((line) => line.includes("sk-live"))).toEqual([])
  })

  it("the old ranges (logging above business logic) leaked the secret to the audit", async () => {
    const lines = await auditOf(oldRanges)
    expect(lines.some((line) => line.includes("sk-live"))).toBe(true)
  })
})
