import { AgentState, Message } from "@hookline/core"
import { ScriptedDriver } from "@hookline/testing"
import { Effect } from "effect"
import * as t from "io-ts"
import { describe, expect, it } from "vitest"
import { AgentBuilder, Tool, UseAll, UseDriver, UseLoader, UseTools } from "../src/index.js"

describe("Agent", () => {
  describe("resume", () => {
    it("rejects with InvalidConfiguration when no capability loads runs", async () => {
      const agent = AgentBuilder.make(UseDriver(ScriptedDriver.make([ScriptedDriver.text("hi")])))
      await expect(agent.resume("run-1")).rejects.toMatchObject({ _tag: "InvalidConfiguration" })
    })

    it("runs a loaded state that has not finished, and gives a finished one back as it is", async () => {
      const pending = AgentState.make({ id: "run-1", messages: [Message.user("hi")] })
      const done = AgentState.withStatus(pending, "completed", 5)
      const driver = ScriptedDriver.make([ScriptedDriver.text("hello")])
      const loaded: Array<string> = []
      const agent = AgentBuilder.make(
        UseDriver(driver),
        UseLoader((runId) => Effect.sync(() => (loaded.push(runId), runId === "done" ? done : pending))),
      )
      expect(await agent.resume("done")).toBe(done)
      const final = await agent.resume("run-1")
      expect(final.execution.status).toBe("completed")
      expect(final.context.messages.last()?.content).toBe("hello")
      expect(loaded).toEqual(["done", "run-1"])
      expect(driver.requests).toHaveLength(1)
    })

    it("fails with the loader's typed error", async () => {
      const agent = AgentBuilder.make(
        UseDriver(ScriptedDriver.make([])),
        UseLoader((runId) => Effect.fail({ _tag: "RunNotFound", message: `no run ${runId}` })),
      )
      const exit = await Effect.runPromiseExit(agent.resumeEffect("x"))
      expect(exit).toMatchObject({ _tag: "Failure" })
      await expect(agent.resume("x")).rejects.toMatchObject({ _tag: "RunNotFound" })
    })

    it("settles a run it ran (not one given back as it is): settle's typed error rejects the resume", async () => {
      const pending = AgentState.make({ id: "run-1", messages: [Message.user("hi")] })
      const done = AgentState.withStatus(pending, "completed", 5)
      const settled: Array<string> = []
      const agent = AgentBuilder.make(
        UseDriver(ScriptedDriver.make([ScriptedDriver.text("hello")], { repeatLast: true })),
        UseLoader(
          (runId) => Effect.succeed(runId === "done" ? done : pending),
          (state) => {
            settled.push(state.execution.status)
            return Effect.fail({ _tag: "CheckpointConflict", message: `conflict on ${state.id}` })
          },
        ),
      )
      expect(await agent.resume("done")).toBe(done)
      await expect(agent.resume("run-1")).rejects.toMatchObject({ _tag: "CheckpointConflict", message: "conflict on run-1" })
      // `run` never rejects, and settles nothing.
      expect((await agent.run(pending)).execution.status).toBe("completed")
      expect(settled).toEqual(["completed"])
    })
  })
})

describe("AgentBuilder", () => {
  it("reads the capabilities of a bundle at their own paths", () => {
    expect(() => AgentBuilder.make(UseAll(UseLoader(() => Effect.die("x")), UseLoader(() => Effect.die("y")))))
      .toThrow("capabilities[0].capabilities[1]")
    expect(() => AgentBuilder.make(UseAll(UseAll({ _tag: "Nope" } as never)))).toThrow("capabilities[0].capabilities[0].capabilities[0]")
  })

  it("refuses a settle that is not a function, by its path", () => {
    expect(() => AgentBuilder.make(UseLoader(() => Effect.die("x"), "nope" as never))).toThrow("capabilities[0].settle")
  })
})

describe("Tool", () => {
  it("gives the call an idempotency key made of the run id and the tool call id", async () => {
    const keys: Array<string> = []
    const tool = Tool.make({ name: "pay", parameters: t.type({}), execute: (_, context) => (keys.push(context.idempotencyKey), "ok") })
    const agent = AgentBuilder.make(
      UseDriver(ScriptedDriver.make([ScriptedDriver.toolCalls([{ id: "call-7", name: "pay", arguments: {} }]), ScriptedDriver.text("paid")])),
      UseTools([tool]),
    )
    const final = await agent.run(AgentState.make({ id: "run-9", messages: [Message.user("pay")] }))
    expect(final.execution.status).toBe("completed")
    expect(keys).toEqual(["run-9:call-7"])
  })
})

describe("a suspended run's usage", () => {
  it("counts the model call of the step it suspended in, once", async () => {
    const { Decision, UseHook } = await import("../src/index.js")
    const { HookContext, Usage } = await import("@hookline/core")
    const driver = ScriptedDriver.make([
      ScriptedDriver.toolCalls([{ id: "c1", name: "pay", arguments: {} }, { id: "c2", name: "pay", arguments: {} }]),
      ScriptedDriver.text("paid"),
    ], { usage: { inputTokens: 10, outputTokens: 4 } })
    const pay = Tool.make({ name: "pay", parameters: t.type({}), execute: () => "ok" })
    const agent = AgentBuilder.make(
      UseDriver(driver),
      UseTools([pay]),
      UseHook((ctx) => ctx.toolCall !== undefined ? HookContext.suspend(ctx, "approve") : ctx, { triggers: "BeforeToolUse", name: "test:approval" }),
    )
    const suspended = await agent.run("pay twice")
    expect(suspended.execution.usage).toEqual(Usage.make(10, 4))
    // A partial decision: still suspended, still counted once.
    const half = await agent.resume(suspended, [Decision.approve("c1")])
    expect(half.execution.status).toBe("suspended")
    expect(half.execution.usage).toEqual(Usage.make(10, 4))
    const final = await agent.resume(half, [Decision.approve("c2")])
    expect(final.execution.status).toBe("completed")
    expect(final.execution.usage).toEqual(Usage.make(20, 8))
    // The step records hold the model calls they record: the suspended step's record,
    // ended on resume, holds its model call (counted in the run's usage once, when it
    // suspended); the run's usage is the sum of the steps'.
    const steps = final.execution.steps.toArray()
    expect(steps.map((s) => s.usage)).toEqual([Usage.make(10, 4), Usage.make(10, 4)])
    expect(steps[0]?.response?.toolCalls.map((c) => c.id)).toEqual(["c1", "c2"])
    expect(steps[0]?.toolExecutions.map((e) => e.toolCall.id)).toEqual(["c1", "c2"])
  })
})
