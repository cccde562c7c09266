import { describe, expect, it } from "vitest"
import { AgentBuilder, UseDriver, UseGuards, UseHook } from "@hookline/agent"
import { HookContext, HookTrigger, StopSignal } from "@hookline/core"
import { ModelCallLimit, UseModelCallLimit } from "@hookline/middleware"
import { HookLaws, ScriptedDriver } from "@hookline/testing"

const loop = () => ScriptedDriver.make([ScriptedDriver.text("1"), ScriptedDriver.text("2"), ScriptedDriver.text("3")])

// Each answer is final: an OnStop hook that continues the run asks the model again.
const keepGoing = UseHook(
  (ctx) => (ctx.state.execution.stopSignals.every((s) => s.reason === "Completed") ? HookContext.requestContinuation(ctx, "again") : ctx),
  { triggers: HookTrigger.OnStop, name: "test:keep_going" },
)

describe("ModelCallLimit", () => {
  describe("use", () => {
    it("stops the run before the call past the limit", async () => {
      const driver = loop()
      const final = await AgentBuilder.make(UseDriver(driver), UseGuards({ maxSteps: 10 }), keepGoing, UseModelCallLimit({ max: 2 })).run("go")
      expect(driver.requests).toHaveLength(2)
      expect(final.execution.status).toBe("stopped")
      expect(StopSignal.highest(final.execution.stopSignals)).toMatchObject({ reason: ModelCallLimit.stopReason, source: ModelCallLimit.name })
    })

    it("answers the call past the limit without the model with onLimit: answer", async () => {
      const driver = loop()
      const agent = AgentBuilder.make(UseDriver(driver), UseModelCallLimit({ max: 1, onLimit: "answer", message: "I have to stop here." }))
      const first = await agent.run("go")
      expect(first.context.messages.at(-1)?.content).toBe("1")
      // A second run counts from zero.
      const second = await agent.run(first)
      expect(second.context.messages.at(-1)?.content).toBe("2")
      const limited = await AgentBuilder.make(UseDriver(loop()), UseGuards({ maxSteps: 10 }), keepGoing, UseModelCallLimit({ max: 1, onLimit: "answer", message: "I have to stop here." }))
        .run("go")
      expect([...limited.context.messages].filter((m) => m.role === "assistant").map((m) => m.content).slice(0, 2)).toEqual(["1", "I have to stop here."])
    })

    it("refuses bad options", () => {
      expect(() => UseModelCallLimit({} as never)).toThrow(/options\.max/)
      expect(() => UseModelCallLimit({ max: 1, onLimit: "error" as never })).toThrow(/options\.onLimit/)
    })
  })

  describe("make", () => {
    it("obeys the laws of hooks", () => {
      HookLaws.check(ModelCallLimit.make({ max: 1 }), { name: ModelCallLimit.name, triggers: ["BeforeExecution", "BeforeStep", "BeforeInference"] })
      HookLaws.check(ModelCallLimit.make({ max: 0, onLimit: "answer" }), { name: ModelCallLimit.name, triggers: ["BeforeInference"] })
    })
  })
})
