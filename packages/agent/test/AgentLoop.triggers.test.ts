import { describe, expect, it } from "vitest"
import { AgentState, HookContext, InferenceResponse, Message, StopSignal, Usage } from "@hookline/core"
import { AgentLoop } from "@hookline/agent"
import { ScriptedDriver } from "@hookline/testing"
import { add, messages, on, runWith, stackOf, trail } from "./support.js"

const twoSteps = [
  ScriptedDriver.toolCalls([{ name: "add", arguments: { a: 2, b: 2 } }], { usage: Usage.make(10, 3) }),
  ScriptedDriver.text("4", { usage: Usage.make(20, 1) }),
]

describe("AgentLoop", () => {
  describe("run", () => {
    it("fires every trigger in the order of the design", async () => {
      const { seen, hook, options } = trail()
      await runWith(AgentLoop.make({ interceptor: stackOf([hook, options]), tools: [add] }), twoSteps)
      expect(seen).toEqual([
        "BeforeExecution",
        "BeforeStep",
        "BeforeInference",
        "AfterInference",
        "BeforeToolUse:add",
        "AfterToolUse:add",
        "AfterStep",
        "BeforeStep",
        "BeforeInference",
        "AfterInference",
        "AfterStep",
        "OnStop",
        "AfterExecution",
      ])
    })

    it("completes naturally after a step whose response has no tool calls", async () => {
      const { final } = await runWith(AgentLoop.make({ tools: [add] }), twoSteps)
      expect(final.execution.status).toBe("completed")
      expect(messages(final)).toEqual(["user:What is 2+2?", 'assistant:add({"a":2,"b":2})', "tool:4", "assistant:4"])
      expect(StopSignal.highest(final.execution.stopSignals)?.reason).toBe("Completed")
    })

    it("accumulates usage per step and per run, and records each step's finish reason", async () => {
      const { final } = await runWith(AgentLoop.make({ tools: [add] }), twoSteps)
      const steps = [...final.execution.steps]
      expect(steps.map((s) => [s.usage, s.finishReason])).toEqual([[Usage.make(10, 3), "tool-calls"], [Usage.make(20, 1), "stop"]])
      expect(final.execution.usage).toEqual(Usage.make(30, 4))
    })

    it("sends the state's system prompt, history and tool definitions to the model", async () => {
      const state = AgentState.make({ systemPrompt: "Be terse.", messages: [Message.user("hi")] })
      const { driver } = await runWith(AgentLoop.make({ tools: [add], modelOptions: { temperature: 0 } }), [ScriptedDriver.text("hello")], state)
      const request = driver.requests[0]
      expect(request?.systemPrompt).toBe("Be terse.")
      expect([...(request?.messages ?? [])]).toEqual([Message.user("hi")])
      expect(request?.tools.map((t) => t.name)).toEqual(["add"])
      expect(request?.options).toEqual({ temperature: 0 })
    })
  })

  describe("BeforeExecution", () => {
    it("can stop the run before any model call", async () => {
      const stop = (ctx: HookContext) => HookContext.withStopSignal(ctx, StopSignal.make("StopRequested", "not today", "test"))
      const { final, driver } = await runWith(AgentLoop.make({ interceptor: stackOf([stop, on("BeforeExecution", "stop")]) }), [ScriptedDriver.text("x")])
      expect(driver.requests).toHaveLength(0)
      expect(final.execution.steps.length).toBe(0)
      expect(final.execution.status).toBe("completed")
    })
  })

  describe("BeforeStep", () => {
    it("persists a state edit", async () => {
      const tag = (ctx: HookContext) => HookContext.withState(ctx, AgentState.withMetadata(ctx.state, { tenant: "acme" }))
      const { final } = await runWith(AgentLoop.make({ interceptor: stackOf([tag, on("BeforeStep", "tag")]) }), [ScriptedDriver.text("x")])
      expect(final.metadata).toEqual({ tenant: "acme" })
    })
  })

  describe("BeforeInference", () => {
    it("edits the request for this call only (a sliding window)", async () => {
      const lastTwo = (ctx: HookContext) =>
        ctx.request ? HookContext.withRequest(ctx, { ...ctx.request, messages: ctx.request.messages.slice(-2) }) : ctx
      const state = AgentState.make({ messages: ["a", "b", "c", "d"].map(Message.user) })
      const { final, driver } = await runWith(
        AgentLoop.make({ interceptor: stackOf([lastTwo, on("BeforeInference", "window:last_two")]) }),
        [ScriptedDriver.text("ok")],
        state,
      )
      expect([...(driver.requests[0]?.messages ?? [])].map((m) => m.content)).toEqual(["c", "d"])
      expect(final.context.messages.length).toBe(5)
    })

    it("skips the model when a hook sets a response (a cache hit)", async () => {
      const cached = InferenceResponse.make({ text: "from cache", modelId: "cache" })
      const cache = (ctx: HookContext) => HookContext.withResponse(ctx, cached)
      const { final, driver } = await runWith(
        AgentLoop.make({ interceptor: stackOf([cache, on("BeforeInference", "cache:lookup")]) }),
        [ScriptedDriver.text("from the model")],
      )
      expect(driver.requests).toHaveLength(0)
      expect(final.context.messages.last()).toEqual(Message.assistant("from cache"))
    })
  })

  describe("AfterInference", () => {
    it("rewrites the response before the assistant message is committed", async () => {
      const shout = (ctx: HookContext) =>
        ctx.response ? HookContext.withResponse(ctx, InferenceResponse.make({ ...ctx.response, text: ctx.response.text.toUpperCase() })) : ctx
      const { final } = await runWith(AgentLoop.make({ interceptor: stackOf([shout, on("AfterInference", "shout")]) }), [ScriptedDriver.text("quiet")])
      expect(final.context.messages.last()?.content).toBe("QUIET")
      expect(final.execution.steps.at(0)?.response?.text).toBe("QUIET")
    })

    it("can drop the model's tool calls, which ends the run naturally", async () => {
      const noTools = (ctx: HookContext) =>
        ctx.response ? HookContext.withResponse(ctx, InferenceResponse.make({ ...ctx.response, toolCalls: [], finishReason: "stop" })) : ctx
      const { final } = await runWith(AgentLoop.make({ interceptor: stackOf([noTools, on("AfterInference", "no_tools")]), tools: [add] }), twoSteps)
      expect(final.execution.steps.length).toBe(1)
      expect(final.context.messages.length).toBe(2)
    })
  })

  describe("AfterStep", () => {
    it("can stop the run", async () => {
      const stop = (ctx: HookContext) => HookContext.withStopSignal(ctx, StopSignal.make("StopRequested", "enough", "test:stop"))
      const { final } = await runWith(AgentLoop.make({ interceptor: stackOf([stop, on("AfterStep", "stop")]), tools: [add] }), twoSteps)
      expect(final.execution.steps.length).toBe(1)
      expect(final.execution.stopSignals.map((s) => s.source)).toEqual(["test:stop"])
      expect(final.execution.status).toBe("completed")
    })
  })

  describe("OnStop", () => {
    it("resumes the loop when a hook requests a continuation with a new user message", async () => {
      let asked = 0
      const followUp = (ctx: HookContext) => asked++ === 0 ? HookContext.requestContinuation(ctx, "And in French?") : ctx
      const { final, driver } = await runWith(
        AgentLoop.make({ interceptor: stackOf([followUp, on("OnStop", "follow_up")]) }),
        [ScriptedDriver.text("four"), ScriptedDriver.text("quatre")],
      )
      expect(messages(final)).toEqual(["user:What is 2+2?", "assistant:four", "user:And in French?", "assistant:quatre"])
      expect(driver.requests).toHaveLength(2)
      expect(final.execution.status).toBe("completed")
      expect(final.execution.continuationRequested).toBe(false)
    })

    it("cannot continue a hard stop", async () => {
      const always = (ctx: HookContext) => HookContext.requestContinuation(ctx, "go on")
      const limit = (ctx: HookContext) =>
        ctx.state.execution.steps.length >= 1 ? HookContext.withStopSignal(ctx, StopSignal.make("StepsLimitReached", "1/1", "test:limit")) : ctx
      const { final, driver } = await runWith(
        AgentLoop.make({ interceptor: stackOf([always, on("OnStop", "always")], [limit, on("BeforeStep", "limit")]) }),
        [ScriptedDriver.text("one"), ScriptedDriver.text("two"), ScriptedDriver.text("three")],
      )
      // The first stop (Completed) is soft and continued; the limit at the next BeforeStep is not.
      expect(driver.requests).toHaveLength(1)
      expect(messages(final)).toEqual(["user:What is 2+2?", "assistant:one", "user:go on", "user:go on"])
      expect(final.execution.status).toBe("stopped")
      expect(StopSignal.highest(final.execution.stopSignals)?.reason).toBe("StepsLimitReached")
    })
  })

  describe("AfterExecution", () => {
    it("sees the final status and can edit the final state", async () => {
      let seenStatus = ""
      const stamp = (ctx: HookContext) => {
        seenStatus = ctx.state.execution.status
        return HookContext.withState(ctx, AgentState.withMetadata(ctx.state, { archived: true }))
      }
      const { final } = await runWith(AgentLoop.make({ interceptor: stackOf([stamp, on("AfterExecution", "archive")]) }), [ScriptedDriver.text("x")])
      expect(seenStatus).toBe("completed")
      expect(final.metadata).toEqual({ archived: true })
    })
  })
})
