// A tool runs inside the Effect context current at its wrap point (a WrapToolUse hook's
// `next`) and, without wrap hooks, inside the run's own: the services and references a
// hook or the caller provides there, and the current span. Telemetry relies on it: a
// tool's own spans nest under the span its wrap hook opened (issue 28).
import { WrapHook } from "@hookline/core"
import { AgentBuilder, Tool, UseDriver, UseLoopOptions, UseTools, UseWrap } from "@hookline/agent"
import { ScriptedDriver } from "@hookline/testing"
import { Context, Effect, Tracer } from "effect"
import * as t from "io-ts"
import { describe, expect, it } from "vitest"

const Where = Context.Reference<string>("test/Where", { defaultValue: () => "nowhere" })

// Each tool reads the reference and the current span's name where it runs.
const seenBy = (seen: Array<string>) => (name: string) =>
  Tool.make({
    name,
    parameters: t.type({}),
    execute: () =>
      Effect.gen(function*() {
        const where = yield* Where
        const span = yield* Effect.option(Effect.currentSpan)
        seen.push(`${name}:${where}:${span._tag === "Some" ? span.value.name : "-"}`)
        return "ok"
      }),
  })

// A wrap hook that runs the tool in a span of its own and with a reference of its own.
const scoped = WrapHook.toolUse((ctx, next) =>
  next(ctx).pipe(Effect.provideService(Where, `wrap(${ctx.toolCall?.name})`), Effect.withSpan(`span(${ctx.toolCall?.name})`))
)

// What a tracer's `context` sets while the fiber evaluates (as an OpenTelemetry bridge
// sets the active context): the current span's name.
let active: string | undefined
const evaluate = "~effect/Effect/evaluate"
const bridging = Tracer.make({
  span: (options) => new Tracer.NativeSpan(options),
  context: (primitive, fiber) => {
    const previous = active
    const span = Context.getOrUndefined(fiber.context, Tracer.ParentSpan)
    active = span?._tag === "Span" ? span.name : undefined
    try {
      return (primitive as unknown as Record<string, (f: unknown) => never>)[evaluate]!(fiber)
    } finally {
      active = previous
    }
  },
})

describe("Tools", () => {
  describe("the context a tool runs in", () => {
    for (const toolConcurrency of ["sequential", "concurrent"] as const) {
      it(`is its wrap hook's next, references and span included (${toolConcurrency})`, async () => {
        const seen: Array<string> = []
        const tool = seenBy(seen)
        const driver = ScriptedDriver.make([
          ScriptedDriver.toolCalls([{ name: "a", arguments: {} }, { name: "b", arguments: {} }]),
          ScriptedDriver.text("done"),
        ])
        const agent = AgentBuilder.build(AgentBuilder.of(
          UseDriver(driver),
          UseTools([tool("a"), tool("b")]),
          UseWrap(scoped),
          UseLoopOptions({ toolConcurrency }),
        ))
        const final = await agent.run("go")
        expect(final.execution.status).toBe("completed")
        expect([...seen].sort()).toEqual(["a:wrap(a):span(a)", "b:wrap(b):span(b)"])
      })

      it(`is the run's own without wrap hooks: what the caller provides around runEffect (${toolConcurrency})`, async () => {
        const seen: Array<string> = []
        const tool = seenBy(seen)
        const driver = ScriptedDriver.make([
          ScriptedDriver.toolCalls([{ name: "a", arguments: {} }, { name: "b", arguments: {} }]),
          ScriptedDriver.text("done"),
        ])
        const agent = AgentBuilder.build(AgentBuilder.of(UseDriver(driver), UseTools([tool("a"), tool("b")]), UseLoopOptions({ toolConcurrency })))
        const final = await Effect.runPromise(
          agent.runEffect("go").pipe(Effect.provideService(Where, "caller"), Effect.withSpan("caller-span")),
        )
        expect(final.execution.status).toBe("completed")
        expect([...seen].sort()).toEqual(["a:caller:caller-span", "b:caller:caller-span"])
      })

      it(`is a Promise tool's too: it is called while its wrap hook's fiber evaluates, under that tracer's context (${toolConcurrency})`, async () => {
        const seen: Array<string> = []
        const promised = (name: string) =>
          Tool.make({ name, parameters: t.type({}), execute: async () => void seen.push(`${name}:${active ?? "-"}`) })
        const driver = ScriptedDriver.make([
          ScriptedDriver.toolCalls([{ name: "a", arguments: {} }, { name: "b", arguments: {} }]),
          ScriptedDriver.text("done"),
        ])
        const traced = WrapHook.toolUse((ctx, next) =>
          next(ctx).pipe(Effect.withSpan(`span(${ctx.toolCall?.name})`), Effect.withTracer(bridging))
        )
        const agent = AgentBuilder.build(AgentBuilder.of(UseDriver(driver), UseTools([promised("a"), promised("b")]), UseWrap(traced), UseLoopOptions({ toolConcurrency })))
        const final = await agent.run("go")
        expect(final.execution.status).toBe("completed")
        expect([...seen].sort()).toEqual(["a:span(a)", "b:span(b)"])
      })
    }
  })
})
