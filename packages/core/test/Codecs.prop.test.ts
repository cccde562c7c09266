import fc from "fast-check"
import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { AgentState, AppendLog, Codecs, HookTrigger, type JsonValue } from "@hookline/core"
import * as Arb from "./arbitraries.js"

// JSON.stringify writes -0 as 0, so a value holding -0 cannot come back from JSON
// text unchanged whatever the codec does; the arbitraries' JSON values can hold -0.
const hasNegativeZero = (value: unknown): boolean => {
  if (Object.is(value, -0)) return true
  if (typeof value !== "object" || value === null) return false
  const children = AppendLog.isAppendLog(value) ? [...value] : Object.values(value)
  return children.some(hasNegativeZero)
}
const jsonSafe = <A>(arb: fc.Arbitrary<A>): fc.Arbitrary<A> => arb.filter((a) => !hasNegativeZero(a))

// What JSON.stringify writes back unchanged: plain objects (metadata may have a null
// prototype) and arrays, strings, finite numbers, booleans and null; no undefined.
const isJsonData = (value: unknown): boolean => {
  switch (typeof value) {
    case "string":
    case "boolean":
      return true
    case "number":
      return Number.isFinite(value)
    case "object":
      if (value === null) return true
      if (Array.isArray(value)) return Object.getPrototypeOf(value) === Array.prototype && value.every(isJsonData)
      return [Object.prototype, null].includes(Object.getPrototypeOf(value)) && Object.values(value).every(isJsonData)
    default:
      return false
  }
}

const viaJson = <A, O>(codec: Codecs.Codec<A, O>, value: A): A => {
  const text = JSON.stringify(Codecs.encode(codec, value))
  const result = Codecs.decode(codec, JSON.parse(text))
  if (Result.isFailure(result)) throw new Error(`${result.failure.message} in ${text}`)
  return result.success
}

const roundTrips = <A, O>(codec: Codecs.Codec<A, O>, arb: fc.Arbitrary<A>, numRuns = 100) =>
  fc.assert(
    fc.property(jsonSafe(arb), (value) => {
      const decoded = viaJson(codec, value)
      expect(decoded).toEqual(value)
      expect(Arb.isDeepFrozen(decoded)).toBe(true)
    }),
    { numRuns },
  )

describe("Codecs", () => {
  describe("AgentState", () => {
    it("round-trips any state through JSON text into an equal, deeply frozen state", () => {
      roundTrips(Codecs.AgentState, Arb.agentState(), 200)
    })

    it("decodes its own encoded form, without JSON, into an equal state", () => {
      fc.assert(
        fc.property(Arb.agentState(), (state) => {
          const decoded = Codecs.decodeUnsafe(Codecs.AgentState, Codecs.encode(Codecs.AgentState, state))
          expect(decoded).toEqual(state)
        }),
      )
    })

    it("encodes any state to plain JSON data with no undefined", () => {
      fc.assert(fc.property(Arb.agentState(), (state) => isJsonData(Codecs.encode(Codecs.AgentState, state))))
    })

    it("decodes histories into AppendLogs of the same length", () => {
      fc.assert(
        fc.property(jsonSafe(Arb.agentState()), (state) => {
          const decoded = viaJson(Codecs.AgentState, state)
          expect(AppendLog.isAppendLog(decoded.context.messages)).toBe(true)
          expect(AppendLog.isAppendLog(decoded.execution.steps)).toBe(true)
          expect(decoded.context.messages.length).toBe(state.context.messages.length)
          expect(AgentState.stepCount(decoded)).toBe(AgentState.stepCount(state))
        }),
      )
    })

    it("names context.messages[i].role when message i has an unknown role", () => {
      const withMessages = Arb.agentState().filter((s) => s.context.messages.length > 0)
      fc.assert(
        fc.property(withMessages, fc.nat(), (state, n) => {
          const i = n % state.context.messages.length
          const encoded = Codecs.encode(Codecs.AgentState, state)
          const messages = encoded.context.messages.map((m, j) => (j === i ? { ...m, role: "robot" } : m))
          const result = Codecs.decode(Codecs.AgentState, { ...encoded, context: { ...encoded.context, messages } })
          expect(Result.isFailure(result) && result.failure.path).toBe(`context.messages[${i}].role`)
        }),
      )
    })

    it("names execution.steps[i].usage.inputTokens when step i has a bad token count", () => {
      const withSteps = Arb.agentState().filter((s) => s.execution.steps.length > 0)
      fc.assert(
        fc.property(withSteps, fc.nat(), (state, n) => {
          const i = n % state.execution.steps.length
          const encoded = Codecs.encode(Codecs.AgentState, state)
          const steps = encoded.execution.steps.map((s, j) =>
            j === i ? { ...s, usage: { ...s.usage, inputTokens: "many" } } : s
          )
          const result = Codecs.decode(Codecs.AgentState, { ...encoded, execution: { ...encoded.execution, steps } })
          expect(Result.isFailure(result) && result.failure.path).toBe(`execution.steps[${i}].usage.inputTokens`)
        }),
      )
    })
  })

  describe("HookContext", () => {
    it.each(HookTrigger.all)("round-trips any %s context through JSON into an equal, deeply frozen context", (trigger) => {
      roundTrips(Codecs.HookContext, Arb.hookContext(trigger), 30)
    })

    it("encodes any context to plain JSON data with no undefined", () => {
      fc.assert(fc.property(Arb.hookContext(), (ctx) => isJsonData(Codecs.encode(Codecs.HookContext, ctx))))
    })
  })

  describe("Message", () => {
    it("round-trips any message through JSON", () => {
      roundTrips(Codecs.Message, Arb.message(3), 300)
    })
  })

  describe("ToolExecution", () => {
    it("round-trips any tool execution through JSON", () => {
      roundTrips(Codecs.ToolExecution, Arb.toolExecution, 300)
    })
  })

  describe("AgentError", () => {
    it("round-trips any error through JSON, message included", () => {
      roundTrips(Codecs.AgentError, Arb.agentError, 300)
    })
  })

  describe("InferenceRequest", () => {
    it("round-trips any request through JSON", () => {
      roundTrips(Codecs.InferenceRequest, Arb.inferenceRequest())
    })
  })

  describe("InferenceResponse", () => {
    it("round-trips any response through JSON", () => {
      roundTrips(Codecs.InferenceResponse, Arb.inferenceResponse())
    })
  })

  describe("Step", () => {
    it("round-trips any step through JSON", () => {
      roundTrips(Codecs.Step, fc.nat(50).chain(Arb.step))
    })
  })

  describe("JsonValue", () => {
    it("decodes any parsed JSON text into an equal, deeply frozen value", () => {
      fc.assert(
        fc.property(fc.json(), (text) => {
          const parsed: unknown = JSON.parse(text)
          const decoded = Codecs.decodeUnsafe(Codecs.JsonValue, parsed)
          expect(decoded).toEqual(parsed)
          expect(Arb.isDeepFrozen(decoded)).toBe(true)
        }),
      )
    })

    it("never freezes its input", () => {
      fc.assert(
        fc.property(fc.json(), (text) => {
          const parsed: unknown = JSON.parse(text)
          Codecs.decodeUnsafe(Codecs.JsonValue, parsed)
          return typeof parsed !== "object" || parsed === null || !Object.isFrozen(parsed)
        }),
      )
    })
  })

  describe("Metadata", () => {
    const hostileKey = fc.constantFrom("__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "a")
    const hostile: fc.Arbitrary<string> = fc
      .array(fc.tuple(hostileKey, Arb.json), { maxLength: 5 })
      .map((entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(",")}}`)

    it("keeps hostile keys of parsed JSON as own data keys, on a plain prototype", () => {
      fc.assert(
        fc.property(hostile, (text) => {
          const parsed = JSON.parse(text) as Record<string, JsonValue>
          const decoded = Codecs.decodeUnsafe(Codecs.Metadata, parsed)
          expect(Object.getPrototypeOf(decoded)).toBe(Object.prototype)
          expect(Object.keys(decoded)).toEqual(Object.keys(parsed))
          for (const key of Object.keys(parsed)) {
            expect(Object.getOwnPropertyDescriptor(decoded, key)?.value).toEqual(parsed[key])
          }
          expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined()
        }),
      )
    })
  })
})
