import { Effect, Stream } from "effect"
import { TestClock } from "effect/testing"
import { describe, expect, it } from "vitest"
import { AgentState, Hook, HookContext, HookStack, HookTriggers, Interceptor, Message } from "@hookline/core"
import { AgentEvent, AgentLoop, Driver } from "@hookline/agent"
import { ScriptedDriver } from "@hookline/testing"
import { add, stackOf, trail } from "./support.js"

const script = () => [
  ScriptedDriver.toolCalls([{ name: "add", arguments: { a: 2, b: 2 } }], { text: "Let me add." }),
  ScriptedDriver.text("It is 4.", { chunks: ["It ", "is ", "4."] }),
]
const input = AgentState.make({ id: "fixed", messages: [Message.user("What is 2+2?")] })

// Every context any hook saw, as JSON (times come from the TestClock, so they match).
const recorder = () => {
  const contexts: Array<string> = []
  const hook = Hook.observe((ctx: HookContext) => contexts.push(JSON.stringify(ctx)))
  return { contexts, loop: AgentLoop.make({ interceptor: stackOf([hook, { triggers: HookTriggers.all, name: "test:record" }]), tools: [add] }) }
}

const shapeOf = (events: ReadonlyArray<AgentEvent>) =>
  events.filter((e) => e._tag !== "HookExecuted").map((e) =>
    e._tag === "TextDelta" ? `text:${e.text}` : e._tag === "ToolCallRequested" ? `call:${e.toolCall.name}` : e._tag === "ToolResult" ? `result:${e.execution.status}` : e._tag
  )

const withScript = <A>(effect: Effect.Effect<A, never, Driver.Driver>) =>
  Effect.runPromise(effect.pipe(Effect.provide(ScriptedDriver.make(script()).layer), Effect.provide(TestClock.layer())))

describe("AgentLoop", () => {
  describe("stream", () => {
    it("fires the same hooks with the same contexts as run", async () => {
      const a = recorder()
      const final = await withScript(AgentLoop.run(a.loop, input))
      const b = recorder()
      const events = await withScript(Stream.runCollect(AgentLoop.stream(b.loop, input)))
      expect(b.contexts).toEqual(a.contexts)
      expect(a.contexts.length).toBe(13)
      const ended = events.at(-1)
      expect(ended?._tag === "RunEnded" && JSON.stringify(ended.state)).toBe(JSON.stringify(final))
    })

    it("yields text deltas, tool calls, results, hook executions and step ends, in order", async () => {
      const { hook, options } = trail()
      const loop = AgentLoop.make({ interceptor: stackOf([hook, options]), tools: [add], textDeltas: "live" })
      const events = await withScript(Stream.runCollect(AgentLoop.stream(loop, input, { hookEvents: true })))
      expect(shapeOf(events)).toEqual([
        "RunStarted",
        "text:Let me add.",
        "call:add",
        "result:success",
        "StepEnded",
        "text:It ",
        "text:is ",
        "text:4.",
        "StepEnded",
        "RunEnded",
      ])
      expect(events.filter(AgentEvent.is("HookExecuted")).map((e) => e.event.trigger)).toHaveLength(13)
    })

    describe("text deltas", () => {
      const upper = Hook.observe(() => {})
      const shout: Hook = (ctx) => ctx.response === undefined ? ctx : HookContext.withResponse(ctx, { ...ctx.response, text: ctx.response.text.toUpperCase() })
      const deltas = async (loop: AgentLoop) =>
        (await withScript(Stream.runCollect(AgentLoop.stream(loop, input)))).filter(AgentEvent.is("TextDelta")).map((e) => `${e.step}:${e.text}`)

      it("streams text live by default when no hook runs at AfterInference", async () => {
        const loop = AgentLoop.make({ interceptor: stackOf([upper, { triggers: HookTriggers.of("BeforeStep", "AfterStep"), name: "observe" }]), tools: [add] })
        expect(await deltas(loop)).toEqual(["0:Let me add.", "1:It ", "1:is ", "1:4."])
      })

      it("holds text back until AfterInference hooks ran when there is one, and emits what they let through", async () => {
        const loop = AgentLoop.make({ interceptor: stackOf([shout, { triggers: "AfterInference", name: "shout" }]), tools: [add] })
        expect(loop.textDeltas).toBe("auto")
        expect(await deltas(loop)).toEqual(["0:LET ME ADD.", "1:IT IS 4."])
      })

      it("checks text for a custom interceptor, which may rewrite anything", async () => {
        const loop = AgentLoop.make({ interceptor: Interceptor.make((ctx) => Effect.succeed(ctx)), tools: [add] })
        expect(await deltas(loop)).toEqual(["0:Let me add.", "1:It is 4."])
      })

      it("keeps text live past AfterInference observers, which cannot change the response", async () => {
        const seen: Array<string> = []
        const audit = Hook.observe((ctx: HookContext) => seen.push(ctx.response?.text ?? ""))
        const loop = AgentLoop.make({ interceptor: stackOf([audit, { triggers: "AfterInference", name: "log:audit" }]), tools: [add] })
        const events = await withScript(Stream.runCollect(AgentLoop.stream(loop, input)))
        expect(events.filter(AgentEvent.is("TextDelta")).map((e) => `${e.step}:${e.text}`)).toEqual(["0:Let me add.", "1:It ", "1:is ", "1:4."])
        expect(events.some(AgentEvent.is("TextChecked"))).toBe(false)
        expect(seen).toEqual(["Let me add.", "It is 4."])
        // Observers stay observers through the combinators that cannot make them write.
        expect(Hook.isObserver(audit)).toBe(true)
        expect(Hook.isObserver(Hook.when(() => true, audit))).toBe(true)
        expect(Hook.isObserver(Hook.forTools(["add"], audit))).toBe(true)
        expect(Hook.isObserver(Hook.sequence(audit, audit))).toBe(true)
        expect(Hook.isObserver(Hook.sequence(audit, shout))).toBe(false)
        expect(Hook.isObserver(shout)).toBe(false)
      })

      it("says so in a TextChecked event when it holds text back, naming the hooks that may rewrite it", async () => {
        const audit = Hook.observe(() => {})
        const loop = AgentLoop.make({
          interceptor: stackOf([audit, { triggers: "AfterInference", name: "log:audit" }], [shout, { triggers: "AfterInference", name: "privacy:shout" }]),
          tools: [add],
        })
        const events = await withScript(Stream.runCollect(AgentLoop.stream(loop, input)))
        expect(shapeOf(events).slice(0, 3)).toEqual(["RunStarted", "TextChecked", "text:LET ME ADD."])
        expect(events.filter(AgentEvent.is("TextChecked"))).toEqual([{
          _tag: "TextChecked",
          mode: "auto",
          hooks: ["privacy:shout"],
          reason: "AfterInference hooks may rewrite the response: privacy:shout",
        }])
        const custom = AgentLoop.make({ interceptor: Interceptor.make((ctx) => Effect.succeed(ctx)), tools: [add] })
        const checked = (await withScript(Stream.runCollect(AgentLoop.stream(custom, input)))).filter(AgentEvent.is("TextChecked"))
        expect(checked.map((e) => [e.mode, e.reason])).toEqual([["auto", "a custom interceptor may rewrite the response"]])
      })

      it("explains which registrations are observers", () => {
        const stack = stackOf([Hook.observe(() => {}), { triggers: "AfterInference", name: "log:audit" }], [shout, { triggers: "AfterInference", name: "shout" }])
        expect(HookStack.explain(stack)[0]?.hooks.map((h) => [h.name, h.observer])).toEqual([["log:audit", true], ["shout", false]])
      })

      it("obeys an explicit choice", async () => {
        const checked = AgentLoop.make({ tools: [add], textDeltas: "checked" })
        expect(await deltas(checked)).toEqual(["0:Let me add.", "1:It is 4."])
        const live = AgentLoop.make({ interceptor: stackOf([shout, { triggers: "AfterInference", name: "shout" }]), tools: [add], textDeltas: "live" })
        expect(await deltas(live)).toEqual(["0:Let me add.", "1:It ", "1:is ", "1:4."])
      })

      it("rejects an unknown mode", () => {
        expect(() => AgentLoop.make({ textDeltas: "sometimes" as never })).toThrow(/textDeltas: expected "auto", "live" or "checked", got "sometimes"/)
      })
    })

    it("aborts the run when the consumer stops early, and AfterExecution still fires", async () => {
      const { seen, hook, options } = trail()
      const loop = AgentLoop.make({ interceptor: stackOf([hook, options]), tools: [add] })
      const first = await withScript(Stream.runCollect(Stream.take(AgentLoop.stream(loop, input), 1)))
      expect(first.map((e) => e._tag)).toEqual(["RunStarted"])
      expect(seen.filter((s) => s === "AfterExecution")).toHaveLength(1)
    })
  })

  describe("iterate", () => {
    it("yields the state after each step, then the final state", async () => {
      const states = await withScript(Stream.runCollect(AgentLoop.iterate(AgentLoop.make({ tools: [add] }), input)))
      expect(states.map((s) => [s.execution.steps.length, s.execution.status])).toEqual([[1, "running"], [2, "running"], [2, "completed"]])
    })
  })
})
