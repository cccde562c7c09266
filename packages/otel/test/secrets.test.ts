// A secret placed in a user message, a tool argument, a tool result and a tool's thrown
// error never appears in any span, event, attribute, link or metric with content off,
// and appears only redacted with it on (the redaction hooks ran first). The same runs
// without telemetry's content switch would leak it (the second case shows the content
// is recorded), so the check can fail.
import { HookContext, HookTriggers, InferenceResponse, ToolCall } from "@hookline/core"
import { AgentBuilder, Tool, UseDriver, UseHook, UseTools } from "@hookline/agent"
import { PiiRedaction, UsePiiRedaction } from "@hookline/middleware"
import { UseTelemetry } from "@hookline/otel"
import { ScriptedDriver } from "@hookline/testing"
import * as t from "io-ts"
import { describe, expect, it } from "vitest"
import { sdk } from "./support.js"

const secret = "sk-proj-Zq9xW4vB7nM2kL5pR8tY3uI6oA1sD0fG"
const marker = PiiRedaction.placeholder("apiKey")

const lookup = Tool.make({ name: "lookup", parameters: t.type({ key: t.string }), execute: ({ key }) => `the record of ${key}` })
const explode = Tool.make({ name: "explode", parameters: t.type({ key: t.string }), execute: ({ key }) => Promise.reject(new Error(`cannot use ${key}`)) })

const driver = () =>
  ScriptedDriver.make([
    ScriptedDriver.toolCalls([
      { id: "c1", name: "lookup", arguments: { key: secret } },
      { id: "c2", name: "explode", arguments: { key: secret } },
    ]),
    ScriptedDriver.text("done"),
  ])

// Tool-call arguments are the model's: this test's own redaction of them (PiiRedaction leaves them).
const redactArguments = UseHook((ctx: HookContext) => {
  const response = ctx.response
  if (response === undefined || response.toolCalls.length === 0) return ctx
  return HookContext.withResponse(ctx, InferenceResponse.make({
    ...response,
    toolCalls: response.toolCalls.map((c) => ToolCall.make({ id: c.id, name: c.name, arguments: PiiRedaction.redactJson(c.arguments) })),
  }))
}, { name: "test:redact_arguments", triggers: HookTriggers.of("AfterInference"), priority: -50 })

// Everything the SDK received: spans (names, attributes, events, links, status) and metrics.
const everything = async (o: ReturnType<typeof sdk>): Promise<string> =>
  JSON.stringify({
    spans: o.spans().map((s) => ({ name: s.name, attributes: s.attributes, events: s.events, links: s.links, status: s.status })),
    metrics: await o.metrics(),
  })

describe("UseTelemetry content", () => {
  it("never records the secret with content off: messages, arguments, results, errors and exception events carry none", async () => {
    const o = sdk()
    const agent = AgentBuilder.make(UseDriver(driver()), UseTools([lookup, explode]), UseTelemetry({ tracer: o.tracer, meter: o.meter }))
    const final = await agent.run(`use my key ${secret}`)
    expect(final.execution.status).toBe("completed")
    const all = await everything(o)
    expect(all).toContain("execute_tool explode")
    expect(all).not.toContain(secret)
    expect(all).not.toContain(secret.slice(8, 24))
    expect(all).not.toContain("cannot use")
    expect(all).not.toContain("use my key")
    expect(all).not.toContain("gen_ai.input.messages")
    expect(all).not.toContain("gen_ai.tool.call.arguments")
  })

  it("records content in the conventions' shape with content on, only as the redaction hooks left it", async () => {
    const o = sdk()
    const agent = AgentBuilder.make(
      UseDriver(driver()),
      UseTools([lookup, explode]),
      UsePiiRedaction({ on: ["toolResults", "responses", "userMessages"] }),
      redactArguments,
      UseTelemetry({ tracer: o.tracer, meter: o.meter, captureContent: true }),
    )
    const final = await agent.run(`use my key ${secret}`)
    expect(final.execution.status).toBe("completed")
    const all = await everything(o)
    expect(all).not.toContain(secret)
    const spans = o.spans()
    const firstChat = spans.find((s) => s.name.startsWith("chat"))!
    expect(JSON.parse(firstChat.attributes["gen_ai.input.messages"] as string)).toEqual([
      { role: "user", parts: [{ type: "text", content: `use my key ${marker}` }] },
    ])
    expect(JSON.parse(firstChat.attributes["gen_ai.output.messages"] as string)).toEqual([{
      role: "assistant",
      parts: [
        { type: "tool_call", id: "c1", name: "lookup", arguments: { key: marker } },
        { type: "tool_call", id: "c2", name: "explode", arguments: { key: marker } },
      ],
      finish_reason: "tool_call",
    }])
    const looked = spans.find((s) => s.name === "execute_tool lookup")!
    expect(looked.attributes["gen_ai.tool.call.arguments"]).toBe(JSON.stringify({ key: marker }))
    expect(looked.attributes["gen_ai.tool.call.result"]).toBe(`the record of ${marker}`)
    const exploded = spans.find((s) => s.name === "execute_tool explode")!
    expect(exploded.attributes["gen_ai.tool.call.result"]).toContain(`cannot use ${marker}`)
    expect(exploded.events.find((e) => e.name === "exception")?.attributes).toEqual({ "exception.type": "ToolFailed" })
  })
})
