import { Schema } from "effect"
import { describe, expect, expectTypeOf, it } from "vitest"
import { Guards, Hook, HookContext, HookStack, HookTriggers } from "@hookline/core"
import { AgentBuilder, Tool, UseContextConfig, UseDriver, UseGuards, UseHook, UseTools, type Agent } from "@hookline/agent"
import { Arbitraries, ScriptedDriver, TraceRecorder } from "@hookline/testing"
import fc from "fast-check"

const search = Tool.make({
  name: "search",
  description: "Searches",
  parameters: Schema.toStandardSchemaV1(Schema.Struct({ q: Schema.String })),
  jsonSchema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
  execute: ({ q }) => `results for ${q}`,
})

const denyShell: Hook = (ctx) =>
  ctx.toolCall?.name === "shell" ? HookContext.withToolExecutionBlocked(ctx, "shell is not allowed") : ctx

// Three steps: a search, a blocked shell call, the answer.
const agent = (): Agent =>
  AgentBuilder.make(
    UseDriver(ScriptedDriver.make([
      ScriptedDriver.toolCalls([{ name: "search", arguments: { q: "hookline" } }]),
      ScriptedDriver.toolCalls([{ name: "shell", arguments: { cmd: "ls" } }]),
      ScriptedDriver.text("done"),
    ])),
    UseTools([search]),
    UseGuards({ maxSteps: 5 }),
    UseContextConfig({ systemPrompt: "Be brief." }),
    UseHook(denyShell, { triggers: "BeforeToolUse", priority: 200, name: "policy:deny_shell" }),
    UseHook(Hook.observe(() => {}), { triggers: HookTriggers.all, priority: -100, name: "log:audit" }),
  )

interface Caller {
  readonly role: "admin" | "viewer"
}

// A hook that reads the run's context: the builder types the agent `Agent<Caller>`.
const onlyAdmins: Hook<Caller> = (ctx) =>
  ctx.toolCall !== undefined && ctx.runContext.role !== "admin"
    ? HookContext.withToolExecutionBlocked(ctx, `${ctx.runContext.role} may not use tools`)
    : ctx

const callerAgent = () =>
  AgentBuilder.make(
    UseDriver(ScriptedDriver.make([ScriptedDriver.toolCalls([{ name: "search", arguments: { q: "x" } }]), ScriptedDriver.text("done")])),
    UseTools([search]),
    UseHook(onlyAdmins, { triggers: "BeforeToolUse", name: "policy:only_admins" }),
  )

describe("TraceRecorder", () => {
  describe("run", () => {
    it("runs an agent with a per-run context, which it requires and passes on", async () => {
      expectTypeOf(callerAgent()).toEqualTypeOf<Agent<Caller>>()
      const recorder = await TraceRecorder.run(callerAgent(), "go", { context: { role: "viewer" } })
      const tool = recorder.final?.context.messages.toArray().find((m) => m.role === "tool")
      expect(tool?.content).toContain("viewer may not use tools")
      const mine = TraceRecorder.make()
      expect(await TraceRecorder.run(callerAgent(), "go", { context: { role: "admin" } }, mine)).toBe(mine)
      expect(mine.final?.context.messages.toArray().find((m) => m.role === "tool")?.content).toBe("results for x")
      // @ts-expect-error: the agent reads a context, so a run must give it
      await expect(TraceRecorder.run(callerAgent(), "go")).resolves.toBeDefined()
    })

    it("records every hook execution, the state after each step and the final state", async () => {
      const recorder = await TraceRecorder.run(agent(), "go")
      expect(recorder.final?.execution.status).toBe("completed")
      expect(recorder.states.map((s) => s.execution.steps.length)).toEqual([1, 2, 3])
      expect(recorder.events.length).toBeGreaterThan(0)
      expect(TraceRecorder.dispatchesOf(recorder, "BeforeStep").map((d) => d.step)).toEqual([0, 1, 2])
    })
  })

  describe("order", () => {
    it("gives the hooks of one dispatch, or of every dispatch of a trigger", async () => {
      const recorder = await TraceRecorder.run(agent(), "go")
      const beforeStep = ["guard:steps_limit", "guard:token_limit", "guard:time_limit", "context:config", "log:audit"]
      expect(TraceRecorder.order(recorder, "BeforeStep", { dispatch: 0 })).toEqual(beforeStep)
      expect(TraceRecorder.order(recorder, "BeforeStep", { dispatch: -1 })).toEqual(beforeStep)
      expect(TraceRecorder.order(recorder, "BeforeStep")).toEqual([...beforeStep, ...beforeStep, ...beforeStep])
      expect(TraceRecorder.order(recorder, "BeforeToolUse")).toEqual(["policy:deny_shell", "log:audit", "policy:deny_shell", "log:audit"])
      expect(TraceRecorder.order(recorder, "OnError")).toEqual([])
    })
  })

  describe("ranBefore", () => {
    it("holds when the first hook ran before the second in every dispatch where both ran", async () => {
      const recorder = await TraceRecorder.run(agent(), "go")
      expect(TraceRecorder.ranBefore(recorder, "guard:steps_limit", "log:audit", { trigger: "BeforeStep" })).toBe(true)
      expect(TraceRecorder.ranBefore(recorder, "guard:steps_limit", "context:config")).toBe(true)
      expect(TraceRecorder.ranBefore(recorder, "log:audit", "guard:steps_limit", { trigger: "BeforeStep" })).toBe(false)
      expect(TraceRecorder.ranBefore(recorder, "guard:steps_limit", "log:audit", { trigger: "AfterStep" })).toBe(false)
      expect(TraceRecorder.ranBefore(recorder, "policy:deny_shell", "log:audit", { trigger: "BeforeToolUse" })).toBe(true)
    })
  })

  describe("expectRanBefore", () => {
    it("passes silently, or throws with the order actually seen", async () => {
      const recorder = await TraceRecorder.run(agent(), "go")
      TraceRecorder.expectRanBefore(recorder, "guard:steps_limit", "log:audit", { trigger: "BeforeStep" })
      expect(() => TraceRecorder.expectRanBefore(recorder, "log:audit", "guard:steps_limit", { trigger: "BeforeStep" })).toThrow(
        'expected "log:audit" to run before "guard:steps_limit" on BeforeStep, but in dispatch 0 of BeforeStep (step 0) the order was: '
          + "guard:steps_limit, guard:token_limit, guard:time_limit, context:config, log:audit",
      )
      expect(() => TraceRecorder.expectRanBefore(recorder, "policy:deny_shell", "audit", { trigger: "BeforeToolUse" })).toThrow(
        '"audit" never ran on BeforeToolUse (hooks that ran on BeforeToolUse: policy:deny_shell, log:audit)',
      )
    })
  })

  describe("lines and outcomes", () => {
    it("give a readable timeline and each hook's outcomes", async () => {
      const recorder = await TraceRecorder.run(agent(), "go")
      expect(TraceRecorder.outcomes(recorder, "policy:deny_shell")).toEqual(["unchanged", "changed"])
      expect(TraceRecorder.outcomes(recorder, "context:config", { trigger: "BeforeStep" })).toEqual(["changed", "unchanged", "unchanged"])
      expect(TraceRecorder.lines(recorder).filter((l) => l.startsWith("BeforeToolUse"))).toEqual([
        "BeforeToolUse policy:deny_shell unchanged",
        "BeforeToolUse log:audit unchanged",
        "BeforeToolUse policy:deny_shell changed",
        "BeforeToolUse log:audit unchanged",
      ])
    })
  })

  describe("sink", () => {
    it("records agent.run through the sink, splitting dispatches where a hook comes again", async () => {
      const recorder = TraceRecorder.make()
      const final = await agent().run("go", { sink: recorder.sink })
      expect(final.execution.status).toBe("completed")
      expect(TraceRecorder.dispatchesOf(recorder, "BeforeStep").length).toBe(3)
      expect(recorder.states).toEqual([])
    })

    it("splits back-to-back dispatches of one trigger", () => {
      const recorder = TraceRecorder.make()
      const stack = Guards.useGuards({ maxSteps: 1 })
      const [ctx] = fc.sample(Arbitraries.hookContext("BeforeStep"), { numRuns: 1, seed: 5 })
      HookStack.run(stack, ctx!, { sink: recorder.sink })
      HookStack.run(stack, ctx!, { sink: recorder.sink })
      expect(recorder.dispatches.map((d) => d.hooks.length)).toEqual([3, 3])
    })
  })

  describe("onState", () => {
    it("records agent.iterate: the states after each step, then the final state", async () => {
      const recorder = TraceRecorder.make()
      for await (const state of agent().iterate("go", { sink: recorder.sink })) recorder.onState(state)
      expect(recorder.states.map((s) => s.execution.steps.length)).toEqual([1, 2, 3])
      expect(recorder.final?.execution.status).toBe("completed")
    })
  })

  describe("onEvent", () => {
    it("records agent.stream", async () => {
      const recorder = TraceRecorder.make()
      for await (const event of agent().stream("go", { hookEvents: true })) recorder.onEvent(event)
      const reference = await TraceRecorder.run(agent(), "go")
      expect(TraceRecorder.lines(recorder)).toEqual(TraceRecorder.lines(reference))
      expect(recorder.states.length).toBe(3)
    })
  })
})
