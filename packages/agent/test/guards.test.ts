// Each guard inside a real run, through the builder (UseGuards), as users meet them.
import { type Duration, Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { describe, expect, it } from "vitest"
import { HookContext, StopReason, StopSignal, type Hook } from "@hookline/core"
import { AgentBuilder, UseDriver, UseGuards, UseHook, UseTools, type Agent } from "@hookline/agent"
import { ScriptedDriver } from "@hookline/testing"
import { answers, echo, echoForever, on, stopReason, toolResults } from "./support.js"

const guardSignal = (final: { readonly execution: { readonly stopSignals: ReadonlyArray<StopSignal> } }) =>
  StopSignal.highest(final.execution.stopSignals)

// Runs the agent on the TestClock, advancing it `times` by `step` while the run goes on.
const runTimed = (agent: Agent, step: Duration.Input, times: number) =>
  Effect.runPromise(
    Effect.gen(function*() {
      const fiber = yield* Effect.forkChild(agent.runEffect("tick"), { startImmediately: true })
      for (let i = 0; i < times; i++) yield* TestClock.adjust(step)
      return yield* Fiber.join(fiber)
    }).pipe(Effect.provide(TestClock.layer())),
  )

const slowTicks = (duration: Duration.Input) =>
  ScriptedDriver.make([ScriptedDriver.delay(duration, ScriptedDriver.toolCalls([{ name: "echo", arguments: { text: "tick" } }]))], {
    repeatLast: true,
  })

describe("Guards", () => {
  describe("steps limit", () => {
    it("stops a model that always calls a tool after exactly maxSteps steps", async () => {
      const driver = echoForever()
      const final = await AgentBuilder.make(UseDriver(driver), UseTools([echo]), UseGuards({ maxSteps: 2 })).run("loop")
      expect(final.execution.steps.length).toBe(2)
      expect(driver.requests).toHaveLength(2)
      expect(toolResults(final)).toHaveLength(2)
      expect(final.execution.status).toBe("stopped")
      expect(guardSignal(final)).toEqual({ reason: "StepsLimitReached", message: "Step limit reached: 2/2", source: "guard:steps_limit" })
    })

    it("stops before any model call with maxSteps 0", async () => {
      const driver = echoForever()
      const final = await AgentBuilder.make(UseDriver(driver), UseTools([echo]), UseGuards({ maxSteps: 0 })).run("loop")
      expect(driver.requests).toHaveLength(0)
      expect(final.execution.status).toBe("stopped")
      expect(stopReason(final)).toBe("StepsLimitReached")
    })
  })

  describe("token limit", () => {
    it("stops before the model call that would start past maxTokens", async () => {
      const driver = echoForever({ usage: { inputTokens: 600, outputTokens: 0 } })
      const final = await AgentBuilder.make(UseDriver(driver), UseTools([echo]), UseGuards({ maxTokens: 1000 })).run("loop")
      expect(driver.requests).toHaveLength(2)
      expect(final.execution.steps.length).toBe(2)
      expect(final.execution.usage).toEqual({ inputTokens: 1200, outputTokens: 0 })
      expect(final.execution.status).toBe("stopped")
      expect(guardSignal(final)).toMatchObject({ reason: "TokenLimitReached", source: "guard:token_limit" })
    })

    it("counts input and output tokens together", async () => {
      const driver = echoForever({ usage: { inputTokens: 300, outputTokens: 300 } })
      const final = await AgentBuilder.make(UseDriver(driver), UseTools([echo]), UseGuards({ maxTokens: 1000 })).run("loop")
      expect(driver.requests).toHaveLength(2)
      expect(stopReason(final)).toBe("TokenLimitReached")
    })
  })

  describe("time limit", () => {
    it("interrupts the step during which maxExecutionTime passed (the limit bounds the wall clock)", async () => {
      const driver = slowTicks("4 seconds")
      const agent = AgentBuilder.make(UseDriver(driver), UseTools([echo]), UseGuards({ maxExecutionTime: "10 seconds" }))
      const final = await runTimed(agent, "4 seconds", 5)
      expect(final.execution.steps.length).toBe(3)
      expect(driver.requests).toHaveLength(3)
      expect(final.execution.status).toBe("stopped")
      expect(guardSignal(final)).toEqual({
        reason: "TimeLimitReached",
        message: "Time limit reached: 10000 ms/10000 ms",
        source: "guard:time_limit",
      })
    })

    it("defaults to 300 seconds", async () => {
      const driver = slowTicks("100 seconds")
      const agent = AgentBuilder.make(UseDriver(driver), UseTools([echo]))
      const final = await runTimed(agent, "100 seconds", 5)
      expect(final.execution.steps.length).toBe(3)
      expect(stopReason(final)).toBe("TimeLimitReached")
    })

    it("does not fire with maxExecutionTime null", async () => {
      const driver = ScriptedDriver.make([
        ScriptedDriver.delay("400 seconds", ScriptedDriver.toolCalls([{ name: "echo", arguments: { text: "slow" } }])),
        ScriptedDriver.text("done"),
      ])
      const agent = AgentBuilder.make(UseDriver(driver), UseTools([echo]), UseGuards({ maxExecutionTime: null }))
      const final = await runTimed(agent, "400 seconds", 1)
      expect(final.execution.status).toBe("completed")
      expect(answers(final)).toEqual(["done"])
    })
  })

  describe("finish reason", () => {
    const cutOff = () =>
      ScriptedDriver.make([
        ScriptedDriver.toolCalls([{ name: "echo", arguments: { text: "cut" } }], { finishReason: "length" }),
        ScriptedDriver.text("done"),
      ])

    it("stops after a step with a listed finish reason, as a soft stop: completed", async () => {
      const driver = cutOff()
      const final = await AgentBuilder.make(UseDriver(driver), UseTools([echo]), UseGuards({ finishReasons: ["length"] })).run("go")
      expect(final.execution.steps.length).toBe(1)
      expect(driver.requests).toHaveLength(1)
      expect(toolResults(final)).toEqual([["echo", "cut", false]])
      expect(final.execution.status).toBe("completed")
      expect(guardSignal(final)).toEqual({
        reason: "FinishReasonReceived",
        message: "Finish reason received: length",
        source: "guard:finish_reason",
      })
    })

    it("is off by default", async () => {
      const driver = cutOff()
      const final = await AgentBuilder.make(UseDriver(driver), UseTools([echo])).run("go")
      expect(driver.requests).toHaveLength(2)
      expect(stopReason(final)).toBe("Completed")
    })
  })

  describe("continuation", () => {
    const continueWhen = (reason: StopReason): Hook => (ctx) =>
      stopReason(ctx.state) === reason ? HookContext.requestContinuation(ctx) : ctx

    it("cannot override a hard guard stop", async () => {
      const driver = echoForever()
      const final = await AgentBuilder.make(
        UseDriver(driver),
        UseTools([echo]),
        UseGuards({ maxSteps: 2 }),
        UseHook(continueWhen(StopReason.StepsLimitReached), on("OnStop", "flow:keep_going")),
      ).run("loop")
      expect(driver.requests).toHaveLength(2)
      expect(final.execution.status).toBe("stopped")
      expect(stopReason(final)).toBe("StepsLimitReached")
      expect(final.execution.continuationRequested).toBe(false)
    })

    it("can override FinishReasonReceived, and the run goes on", async () => {
      const driver = ScriptedDriver.make([
        ScriptedDriver.toolCalls([{ name: "echo", arguments: { text: "cut" } }], { finishReason: "length" }),
        ScriptedDriver.text("done"),
      ])
      const final = await AgentBuilder.make(
        UseDriver(driver),
        UseTools([echo]),
        UseGuards({ finishReasons: ["length"] }),
        UseHook(continueWhen(StopReason.FinishReasonReceived), on("OnStop", "flow:keep_going")),
      ).run("go")
      expect(driver.requests).toHaveLength(2)
      expect(final.execution.steps.length).toBe(2)
      expect(final.execution.status).toBe("completed")
      expect(stopReason(final)).toBe("Completed")
      expect(answers(final)).toEqual(["done"])
    })
  })
})
