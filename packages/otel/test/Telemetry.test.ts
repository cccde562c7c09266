import { AgentError, Hook, HookContext, HookTriggers } from "@hookline/core"
import { AgentBuilder, Driver, Tool, UseDriver, UseHook, UseTools } from "@hookline/agent"
import { Telemetry, UseTelemetry } from "@hookline/otel"
import { ScriptedDriver } from "@hookline/testing"
import { SpanKind, SpanStatusCode } from "@opentelemetry/api"
import * as t from "io-ts"
import { describe, expect, it } from "vitest"
import { byName, parentId, sdk, tree } from "./support.js"

const weather = Tool.make({ name: "weather", description: "Weather of a city", parameters: t.type({ city: t.string }), execute: ({ city }) => `sunny in ${city}` })
const boom = Tool.make({ name: "boom", parameters: t.type({}), execute: () => Promise.reject(new Error("disk full")) })

describe("UseTelemetry", () => {
  it("makes invoke_agent > chat, execute_tool spans with the conventions' names, kinds and attributes", async () => {
    const o = sdk()
    const driver = ScriptedDriver.make([
      ScriptedDriver.toolCalls([{ id: "c1", name: "weather", arguments: { city: "Oslo" } }], { usage: { inputTokens: 10, outputTokens: 3 } }),
      ScriptedDriver.text("It is sunny", { usage: { inputTokens: 20, outputTokens: 4 } }),
    ], { modelId: "m-1" })
    const agent = AgentBuilder.make(UseDriver(driver), UseTools([weather]), UseTelemetry({ tracer: o.tracer, meter: o.meter, agentName: "helper" }))
    const final = await agent.run("weather in Oslo?")
    expect(final.execution.status).toBe("completed")
    const spans = o.spans()
    expect(tree(spans)).toBe([
      "invoke_agent helper",
      "  chat m-1",
      "  execute_tool weather",
      "  chat m-1",
    ].join("\n"))
    const run = byName(spans, "invoke_agent helper")
    expect(run.kind).toBe(SpanKind.INTERNAL)
    expect(run.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "helper",
      "gen_ai.conversation.id": final.id,
      "gen_ai.provider.name": "scripted",
      "hookline.run.status": "completed",
    })
    const chat = spans.find((s) => s.name === "chat m-1")!
    expect(chat.kind).toBe(SpanKind.CLIENT)
    expect(chat.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "scripted",
      "gen_ai.request.model": "m-1",
      "gen_ai.response.model": "m-1",
      "gen_ai.response.finish_reasons": ["tool_call"],
      "gen_ai.usage.input_tokens": 10,
      "gen_ai.usage.output_tokens": 3,
    })
    const tool = byName(spans, "execute_tool weather")
    expect(tool.kind).toBe(SpanKind.INTERNAL)
    expect(tool.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "weather",
      "gen_ai.tool.call.id": "c1",
      "gen_ai.tool.type": "function",
      "gen_ai.tool.description": "Weather of a city",
    })
    expect(tool.attributes["gen_ai.tool.call.arguments"]).toBeUndefined()
    const metrics = await o.metrics()
    const names = metrics.map((m) => m.descriptor.name).sort()
    expect(names).toEqual(["gen_ai.client.operation.duration", "gen_ai.client.token.usage"])
    const usage = metrics.find((m) => m.descriptor.name === "gen_ai.client.token.usage")!
    const sums = usage.dataPoints.map((p) => [p.attributes["gen_ai.token.type"], (p.value as { sum: number }).sum])
    expect(sums).toEqual(expect.arrayContaining([["input", 30], ["output", 7]]))
  })

  it("records a blocked call and a failed tool by error.type, and every hook execution as an event with its outcome", async () => {
    const o = sdk()
    const driver = ScriptedDriver.make([
      ScriptedDriver.toolCalls([{ id: "c1", name: "weather", arguments: { city: "Oslo" } }, { id: "c2", name: "boom", arguments: {} }]),
      ScriptedDriver.text("done"),
    ])
    const block = UseHook((ctx: HookContext) => ctx.toolCall?.name === "weather" ? HookContext.withToolExecutionBlocked(ctx, "not today") : ctx, {
      name: "policy:no_weather",
      triggers: HookTriggers.of("BeforeToolUse"),
    })
    const agent = AgentBuilder.make(UseDriver(driver), UseTools([weather, boom]), block, UseTelemetry({ tracer: o.tracer, meter: o.meter }))
    const final = await agent.run("go")
    expect(final.execution.status).toBe("completed")
    const spans = o.spans()
    const blocked = byName(spans, "execute_tool weather")
    expect(blocked.attributes["error.type"]).toBe("blocked")
    expect(blocked.status.code).toBe(SpanStatusCode.ERROR)
    expect(blocked.events.filter((e) => e.name === "hookline.hook").map((e) => [e.attributes?.["hookline.hook.name"], e.attributes?.["hookline.hook.outcome"]]))
      .toEqual([["policy:no_weather", "blocked"]])
    const failed = byName(spans, "execute_tool boom")
    expect(failed.attributes["error.type"]).toBe("ToolFailed")
    expect(failed.events.find((e) => e.name === "exception")?.attributes).toEqual({ "exception.type": "ToolFailed" })
    expect(failed.events.filter((e) => e.name === "hookline.hook").map((e) => e.attributes?.["hookline.hook.outcome"])).toEqual(["unchanged"])
    expect(parentId(failed)).toBe(byName(spans, "invoke_agent").spanContext().spanId)
  })

  it("ends the run span of an aborted run as stopped with its stop signal, and a failed run with error.type", async () => {
    const o = sdk()
    const controller = new AbortController()
    const driver = ScriptedDriver.make([ScriptedDriver.hang()])
    const agent = AgentBuilder.make(UseDriver(driver), UseTelemetry({ tracer: o.tracer, meter: o.meter }))
    const running = agent.run("go", { signal: controller.signal })
    setTimeout(() => controller.abort(), 20)
    const final = await running
    expect(final.execution.status).toBe("stopped")
    const run = byName(o.spans(), "invoke_agent")
    expect(run.attributes["hookline.run.status"]).toBe("stopped")
    expect(run.attributes["hookline.run.stop_reason"]).toBe("UserRequested")
    expect(run.events.filter((e) => e.name === "hookline.stop_signal").map((e) => e.attributes?.["hookline.stop.reason"])).toContain("UserRequested")
    const chat = byName(o.spans(), "chat scripted")
    expect(chat.status.code).toBe(SpanStatusCode.ERROR)

    const o2 = sdk()
    const failing = AgentBuilder.make(UseDriver(ScriptedDriver.make([ScriptedDriver.failure(AgentError.inferenceFailed("secret-in-error"))])), UseTelemetry({ tracer: o2.tracer, meter: o2.meter }))
    const ended = await failing.run("go")
    expect(ended.execution.status).toBe("failed")
    const failedRun = byName(o2.spans(), "invoke_agent")
    expect(failedRun.attributes["error.type"]).toBe("InferenceFailed")
    expect(JSON.stringify(o2.spans().map((s) => [s.attributes, s.events]))).not.toContain("secret-in-error")
  })

  it("gives a retried or fallen-back call one chat span with a child chat span per attempt naming its model", async () => {
    const o = sdk()
    const primary = ScriptedDriver.make([ScriptedDriver.failure(AgentError.inferenceFailed("down"))], { modelId: "big" })
    const backup = ScriptedDriver.make([ScriptedDriver.text("ok")], { modelId: "small" })
    const { UseFallbackModels } = await import("@hookline/middleware")
    const agent = AgentBuilder.make(UseDriver(primary), UseFallbackModels([backup]), UseTelemetry({ tracer: o.tracer, meter: o.meter }))
    const final = await agent.run("go")
    expect(final.execution.status).toBe("completed")
    expect(tree(o.spans())).toBe(["invoke_agent", "  chat big", "    chat big", "    chat small"].join("\n"))
    const attempts = o.spans().filter((s) => s.attributes["hookline.attempt"] !== undefined)
    expect(attempts.map((s) => [s.attributes["gen_ai.request.model"], s.attributes["error.type"]])).toEqual([["big", "InferenceFailed"], ["small", undefined]])
  })

  it("sets server.address and server.port on chat spans and their metrics from the server the driver names, each attempt its own", async () => {
    const o = sdk()
    // A driver naming its server (the AI SDK driver reads it from the provider's base URL).
    const at = (driver: ReturnType<typeof ScriptedDriver.make>, server: { address: string; port?: number }) =>
      Driver.make({ generate: driver.generate, stream: driver.stream, model: { ...driver.model, server } })
    const primary = at(ScriptedDriver.make([ScriptedDriver.failure(AgentError.inferenceFailed("down"))], { modelId: "big" }), { address: "10.0.0.7", port: 8443 })
    const backup = at(ScriptedDriver.make([ScriptedDriver.text("ok")], { modelId: "small" }), { address: "backup.example.test" })
    const { UseFallbackModels } = await import("@hookline/middleware")
    const agent = AgentBuilder.make(UseDriver(primary), UseFallbackModels([backup]), UseTelemetry({ tracer: o.tracer, meter: o.meter }))
    expect((await agent.run("go")).execution.status).toBe("completed")
    const server = (s: { readonly attributes: Record<string, unknown> }) => [s.attributes["server.address"], s.attributes["server.port"]]
    const chats = o.spans().filter((s) => s.name.startsWith("chat"))
    expect(chats.map((s) => [s.name, s.attributes["hookline.attempt"], ...server(s)])).toEqual([
      ["chat big", 1, "10.0.0.7", 8443],
      ["chat small", 2, "backup.example.test", undefined],
      ["chat big", undefined, "10.0.0.7", 8443],
    ])
    expect(server(byName(o.spans(), "invoke_agent"))).toEqual([undefined, undefined])
    const durations = (await o.metrics()).find((m) => m.descriptor.name === "gen_ai.client.operation.duration")!
    const chatPoints = durations.dataPoints.filter((p) => p.attributes["gen_ai.operation.name"] === "chat")
    expect(chatPoints.map((p) => [p.attributes["server.address"], p.attributes["server.port"]])).toEqual([["10.0.0.7", 8443]])
  })
})

void Hook
void Telemetry
