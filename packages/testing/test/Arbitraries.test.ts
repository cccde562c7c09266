import fc from "fast-check"
import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { AgentState, AppendLog, Codecs, HookTrigger, Json, type JsonValue } from "@hookline/core"
import { Arbitraries, HookLaws } from "@hookline/testing"

const hasNegativeZero = (value: unknown): boolean => {
  if (Object.is(value, -0)) return true
  if (typeof value !== "object" || value === null) return false
  const children = AppendLog.isAppendLog(value) ? [...value] : Object.values(value)
  return children.some(hasNegativeZero)
}

// Encoded, written as JSON text, parsed and decoded: the value comes back equal.
const viaJson = <A, O>(codec: Codecs.Codec<A, O>, value: A): A => {
  const text = JSON.stringify(Codecs.encode(codec, value))
  const result = Codecs.decode(codec, JSON.parse(text))
  if (Result.isFailure(result)) throw new Error(`${result.failure.message} in ${text}`)
  return result.success
}

// Every arbitrary of the kit with the codec its values must survive.
const cases: ReadonlyArray<readonly [string, fc.Arbitrary<any>, Codecs.Codec<any, any>]> = [
  ["json", Arbitraries.json(), Codecs.JsonValue],
  ["jsonObject", Arbitraries.jsonObject(), Codecs.JsonObject],
  ["metadata", Arbitraries.metadata(), Codecs.Metadata],
  ["trigger", Arbitraries.trigger(), Codecs.HookTrigger],
  ["stopReason", Arbitraries.stopReason(), Codecs.StopReason],
  ["finishReason", Arbitraries.finishReason(), Codecs.FinishReason],
  ["executionStatus", Arbitraries.executionStatus(), Codecs.ExecutionStatus],
  ["usage", Arbitraries.usage(), Codecs.Usage],
  ["toolCall", Arbitraries.toolCall(), Codecs.ToolCall],
  ["message", Arbitraries.message(), Codecs.Message],
  ["stopSignal", Arbitraries.stopSignal(), Codecs.StopSignal],
  ["agentError", Arbitraries.agentError(), Codecs.AgentError],
  ["toolExecution", Arbitraries.toolExecution(), Codecs.ToolExecution],
  ["inferenceResponse", Arbitraries.inferenceResponse(), Codecs.InferenceResponse],
  ["responseFormat", Arbitraries.responseFormat(), Codecs.ResponseFormat],
  ["toolDefinition", Arbitraries.toolDefinition(), Codecs.ToolDefinition],
  ["modelOptions", Arbitraries.modelOptions(), Codecs.ModelOptions],
  ["inferenceRequest", Arbitraries.inferenceRequest(), Codecs.InferenceRequest],
  ["step", Arbitraries.step({ index: 2 }), Codecs.Step],
  ["agentState", Arbitraries.agentState(), Codecs.AgentState],
  ["hookContext", Arbitraries.hookContext(), Codecs.HookContext],
  ["blockedHookContext", Arbitraries.blockedHookContext(), Codecs.HookContext],
]

describe("Arbitraries", () => {
  describe.each(cases)("%s", (_, arbitrary, codec) => {
    it("generates deeply frozen values that round-trip through the codec and JSON text", () => {
      fc.assert(
        fc.property(arbitrary, (value) => {
          expect(HookLaws.isDeepFrozen(value)).toBe(true)
          expect(hasNegativeZero(value)).toBe(false)
          expect(viaJson(codec, value)).toEqual(value)
        }),
        { numRuns: 60 },
      )
    })
  })

  describe("hookContext", () => {
    it.each(HookTrigger.all)("gives %s exactly the optional fields that trigger carries", (trigger) => {
      fc.assert(
        fc.property(Arbitraries.hookContext(trigger), (ctx) => {
          expect(ctx.trigger).toBe(trigger)
          const fields = HookTrigger.fields[trigger]
          for (const field of ["request", "response", "toolCall", "toolExecution"] as const) {
            expect(ctx[field] !== undefined, field).toBe(fields.includes(field))
          }
          expect(ctx.errors.length > 0).toBe(trigger === "OnError")
          if (ctx.toolExecution !== undefined) expect(ctx.toolExecution.toolCall).toEqual(ctx.toolCall)
          expect(ctx.toolExecutionBlocked).toBe(ctx.toolExecution?.status === "blocked")
        }),
        { numRuns: 40 },
      )
    })

    it("reads the clock after the run started, when it has", () => {
      fc.assert(
        fc.property(Arbitraries.hookContext(), (ctx) => {
          const startedAt = ctx.state.execution.startedAt
          if (startedAt !== undefined) expect(ctx.createdAt).toBeGreaterThanOrEqual(startedAt)
          expect(ctx.updatedAt).toBe(ctx.createdAt)
        }),
      )
    })

    it("makes every trigger in a hundred runs", () => {
      const seen = new Set(fc.sample(Arbitraries.hookContext(), { numRuns: 100, seed: 7 }).map((c) => c.trigger))
      expect([...seen].sort()).toEqual([...HookTrigger.all].sort())
    })
  })

  describe("blockedHookContext", () => {
    it("gives tool contexts whose call is blocked", () => {
      fc.assert(
        fc.property(Arbitraries.blockedHookContext(), (ctx) => {
          expect(["BeforeToolUse", "AfterToolUse"]).toContain(ctx.trigger)
          expect(ctx.toolExecutionBlocked).toBe(true)
          expect(ctx.toolExecution?.status).toBe("blocked")
        }),
        { numRuns: 40 },
      )
    })
  })

  describe("agentState", () => {
    it("keeps coherent times, indexed steps and usage summed from the steps", () => {
      fc.assert(
        fc.property(Arbitraries.agentState(), (state) => {
          const { status, startedAt, completedAt, steps, usage } = state.execution
          expect(startedAt === undefined).toBe(status === "pending")
          expect(completedAt !== undefined).toBe(["completed", "stopped", "failed"].includes(status))
          if (completedAt !== undefined) expect(completedAt).toBeGreaterThanOrEqual(startedAt as number)
          expect([...steps].map((s) => s.index)).toEqual([...steps].map((_, i) => i))
          const total = [...steps].reduce((n, s) => n + s.usage.inputTokens + s.usage.outputTokens, 0)
          expect(AgentState.totalTokens(state)).toBe(total)
          expect(usage.inputTokens + usage.outputTokens).toBe(total)
        }),
      )
    })
  })

  describe("options", () => {
    it("bound the history, the steps, the tool calls, the tools and the JSON depth", () => {
      const depth = (v: JsonValue): number =>
        typeof v !== "object" || v === null ? 0 : 1 + Math.max(0, ...Object.values(v).map(depth))
      const options = { maxMessages: 2, maxSteps: 1, maxToolCalls: 1, maxTools: 1, maxDepth: 1 }
      fc.assert(
        fc.property(Arbitraries.hookContext("AfterInference", options), (ctx) => {
          expect(ctx.state.context.messages.length).toBeLessThanOrEqual(2)
          expect(ctx.state.execution.steps.length).toBeLessThanOrEqual(1)
          expect(ctx.request?.messages.length).toBeLessThanOrEqual(2)
          expect(ctx.request?.tools.length).toBeLessThanOrEqual(1)
          expect(ctx.response?.toolCalls.length).toBeLessThanOrEqual(1)
          for (const call of ctx.response?.toolCalls ?? []) expect(depth(call.arguments)).toBeLessThanOrEqual(1)
        }),
      )
      fc.assert(fc.property(Arbitraries.json({ maxDepth: 0 }), (v) => depth(v) === 0))
    })

    it("aim tool calls at the given names, arguments and outputs", () => {
      const options = {
        toolNames: ["search", "shell"],
        toolArguments: fc.record({ q: fc.string() }),
        toolOutput: fc.constant("result"),
      }
      fc.assert(
        fc.property(Arbitraries.hookContext("AfterToolUse", options), (ctx) => {
          expect(["search", "shell"]).toContain(ctx.toolCall?.name)
          expect(Object.keys(ctx.toolCall?.arguments as object)).toEqual(["q"])
          if (ctx.toolExecution?.status === "success") expect(ctx.toolExecution.output).toBe("result")
        }),
      )
    })

    it("replace the strings of texts and JSON values", () => {
      const strings = fc.constantFrom("sk-1", "plain")
      fc.assert(
        fc.property(Arbitraries.json({ strings }), Arbitraries.message({ strings }), (value, message) => {
          const texts = (v: JsonValue): ReadonlyArray<string> =>
            typeof v === "string" ? [v] : typeof v === "object" && v !== null ? Object.values(v).flatMap(texts) : []
          for (const t of texts(value)) expect(["sk-1", "plain"]).toContain(t)
          expect(["sk-1", "plain"]).toContain(message.content)
        }),
      )
    })

    it("replace the metadata generator", () => {
      const options = { metadata: fc.constant({ tenant: "acme" }) }
      fc.assert(
        fc.property(Arbitraries.hookContext(undefined, options), (ctx) => {
          expect(ctx.metadata).toEqual({ tenant: "acme" })
          expect(ctx.state.metadata).toEqual({ tenant: "acme" })
        }),
        { numRuns: 20 },
      )
    })
  })

  describe("shrinking", () => {
    it("shrinks a failing context to an empty, readable one", () => {
      const details = fc.check(
        fc.property(Arbitraries.hookContext(), (ctx) => ctx.state.context.messages.length === 0),
        { seed: 42 },
      )
      expect(details.failed).toBe(true)
      const [ctx] = details.counterexample ?? []
      expect(ctx?.trigger).toBe("BeforeExecution")
      expect(ctx?.state.context.messages.toArray()).toEqual([{ role: "user", content: "" }])
      expect(ctx?.state.execution.steps.length).toBe(0)
      expect(ctx?.metadata).toEqual({})
      expect(ctx?.state.id).toBe("a")
    })

    it("shrinks JSON values towards null, and strings towards empty", () => {
      const details = fc.check(fc.property(Arbitraries.json(), (v) => Json.toText(v).length < 3), { seed: 1 })
      expect(details.failed).toBe(true)
      expect(Json.toText(details.counterexample?.[0] as JsonValue).length).toBe(3)
    })
  })
})
