// How a run ended, read from the execution: stopReason (custom reasons included) and outcome.
import { describe, expect, it } from "vitest"
import { AgentState, Guards, HookContext, HookTrigger, StopReason, type Hook } from "@hookline/core"
import { AgentBuilder, UseDriver, UseGuards, UseHook, UseHooks, UseTools } from "@hookline/agent"
import { ScriptedDriver } from "@hookline/testing"
import { echo, echoForever } from "./support.js"

const ToolBudgetSpent = StopReason.custom({ name: "ToolBudgetSpent", priority: 550, kind: "hard" })

const toolBudget = (max: number) =>
  Guards.make({
    name: "guard:tool_budget",
    trigger: HookTrigger.BeforeStep,
    when: (ctx) => AgentState.toolCallsInExecution(ctx.state) >= max,
    reason: ToolBudgetSpent,
    message: `${max} tool calls in this run`,
  })

describe("execution.stopReason", () => {
  it("names a custom guard's reason when it ends the run, and a hard one stops it", async () => {
    const agent = AgentBuilder.make(UseDriver(echoForever()), UseTools([echo]), UseGuards({ maxSteps: 10 }), UseHooks(toolBudget(3)))
    const final = await agent.run("echo forever")
    expect(final.execution.stopReason).toBe("ToolBudgetSpent")
    expect(final.execution.status).toBe("stopped")
    expect(AgentState.toolCallsInExecution(final)).toBe(3)
    expect(AgentState.outcome(final)).toBe("stopped")
  })

  it("is Completed for a clean completion, with the outcome completed", async () => {
    const final = await AgentBuilder.make(UseDriver(ScriptedDriver.make([ScriptedDriver.text("hi")]))).run("hi")
    expect([final.execution.stopReason, final.execution.status, AgentState.outcome(final)]).toEqual(["Completed", "completed", "completed"])
  })

  it("tells a run that completed after handled errors from a clean one", async () => {
    // The first model call fails; an OnError hook handles it and the retry answers.
    const handle: Hook = (ctx) => HookContext.markErrorsHandled(ctx)
    const agent = AgentBuilder.make(
      UseDriver(ScriptedDriver.make([ScriptedDriver.failure("the model is down"), ScriptedDriver.text("hi")])),
      UseHook(handle, { triggers: HookTrigger.OnError, name: "errors:retry" }),
    )
    const final = await agent.run("hi")
    expect(final.execution.status).toBe("completed")
    expect(final.execution.stopReason).toBe("Completed")
    expect(final.execution.errors.map((e) => e._tag)).toEqual(["InferenceFailed"])
    expect(AgentState.outcome(final)).toBe("completedWithErrors")
  })

  it("is set before AfterExecution hooks run, and is undefined while running", async () => {
    const seen: Array<unknown> = []
    const record: Hook = (ctx) => {
      seen.push(`${ctx.trigger}:${String(ctx.state.execution.stopReason)}`)
      return ctx
    }
    const agent = AgentBuilder.make(
      UseDriver(ScriptedDriver.make([ScriptedDriver.text("hi")])),
      UseHook(record, { triggers: [HookTrigger.BeforeStep, HookTrigger.AfterExecution], name: "log:record" }),
    )
    await agent.run("hi")
    expect(seen).toEqual(["BeforeStep:undefined", "AfterExecution:Completed"])
  })
})
