import { AgentState, Hook } from "@hookline/core"
import { ScriptedDriver } from "@hookline/testing"
import { Context, Effect, Logger } from "effect"
import * as t from "io-ts"
import { describe, expect, it } from "vitest"
import { AgentBuilder, Resource, Tool, UseAroundRun, UseDriver, UseHook, UseResource, UseTools } from "../src/index.js"

// What a wrap provides: a reference every part of the run reads.
const Label = Context.Reference<string>("test/AroundRun/Label", { defaultValue: () => "none" })

const labelled = (label: string) => UseAroundRun((run) => Effect.provideService(run, Label, label))

const record = (seen: Array<string>, where: string) =>
  Hook.effect((ctx) => Effect.map(Label, (label) => (seen.push(`${where}:${label}`), ctx)))

describe("AgentBuilder", () => {
  describe("UseAroundRun", () => {
    it("runs hooks, tools and the loop's own log inside the wrap, the first given outermost", async () => {
      const seen: Array<string> = []
      const logged: Array<string> = []
      const tool = Tool.make({
        name: "look",
        parameters: t.type({}),
        execute: () => Effect.map(Label, (label) => (seen.push(`tool:${label}`), "ok")),
      })
      const agent = AgentBuilder.make(
        UseDriver(ScriptedDriver.make([ScriptedDriver.toolCalls([{ id: "c1", name: "look", arguments: {} }]), ScriptedDriver.failure("down")])),
        UseTools([tool]),
        UseHook(record(seen, "before"), { triggers: "BeforeExecution", name: "test:before" }),
        UseHook(record(seen, "after"), { triggers: "AfterExecution", name: "test:after" }),
        labelled("outer"),
        labelled("inner"),
        UseAroundRun((run) =>
          Effect.flatMap(Label, (label) => {
            seen.push(`wrap:${label}`)
            return run
          })
        ),
      )
      const logger = Logger.make((options) =>
        void logged.push(`${options.logLevel}:${options.fiber.getRef(Label)}`)
      )
      const state = await Effect.runPromise(agent.runEffect("go").pipe(Effect.provide(Logger.layer([logger]))))
      expect(state.execution.status).toBe("failed")
      expect(seen).toEqual(["wrap:inner", "before:inner", "tool:inner", "after:inner"])
      // The failed-run warning is written inside the wrap.
      expect(logged).toEqual(["Warn:inner"])
    })

    it("wraps a subagent's run with its own agent's wrap", async () => {
      const seen: Array<string> = []
      const child = AgentBuilder.make(
        UseDriver(ScriptedDriver.make([ScriptedDriver.text("found")])),
        UseHook(record(seen, "child"), { triggers: "BeforeExecution", name: "test:child" }),
        labelled("child"),
      )
      const parent = AgentBuilder.make(
        UseDriver(ScriptedDriver.make([ScriptedDriver.toolCalls([{ id: "c1", name: "ask", arguments: { prompt: "?" } }]), ScriptedDriver.text("done")])),
        UseTools([Tool.fromAgent(child, { name: "ask" })]),
        UseHook(record(seen, "parent"), { triggers: "BeforeExecution", name: "test:parent" }),
        labelled("parent"),
      )
      const done = await parent.run(AgentState.make({ id: "r1", messages: [] }))
      expect(done.execution.errors).toEqual([])
      expect(done.execution.status).toBe("completed")
      expect(seen).toEqual(["parent:parent", "child:child"])
    })

    it("keeps the wrap on an agent with a resource (its loop is made again for each run)", async () => {
      const seen: Array<string> = []
      const resource = Resource.make({ name: "test:none", open: Effect.succeed({ tools: () => [] }) })
      const agent = AgentBuilder.make(
        UseDriver(ScriptedDriver.make([ScriptedDriver.text("hi")])),
        UseResource(resource),
        UseHook(record(seen, "before"), { triggers: "BeforeExecution", name: "test:before" }),
        labelled("with-resource"),
      )
      expect((await agent.run("go")).execution.status).toBe("completed")
      expect(seen).toEqual(["before:with-resource"])
    })

    it("refuses a wrap that is not a function, at its path", () => {
      expect(() => AgentBuilder.make(UseAroundRun(42 as never))).toThrow(/capabilities\[0\]\.around: expected a function/)
    })
  })
})
