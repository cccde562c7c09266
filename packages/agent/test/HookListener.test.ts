import { AgentState, HookContext, StopSignal, type HookExecuted } from "@hookline/core"
import { ScriptedDriver } from "@hookline/testing"
import { Effect, Stream } from "effect"
import * as t from "io-ts"
import { describe, expect, it } from "vitest"
import { AgentBuilder, AgentEvent, AgentLoop, Tool, UseDriver, UseHook, UseHookListener, UseTools } from "../src/index.js"

const delegate = (id: string) => ScriptedDriver.toolCalls([{ id, name: "research", arguments: { prompt: "look it up" } }])

const child = () =>
  AgentBuilder.make(
    UseDriver(ScriptedDriver.make([ScriptedDriver.text("found it")])),
    UseHook((ctx) => ctx, { triggers: "BeforeStep", name: "child:note" }),
  )

const parentOf = (...more: ReadonlyArray<AgentBuilder.Capability>) =>
  AgentBuilder.make(
    UseDriver(ScriptedDriver.make([delegate("call-9"), ScriptedDriver.text("done")])),
    UseTools([Tool.fromAgent(child(), { name: "research" })]),
    UseHook((ctx) => ctx, { triggers: "BeforeStep", name: "parent:note" }),
    ...more,
  )

const hookEventsOf = (events: ReadonlyArray<AgentEvent>): ReadonlyArray<AgentEvent> =>
  events.flatMap((e) => e._tag === "HookExecuted" ? [e] : e._tag === "Subagent" ? hookEventsOf([e.event]) : [])

const collectStream = async (stream: AsyncIterable<AgentEvent>): Promise<ReadonlyArray<AgentEvent>> => {
  const events: Array<AgentEvent> = []
  for await (const event of stream) events.push(event)
  return events
}

describe("hook events", () => {
  describe("stream", () => {
    it("leaves out HookExecuted events, its subagents' too, unless hookEvents is set", async () => {
      const without = await collectStream(parentOf().stream(AgentState.make({ id: "p", messages: [] })))
      expect(without.some(AgentEvent.is("Subagent"))).toBe(true)
      expect(hookEventsOf(without)).toEqual([])
      const withThem = await collectStream(parentOf().stream(AgentState.make({ id: "p", messages: [] }), { hookEvents: true }))
      const hooks = hookEventsOf(withThem).map((e) => (e as Extract<AgentEvent, { _tag: "HookExecuted" }>).event.hook)
      expect(hooks).toContain("parent:note")
      expect(hooks).toContain("child:note")
    })

    it("AgentLoop.stream leaves them out too, and yields them with hookEvents", async () => {
      const stack = AgentBuilder.make(UseHook((ctx) => ctx, { triggers: "BeforeStep", name: "note" })).loop
      const driver = () => ScriptedDriver.make([ScriptedDriver.text("hi")]).layer
      const run = (options?: AgentLoop.RunOptions) =>
        Effect.runPromise(Stream.runCollect(AgentLoop.stream(stack, "hello", options)).pipe(Effect.provide(driver())))
      expect((await run()).filter(AgentEvent.is("HookExecuted"))).toEqual([])
      expect((await run({ hookEvents: true })).filter(AgentEvent.is("HookExecuted")).map((e) => e.event.hook)).toContain("note")
    })
  })

  describe("UseHookListener", () => {
    it("hears every hook execution of the run and of its subagents, each naming its run", async () => {
      const heard: Array<HookExecuted.HookExecuted> = []
      const agent = parentOf(UseHookListener((event) => void heard.push(event)))
      const final = await agent.run(AgentState.make({ id: "p", messages: [] }))
      expect(final.execution.status).toBe("completed")
      const byHook = (name: string) => heard.filter((e) => e.hook === name).map((e) => e.runId)
      expect(byHook("parent:note").length).toBeGreaterThan(0)
      expect(new Set(byHook("parent:note"))).toEqual(new Set(["p"]))
      expect(new Set(byHook("child:note"))).toEqual(new Set(["p/call-9"]))
      // The same events as a stream with hookEvents yields, in the same order.
      const streamed = hookEventsOf(await collectStream(parentOf().stream(AgentState.make({ id: "p", messages: [] }), { hookEvents: true })))
        .map((e) => (e as Extract<AgentEvent, { _tag: "HookExecuted" }>).event)
      expect(heard.map((e) => [e.trigger, e.hook, e.runId, e.outcome])).toEqual(streamed.map((e) => [e.trigger, e.hook, e.runId, e.outcome]))
    })

    it("hears events on a stream that leaves them out", async () => {
      const heard: Array<string> = []
      const events = await collectStream(parentOf(UseHookListener((event) => void heard.push(event.hook))).stream("go"))
      expect(hookEventsOf(events)).toEqual([])
      expect(heard).toContain("parent:note")
      expect(heard).toContain("child:note")
    })

    it("ignores a listener that throws: the run is the same, and the next listener hears every event", async () => {
      const quiet: Array<string> = []
      const after: Array<string> = []
      await parentOf(UseHookListener((event) => void quiet.push(event.hook))).run(AgentState.make({ id: "p", messages: [] }))
      const final = await parentOf(
        UseHookListener(() => {
          throw new Error("listener down")
        }),
        UseHookListener((event) => void after.push(event.hook)),
      ).run(AgentState.make({ id: "p", messages: [] }))
      expect(final.execution.status).toBe("completed")
      expect(final.execution.errors).toEqual([])
      expect(after).toEqual(quiet)
    })

    it("says which hook blocked which call, and which raised a stop signal", async () => {
      const heard: Array<HookExecuted.HookExecuted> = []
      const echo = Tool.make({ name: "echo", parameters: t.type({}), execute: () => "ok" })
      const agent = AgentBuilder.make(
        UseDriver(ScriptedDriver.make([ScriptedDriver.toolCalls([{ id: "c-1", name: "echo", arguments: {} }]), ScriptedDriver.text("done")])),
        UseTools([echo]),
        UseHook((ctx) => HookContext.withToolExecutionBlocked(ctx, "no"), { triggers: "BeforeToolUse", name: "deny" }),
        UseHook((ctx) => ctx.toolExecutionBlocked ? HookContext.withStopSignal(ctx, StopSignal.make("StopRequested", "blocked once", "halt")) : ctx, {
          triggers: "AfterToolUse",
          name: "halt",
        }),
        UseHookListener((event) => void heard.push(event)),
      )
      await agent.run("go")
      const deny = heard.find((e) => e.hook === "deny")
      const halt = heard.find((e) => e.hook === "halt")
      expect(deny).toMatchObject({ trigger: "BeforeToolUse", outcome: "changed", effect: "blocked", toolCallId: "c-1" })
      expect(halt).toMatchObject({ trigger: "AfterToolUse", outcome: "changed", effect: "stopped", toolCallId: "c-1" })
      expect(heard.filter((e) => e.hook.startsWith("guard:")).every((e) => e.effect === undefined)).toBe(true)
    })

    it("refuses a listener that is not a function", () => {
      expect(() => AgentBuilder.make(UseHookListener("nope" as never))).toThrow(/listener/)
    })
  })
})
