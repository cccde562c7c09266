// Logs join traces: a record written through Effect's logger during a run carries the
// trace and span ids of the span current where it was written, as log annotations and
// as the fiber's parent span (what effect's OTLP logger reads).
import { Hook, type HookContext, HookTriggers, type HookTrigger } from "@hookline/core"
import { AgentBuilder, Tool, UseDriver, UseHook, UseLoopOptions, UseTools } from "@hookline/agent"
import { Telemetry, UseTelemetry } from "@hookline/otel"
import { ScriptedDriver } from "@hookline/testing"
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base"
import { Context, Effect, Logger, References, Tracer } from "effect"
import * as t from "io-ts"
import { describe, expect, it } from "vitest"
import { sdk } from "./support.js"

interface Logged {
  readonly message: string
  readonly annotated: string | undefined
  readonly parent: string | undefined
}

// Each record as its message and the span its ids name, read both ways: a span by its
// name, and a tool call's by its call id too.
const capture = () => {
  const records: Array<{ message: string; ids: Record<string, unknown>; parent: Tracer.AnySpan | undefined }> = []
  const logger = Logger.make((options) => {
    const annotations = options.fiber.getRef(References.CurrentLogAnnotations)
    const parent = Context.getOrUndefined(options.fiber.context, Tracer.ParentSpan)
    records.push({
      message: (options.message as ReadonlyArray<unknown>).map(String).join(" "),
      ids: Object.fromEntries(Object.entries(annotations)),
      parent: parent === undefined ? undefined : { ...parent, traceId: parent.traceId, spanId: parent.spanId } as Tracer.AnySpan,
    })
  })
  const read = (spans: ReadonlyArray<ReadableSpan>): ReadonlyArray<Logged> => {
    const nameOf = (traceId: unknown, spanId: unknown) => {
      const span = spans.find((s) => s.spanContext().traceId === traceId && s.spanContext().spanId === spanId)
      if (span === undefined) return spanId === undefined ? undefined : `unknown ${String(spanId)}`
      const call = span.attributes["gen_ai.tool.call.id"]
      return call === undefined ? span.name : `${span.name} ${String(call)}`
    }
    return records.map((r) => ({
      message: r.message,
      annotated: nameOf(r.ids["trace_id"], r.ids["span_id"]),
      parent: r.parent === undefined ? undefined : nameOf(r.parent.traceId, r.parent.spanId),
    }))
  }
  return { layer: Logger.layer([logger]), read }
}

// A hook that logs its trigger (and its tool call) through Effect's logger.
const logging = (triggers: ReadonlyArray<HookTrigger>) =>
  UseHook(
    Hook.effect((ctx: HookContext) => Effect.as(Effect.log(`hook ${ctx.trigger}${ctx.toolCall === undefined ? "" : ` ${ctx.toolCall.id}`}`), ctx)),
    { name: "app:log", triggers: HookTriggers.of(...triggers) },
  )

const fetchTool = Tool.make({ name: "fetch", parameters: t.type({ url: t.string }), execute: ({ url }) => Effect.as(Effect.log(`tool ${url}`), "page") })

describe("UseTelemetry", () => {
  describe("logs", () => {
    it("gives a hook's and a tool's log records the ids of the run, model call or tool span current where they were written", async () => {
      const o = sdk()
      const logs = capture()
      const agent = AgentBuilder.make(
        UseDriver(ScriptedDriver.make([
          ScriptedDriver.toolCalls([{ id: "c1", name: "fetch", arguments: { url: "u1" } }]),
          ScriptedDriver.text("fetched"),
        ])),
        UseTools([fetchTool]),
        logging(["BeforeExecution", "BeforeStep", "AfterInference", "BeforeToolUse", "AfterToolUse", "AfterStep", "AfterExecution"]),
        UseTelemetry({ tracer: o.tracer, meter: o.meter }),
      )
      const final = await Effect.runPromise(agent.runEffect("go").pipe(Effect.provide(logs.layer)))
      expect(final.execution.status).toBe("completed")
      const run = "invoke_agent", chat = "chat scripted", tool = "execute_tool fetch c1"
      const both = (message: string, span: string): Logged => ({ message, annotated: span, parent: span })
      expect(logs.read(o.spans())).toEqual([
        both("hook BeforeExecution", run),
        both("hook BeforeStep", run),
        both("hook AfterInference", chat),
        both("hook BeforeToolUse c1", tool),
        both("tool u1", tool),
        both("hook AfterToolUse c1", tool),
        both("hook AfterStep", run),
        both("hook BeforeStep", run),
        both("hook AfterInference", chat),
        both("hook AfterStep", run),
        both("hook AfterExecution", run),
      ])
      // The two chat spans are two: each record names its own call's.
      const chats = o.spans().filter((s) => s.name === chat).map((s) => s.spanContext().spanId)
      expect(new Set(chats).size).toBe(2)
    })

    it("gives each concurrent call's AfterToolUse records that call's span", async () => {
      const o = sdk()
      const logs = capture()
      const agent = AgentBuilder.make(
        UseDriver(ScriptedDriver.make([
          ScriptedDriver.toolCalls([{ id: "c1", name: "fetch", arguments: { url: "u1" } }, { id: "c2", name: "fetch", arguments: { url: "u2" } }]),
          ScriptedDriver.text("fetched"),
        ])),
        UseTools([fetchTool]),
        UseLoopOptions({ toolConcurrency: "concurrent" }),
        UseHook(
          Hook.effect((ctx: HookContext) => Effect.as(Effect.log(`hook ${ctx.trigger} ${ctx.toolCall?.id}`), ctx)),
          { name: "app:log", triggers: HookTriggers.of("BeforeToolUse", "AfterToolUse") },
        ),
        UseTelemetry({ tracer: o.tracer, meter: o.meter }),
      )
      await Effect.runPromise(agent.runEffect("go").pipe(Effect.provide(logs.layer)))
      expect(logs.read(o.spans()).map((l) => [l.message, l.annotated, l.parent])).toEqual([
        ["hook BeforeToolUse c1", "execute_tool fetch c1", "execute_tool fetch c1"],
        ["hook BeforeToolUse c2", "execute_tool fetch c2", "execute_tool fetch c2"],
        ["tool u1", "execute_tool fetch c1", "execute_tool fetch c1"],
        ["tool u2", "execute_tool fetch c2", "execute_tool fetch c2"],
        ["hook AfterToolUse c1", "execute_tool fetch c1", "execute_tool fetch c1"],
        ["hook AfterToolUse c2", "execute_tool fetch c2", "execute_tool fetch c2"],
      ])
    })

    it("gives the failed-run warning the run span's ids", async () => {
      const o = sdk()
      const logs = capture()
      const agent = AgentBuilder.make(
        UseDriver(ScriptedDriver.make([ScriptedDriver.failure("provider down")])),
        UseTelemetry({ tracer: o.tracer, meter: o.meter }),
      )
      const final = await Effect.runPromise(agent.runEffect("go").pipe(Effect.provide(logs.layer)))
      expect(final.execution.status).toBe("failed")
      const logged = logs.read(o.spans())
      expect(logged).toHaveLength(1)
      expect(logged[0]!.message).toMatch(/^hookline: run ".*" failed: InferenceFailed/)
      expect(logged[0]).toMatchObject({ annotated: "invoke_agent", parent: "invoke_agent" })
    })

    it("gives a subagent's hooks the subagent's run span, and the parent's hooks after it the parent's", async () => {
      const o = sdk()
      const logs = capture()
      const telemetry = Telemetry.make({ tracer: o.tracer, meter: o.meter, agentName: "parent" })
      const childTelemetry = Telemetry.make({ tracer: o.tracer, meter: o.meter, agentName: "child" })
      const child = AgentBuilder.make(UseDriver(ScriptedDriver.make([ScriptedDriver.text("found")])), logging(["BeforeExecution"]), childTelemetry.capability)
      const parent = AgentBuilder.make(
        UseDriver(ScriptedDriver.make([ScriptedDriver.toolCalls([{ id: "c1", name: "research", arguments: { prompt: "?" } }]), ScriptedDriver.text("done")])),
        UseTools([Tool.fromAgent(child, { name: "research" })]),
        logging(["AfterToolUse", "AfterExecution"]),
        telemetry.capability,
      )
      await Effect.runPromise(parent.runEffect("go").pipe(Effect.provide(logs.layer)))
      expect(logs.read(o.spans()).map((l) => [l.message, l.annotated, l.parent])).toEqual([
        ["hook BeforeExecution", "invoke_agent child", "invoke_agent child"],
        ["hook AfterToolUse c1", "execute_tool research c1", "execute_tool research c1"],
        ["hook AfterExecution", "invoke_agent parent", "invoke_agent parent"],
      ])
    })
  })
})
