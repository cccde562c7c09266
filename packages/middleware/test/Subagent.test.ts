import { describe, expect, it } from "vitest"
import * as t from "io-ts"
import { AgentBuilder, Decision, Tool, UseDriver, UseTools } from "@hookline/agent"
import { Output, UseApproval, UseCostBudget } from "@hookline/middleware"
import { ScriptedDriver } from "@hookline/testing"

// Tool.fromAgent lives in @hookline/agent, which cannot see this package: its default
// result reads the decoded answer UseOutput keeps. This test holds the two together.
describe("Tool.fromAgent with a child that has a structured output", () => {
  it("gives the parent the child's decoded answer, not its text", async () => {
    const answer = Output.make(t.type({ city: t.string, population: t.number }))
    const child = AgentBuilder.make(
      UseDriver(ScriptedDriver.make([ScriptedDriver.text("```json\n{\"city\":\"Tokyo\",\"population\":37400068}\n```")])),
      answer.use,
    )
    const parentDriver = ScriptedDriver.make([
      ScriptedDriver.toolCalls([{ id: "c1", name: "largest_city", arguments: { prompt: "Largest city?" } }]),
      ScriptedDriver.text("Tokyo"),
    ])
    const parent = AgentBuilder.make(UseDriver(parentDriver), UseTools([Tool.fromAgent(child, { name: "largest_city" })]))
    const final = await parent.run("Which city is largest?")
    expect(final.execution.status).toBe("completed")
    const result = final.context.messages.toArray().find((m) => m.role === "tool")
    expect(result?.isError).toBe(false)
    expect(JSON.parse(result?.content ?? "")).toEqual({ city: "Tokyo", population: 37400068 })
  })

  it("a child whose answer never decodes is a tool error naming OutputInvalid", async () => {
    const answer = Output.make(t.type({ city: t.string }), { retries: 0 })
    const child = AgentBuilder.make(UseDriver(ScriptedDriver.make([ScriptedDriver.text("no idea")])), answer.use)
    const parent = AgentBuilder.make(
      UseDriver(ScriptedDriver.make([
        ScriptedDriver.toolCalls([{ id: "c1", name: "largest_city", arguments: { prompt: "?" } }]),
        ScriptedDriver.text("sorry"),
      ])),
      UseTools([Tool.fromAgent(child, { name: "largest_city" })]),
    )
    const final = await parent.run("Which city is largest?")
    expect(final.execution.status).toBe("completed")
    const result = final.context.messages.toArray().find((m) => m.role === "tool")
    expect(result?.isError).toBe(true)
    expect(result?.content).toContain("OutputInvalid")
  })
})

describe("a cost budget with subagents and approvals", () => {
  const prices = { parent: { input: 1, output: 1 } }

  it("prices the parent's own model calls; a subagent on another model is not an unpriced model", async () => {
    const child = AgentBuilder.make(UseDriver(ScriptedDriver.make([ScriptedDriver.text("ok")], { modelId: "child", usage: { inputTokens: 5, outputTokens: 5 } })))
    const parent = AgentBuilder.make(
      UseDriver(ScriptedDriver.make([
        ScriptedDriver.toolCalls([{ id: "c1", name: "helper", arguments: { prompt: "?" } }]),
        ScriptedDriver.text("done"),
      ], { modelId: "parent", usage: { inputTokens: 1, outputTokens: 1 } })),
      UseTools([Tool.fromAgent(child, { name: "helper" })]),
      UseCostBudget({ maxCost: 1, prices }),
    )
    const final = await parent.run("go")
    expect(final.execution.status).toBe("completed")
    expect(final.execution.usage).toEqual({ inputTokens: 7, outputTokens: 7 })
  })

  it("a run resumed after an approval is not stopped as an unpriced model", async () => {
    const pay = Tool.make({ name: "pay", parameters: t.type({}), execute: () => "paid" })
    const agent = AgentBuilder.make(
      UseDriver(ScriptedDriver.make([
        ScriptedDriver.toolCalls([{ id: "p1", name: "pay", arguments: {} }]),
        ScriptedDriver.text("done"),
      ], { modelId: "parent", usage: { inputTokens: 1, outputTokens: 1 } })),
      UseTools([pay]),
      UseApproval({ tools: ["pay"] }),
      UseCostBudget({ maxCost: 1, prices }),
    )
    const suspended = await agent.run("pay")
    expect(suspended.execution.status).toBe("suspended")
    const final = await agent.resume(suspended, [Decision.approve("p1")])
    expect(final.execution.status).toBe("completed")
    expect(final.context.messages.last()?.content).toBe("done")
  })
})
