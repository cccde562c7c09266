// `AgentLoop.currentRunNow()` is `currentRun` read at once: inside a run's hooks (pure or
// effectful, concurrent tools included) it is that run's object, distinct per run, and
// outside a run it is undefined.
import { AgentBuilder, AgentLoop, Tool, UseDriver, UseHook, UseLoopOptions, UseTools } from "@hookline/agent"
import { AgentState, Hook, HookTriggers, Message } from "@hookline/core"
import { ScriptedDriver } from "@hookline/testing"
import { Effect } from "effect"
import * as t from "io-ts"
import { describe, expect, it } from "vitest"

describe("AgentLoop", () => {
  describe("currentRunNow", () => {
    it("reads the run currentRun reads, in pure and effectful hooks, one object per run", async () => {
      const pure: Array<object | undefined> = []
      const effectful: Array<{ readonly now: object | undefined; readonly run: object | undefined }> = []
      const echo = Tool.make({ name: "echo", parameters: t.type({ n: t.number }), execute: ({ n }) => n })
      // A new agent per run: the scripted driver's answers are used up by one run.
      const agent = () => AgentBuilder.make(
        UseDriver(ScriptedDriver.make([
          ScriptedDriver.toolCalls([{ id: "a", name: "echo", arguments: { n: 1 } }, { id: "b", name: "echo", arguments: { n: 2 } }]),
          ScriptedDriver.text("done"),
        ])),
        UseTools([echo]),
        UseLoopOptions({ toolConcurrency: "concurrent" }),
        UseHook((ctx) => {
          pure.push(AgentLoop.currentRunNow())
          return ctx
        }, { triggers: HookTriggers.all, name: "test:pure" }),
        UseHook(
          Hook.effect((ctx) => Effect.map(AgentLoop.currentRun, (run) => (effectful.push({ now: AgentLoop.currentRunNow(), run }), ctx))),
          { triggers: HookTriggers.all, name: "test:effect" },
        ),
      )
      const runs: Array<ReadonlySet<object | undefined>> = []
      for (const id of ["one", "two"]) {
        pure.length = 0
        effectful.length = 0
        const final = await agent().run(AgentState.make({ id, messages: [Message.user("go")] }))
        expect(final.execution.status).toBe("completed")
        const seen = new Set([...pure, ...effectful.flatMap((e) => [e.now, e.run])])
        expect(seen.size).toBe(1)
        expect([...seen][0]).toBeTypeOf("object")
        for (const e of effectful) expect(e.now).toBe(e.run)
        runs.push(seen)
      }
      expect([...(runs[0] as ReadonlySet<object>)][0]).not.toBe([...(runs[1] as ReadonlySet<object>)][0])
      expect(AgentLoop.currentRunNow()).toBeUndefined()
    })
  })
})
