import { Hook, HookTriggers } from "@hookline/core"
import { AgentBuilder, Subagent, Tool, UseDriver, UseHook, UseTools } from "@hookline/agent"
import { ScriptedDriver } from "@hookline/testing"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"

describe("Subagent", () => {
  describe("ParentCall", () => {
    it("names, in a child run, the parent run and the tool call that started it; a top-level run has none", async () => {
      const seen: Array<unknown> = []
      const listen = UseHook(
        Hook.effect((ctx) => Effect.map(Subagent.ParentCall, (parent) => (seen.push([ctx.state.id, parent]), ctx))),
        { name: "test:parent", triggers: HookTriggers.of("BeforeExecution") },
      )
      const child = AgentBuilder.make(UseDriver(ScriptedDriver.make([ScriptedDriver.text("found")])), listen)
      const parent = AgentBuilder.make(
        UseDriver(ScriptedDriver.make([
          ScriptedDriver.toolCalls([{ id: "call_research", name: "research", arguments: { prompt: "what?" } }]),
          ScriptedDriver.text("done"),
        ])),
        UseTools([Tool.fromAgent(child, { name: "research", description: "Looks a question up" })]),
        listen,
      )
      const final = await parent.run("go")
      expect(final.execution.errors).toEqual([])
      expect(seen).toHaveLength(2)
      expect(seen[0]).toEqual([final.id, undefined])
      const [childId, parentCall] = seen[1] as [string, unknown]
      expect(childId).not.toBe(final.id)
      expect(parentCall).toEqual({ runId: final.id, toolCallId: "call_research" })
    })
  })
})
