// The loop's record of a step no wrap hook held (run/step.ts, Step.fromFrozenParts) is
// the object Step.make builds from the same parts: same fields in the same order, the
// same values, frozen all through.
import * as t from "io-ts"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { AgentLoop, Tool } from "@hookline/agent"
import { Step } from "@hookline/core"
import { ScriptedDriver } from "@hookline/testing"

const echo = Tool.make({ name: "echo", parameters: t.type({ s: t.string }), execute: async ({ s }) => s })

const frozenThrough = (value: unknown): boolean =>
  typeof value !== "object" || value === null ||
  (Object.isFrozen(value) && Object.values(value).every(frozenThrough))

describe("the loop's step record", () => {
  it("is what Step.make builds from its parts, for steps with and without tool calls", async () => {
    const driver = ScriptedDriver.make([
      ScriptedDriver.toolCalls([{ name: "echo", arguments: { s: "a" } }, { name: "echo", arguments: { s: "b" } }]),
      ScriptedDriver.toolCalls([{ name: "nope", arguments: {} }]),
      ScriptedDriver.text("done"),
    ])
    const final = await Effect.runPromise(AgentLoop.run(AgentLoop.make({ tools: [echo] }), "go").pipe(Effect.provide(driver.layer)))
    const steps = final.execution.steps.toArray()
    expect(steps.map((s) => s.toolExecutions.map((e) => e.status))).toEqual([["success", "success"], ["failure"], []])
    for (const step of steps) {
      const made = Step.make({
        index: step.index,
        startedAt: step.startedAt,
        response: step.response,
        toolExecutions: step.toolExecutions,
        completedAt: step.completedAt,
      })
      expect(step).toEqual(made)
      expect(Object.keys(step)).toEqual(Object.keys(made))
      expect(frozenThrough(step)).toBe(true)
    }
    expect(Step.make({ index: 0, startedAt: 0, response: steps[2]!.response, toolExecutions: [] }).toolExecutions).toBe(steps[2]!.toolExecutions)
  })
})
