// The model options a run hands its hooks and its driver are frozen all through.
import * as t from "io-ts"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { AgentLoop, Tool } from "@hookline/agent"
import { ScriptedDriver } from "@hookline/testing"

const echo = Tool.make({ name: "echo", parameters: t.type({ s: t.string }), execute: async ({ s }) => s })
const script = () =>
  ScriptedDriver.make([
    ScriptedDriver.toolCalls([{ name: "echo", arguments: { s: "a" } }]),
    ScriptedDriver.toolCalls([{ name: "echo", arguments: { s: "b" } }]),
    ScriptedDriver.text("done"),
  ])

const frozenThrough = (value: unknown): boolean =>
  typeof value !== "object" || value === null ||
  (Object.isFrozen(value) && Object.values(value).every(frozenThrough))

describe("the step's draft request", () => {
  // Found here: AgentLoop.make froze its copy of the options' shell only, and make's
  // deepFreeze stops at a frozen node, so a hook or the driver got the caller's
  // stopSequences and providerOptions, which anyone could change under the run.
  it("hands hooks and the driver model options frozen all through", async () => {
    const modelOptions = { stopSequences: ["\n\n"], providerOptions: { openai: { store: false } } }
    const loop = AgentLoop.make({ tools: [echo], modelOptions })
    const driver = script()
    await Effect.runPromise(AgentLoop.run(loop, "go").pipe(Effect.provide(driver.layer)))
    expect(driver.requests).toHaveLength(3)
    for (const request of driver.requests) expect(frozenThrough(request.options)).toBe(true)
    expect(() => (modelOptions.providerOptions.openai as { store: boolean }).store = true).toThrow(TypeError)
    expect(driver.requests[0]!.options.providerOptions).toEqual({ openai: { store: false } })
  })
})
