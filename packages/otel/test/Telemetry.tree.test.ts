import { Hook, HookContext, HookTriggers, type ToolExecution } from "@hookline/core"
import { AgentBuilder, Decision, Tool, UseDriver, UseHook, UseTools } from "@hookline/agent"
import { UseApproval } from "@hookline/middleware"
import { MemoryStore, RunStore, UseCheckpoints } from "@hookline/store"
import { Telemetry, UseTelemetry } from "@hookline/otel"
import { ScriptedDriver } from "@hookline/testing"
import { context, trace } from "@opentelemetry/api"
import { Effect, Logger, References } from "effect"
import * as t from "io-ts"
import { describe, expect, it } from "vitest"
import { byName, parentId, sdk, tree } from "./support.js"

const script = () =>
  ScriptedDriver.make([
    ScriptedDriver.toolCalls([{ id: "c1", name: "fetch", arguments: { url: "https://example.test" } }]),
    ScriptedDriver.text("fetched"),
  ])

describe("UseTelemetry", () => {
  it("nests a Promise tool's own instrumentation under its execute_tool span, and its Effect spans too", async () => {
    const o = sdk()
    // An instrumented HTTP client: a span under whatever OpenTelemetry's active context is.
    const fetchTool = Tool.make({
      name: "fetch",
      parameters: t.type({ url: t.string }),
      execute: async ({ url }) => {
        await new Promise((r) => setTimeout(r, 1))
        const span = o.tracer.startSpan("GET", {}, context.active())
        span.end()
        return `ok ${url}`
      },
    })
    const effectTool = Tool.make({ name: "compute", parameters: t.type({}), execute: () => Effect.succeed(42).pipe(Effect.withSpan("compute.inner")) })
    const driver = ScriptedDriver.make([
      ScriptedDriver.toolCalls([{ id: "c1", name: "fetch", arguments: { url: "u" } }, { id: "c2", name: "compute", arguments: {} }]),
      ScriptedDriver.text("done"),
    ])
    const agent = AgentBuilder.make(UseDriver(driver), UseTools([fetchTool, effectTool]), UseTelemetry({ tracer: o.tracer, meter: o.meter }))
    await agent.run("go")
    expect(tree(o.spans())).toBe([
      "invoke_agent",
      "  chat scripted",
      "  execute_tool fetch",
      "    GET",
      "  execute_tool compute",
      "    compute.inner",
      "  chat scripted",
    ].join("\n"))
  })

  it("nests a subagent's run under the calling tool's span, with its own conversation id", async () => {
    const o = sdk()
    const telemetry = Telemetry.make({ tracer: o.tracer, meter: o.meter })
    const child = AgentBuilder.make(UseDriver(ScriptedDriver.make([ScriptedDriver.text("found")])), telemetry.capability)
    const parent = AgentBuilder.make(
      UseDriver(ScriptedDriver.make([
        ScriptedDriver.toolCalls([{ id: "c1", name: "research", arguments: { prompt: "what?" } }]),
        ScriptedDriver.text("done"),
      ])),
      UseTools([Tool.fromAgent(child, { name: "research", description: "Looks a question up" })]),
      telemetry.capability,
    )
    const final = await parent.run("go")
    expect(final.execution.status).toBe("completed")
    expect(tree(o.spans())).toBe([
      "invoke_agent",
      "  chat scripted",
      "  execute_tool research",
      "    invoke_agent",
      "      chat scripted",
      "  chat scripted",
    ].join("\n"))
    const runs = o.spans().filter((s) => s.name === "invoke_agent").map((s) => s.attributes["gen_ai.conversation.id"])
    expect(new Set(runs).size).toBe(2)
  })

  it("gives a streamed run the same tree as run", async () => {
    const o = sdk()
    const tool = Tool.make({ name: "fetch", parameters: t.type({ url: t.string }), execute: () => "page" })
    const agent = AgentBuilder.make(UseDriver(script()), UseTools([tool]), UseTelemetry({ tracer: o.tracer, meter: o.meter }))
    for await (const _ of agent.stream("go")) void _
    expect(tree(o.spans())).toBe(["invoke_agent", "  chat scripted", "  execute_tool fetch", "  chat scripted"].join("\n"))
  })

  it("makes each hook execution a child span when asked", async () => {
    const o = sdk()
    const tool = Tool.make({ name: "fetch", parameters: t.type({ url: t.string }), execute: () => "page" })
    const audit = UseHook(Hook.observe(() => {}), { name: "audit:tools", triggers: HookTriggers.of("BeforeToolUse", "AfterToolUse") })
    const agent = AgentBuilder.make(UseDriver(script()), UseTools([tool]), audit, UseTelemetry({ tracer: o.tracer, meter: o.meter, hookSpans: true }))
    await agent.run("go")
    const spans = o.spans()
    const hooks = spans.filter((s) => s.name === "hookline.hook audit:tools")
    expect(hooks).toHaveLength(2)
    const toolSpan = byName(spans, "execute_tool fetch")
    expect(hooks.every((h) => parentId(h) === toolSpan.spanContext().spanId)).toBe(true)
    expect(hooks.map((h) => h.attributes["hookline.hook.trigger"])).toEqual(["BeforeToolUse", "AfterToolUse"])
  })

  it("ends a suspended run's span with the suspension, and the run resumed in another process links to it (the envelope's trace context)", async () => {
    const data = MemoryStore.emptyData()
    const pay = Tool.make({ name: "pay", parameters: t.type({ amount: t.number }), execute: ({ amount }) => `paid ${amount}` })
    // Process A: runs until the payment waits for approval.
    const a = sdk()
    const storeA = MemoryStore.make(data)
    const telemetryA = Telemetry.make({ tracer: a.tracer, meter: a.meter })
    const agentA = AgentBuilder.make(
      UseDriver(ScriptedDriver.make([ScriptedDriver.toolCalls([{ id: "p1", name: "pay", arguments: { amount: 5 } }])])),
      UseTools([pay]),
      UseApproval({ tools: ["pay"] }),
      UseCheckpoints(storeA, { envelope: telemetryA.envelope }),
      telemetryA.capability,
    )
    const suspended = await agentA.run("pay 5")
    expect(suspended.execution.status).toBe("suspended")
    const first = byName(a.spans(), "invoke_agent")
    expect(first.events.find((e) => e.name === "hookline.run.suspended")?.attributes).toEqual({ "hookline.run.pending_calls": ["p1"] })
    expect(first.attributes["hookline.run.status"]).toBe("suspended")
    // Process B: another telemetry instance, the same stored data.
    const b = sdk()
    const storeB = MemoryStore.make(data)
    const telemetryB = Telemetry.make({
      tracer: b.tracer,
      meter: b.meter,
      resumedFrom: async (runId) => (await RunStore.load(storeB, runId))?.envelope?.traceContext,
    })
    const agentB = AgentBuilder.make(
      UseDriver(ScriptedDriver.make([ScriptedDriver.text("paid")])),
      UseTools([pay]),
      UseApproval({ tools: ["pay"] }),
      UseCheckpoints(storeB, { envelope: telemetryB.envelope }),
      telemetryB.capability,
    )
    const resumed = await agentB.resume(suspended.id, { decisions: [Decision.approve("p1")] })
    expect(resumed.execution.status).toBe("completed")
    const second = byName(b.spans(), "invoke_agent")
    expect(second.links.map((l) => [l.context.traceId, l.context.spanId])).toEqual([[first.spanContext().traceId, first.spanContext().spanId]])
    expect(second.attributes["gen_ai.conversation.id"]).toBe(first.attributes["gen_ai.conversation.id"])
    expect(tree(b.spans())).toBe(["invoke_agent", "  execute_tool pay", "  chat scripted"].join("\n"))
  })

  it("links a run resumed in the same process without a store lookup", async () => {
    const o = sdk()
    const pay = Tool.make({ name: "pay", parameters: t.type({ amount: t.number }), execute: ({ amount }) => `paid ${amount}` })
    const agent = AgentBuilder.make(
      UseDriver(ScriptedDriver.make([ScriptedDriver.toolCalls([{ id: "p1", name: "pay", arguments: { amount: 5 } }]), ScriptedDriver.text("paid")])),
      UseTools([pay]),
      UseApproval({ tools: ["pay"] }),
      UseTelemetry({ tracer: o.tracer, meter: o.meter }),
    )
    const suspended = await agent.run("pay 5")
    const resumed = await agent.resume(suspended, { decisions: [Decision.approve("p1")] })
    expect(resumed.execution.status).toBe("completed")
    const [first, second] = o.spans().filter((s) => s.name === "invoke_agent")
    expect(second!.links.map((l) => l.context.spanId)).toEqual([first!.spanContext().spanId])
  })

  it("writes the trace and span ids on logs a tool writes through Effect's logger", async () => {
    const o = sdk()
    const logged: Array<Record<string, unknown>> = []
    const tool = Tool.make({ name: "fetch", parameters: t.type({ url: t.string }), execute: () => Effect.as(Effect.log("fetching"), "page") })
    const agent = AgentBuilder.make(UseDriver(script()), UseTools([tool]), UseTelemetry({ tracer: o.tracer, meter: o.meter }))
    const logger = Logger.make((options) => void logged.push({ message: options.message, ...Object.fromEntries(Object.entries(options.fiber.getRef(References.CurrentLogAnnotations) as object)) }))
    await Effect.runPromise(agent.runEffect("go").pipe(Effect.provide(Logger.layer([logger]))))
    const toolSpan = byName(o.spans(), "execute_tool fetch")
    expect(logged).toEqual([{ message: ["fetching"], trace_id: toolSpan.spanContext().traceId, span_id: toolSpan.spanContext().spanId }])
  })
})

void HookContext
void trace
void ({} as ToolExecution | undefined)
