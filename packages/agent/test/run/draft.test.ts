// The step's request before BeforeInference (run/step.ts `draftOf`): after the first
// step took a configuration's model options through InferenceRequest.make, later
// drafts are built from the same frozen parts without make's checks. Each must still
// be the object make would build, and options make refuses stay refused on every run.
import * as t from "io-ts"
import { Effect, Exit } from "effect"
import { describe, expect, it } from "vitest"
import { AgentLoop, Tool } from "@hookline/agent"
import { type InferenceRequest as Request, InferenceRequest } from "@hookline/core"
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
  it("is on every step of every run what InferenceRequest.make builds from its parts", async () => {
    const modelOptions = { temperature: 0.5, seed: 7, stopSequences: ["\n\n"], providerOptions: { openai: { store: false } } }
    const loop = AgentLoop.make({ tools: [echo], modelOptions })
    const seen: Array<Request.InferenceRequest> = []
    for (let run = 0; run < 2; run++) {
      const driver = script()
      const final = await Effect.runPromise(AgentLoop.run(loop, "go").pipe(Effect.provide(driver.layer)))
      expect(final.execution.status).toBe("completed")
      seen.push(...driver.requests)
    }
    expect(seen).toHaveLength(6)
    const options = seen[0]!.options
    expect(options).toEqual(modelOptions)
    for (const request of seen) {
      const made = InferenceRequest.make({
        systemPrompt: request.systemPrompt,
        messages: request.messages,
        tools: request.tools,
        responseFormat: request.responseFormat,
        options: request.options,
      })
      expect(request).toEqual(made)
      expect(Object.keys(request)).toEqual(Object.keys(made))
      expect(request.options).toBe(options)
      expect(Object.isFrozen(request)).toBe(true)
      expect([frozenThrough(request.tools), request.messages.toArray().every(frozenThrough)]).toEqual([true, true])
      expect(InferenceRequest.isInferenceRequest(request)).toBe(true)
    }
    // Each step's history, not a later one's.
    expect(seen.map((r) => r.messages.length)).toEqual([1, 3, 5, 1, 3, 5])
  })

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

  it("refuses options make refuses on every run, not only the first", async () => {
    const loop = AgentLoop.make({ tools: [echo], modelOptions: { temperature: Number.NaN } })
    for (let run = 0; run < 2; run++) {
      const exit = await Effect.runPromiseExit(AgentLoop.run(loop, "go").pipe(Effect.provide(script().layer)))
      expect(Exit.isFailure(exit)).toBe(true)
      expect(String(Exit.isFailure(exit) ? exit.cause : "")).toContain("options.temperature")
    }
  })
})
