// Answers core built itself (InferenceResponse.make from ToolCall.make calls, valid and
// within the boundary's bounds) are sealed, and the driver boundary trusts them without
// checking (internal/driverAnswer.ts). These tests show the trust is never wider than
// the check: what core seals, the check would accept as an equal value; and an answer
// built by hand, mutated, spread or proxied is still checked.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { InferenceResponse, Json, ToolCall, Usage } from "@hookline/core"
import { damagedAnswer, encodedAnswer } from "./damagedAnswer.js"
import { isFailure, response } from "../src/internal/driverAnswer.js"
import * as Arguments from "../src/internal/toolArguments.js"

// A valid response with one value anywhere in it replaced by anything.
const damaged = damagedAnswer((junk) => ({ junk }))

// The answer a driver would build with core's constructors from the fields of `u`.
const made = (u: Record<string, unknown>): InferenceResponse => {
  const calls = Array.isArray(u["toolCalls"])
    ? (u["toolCalls"] as Array<unknown>).map((c) =>
      typeof c === "object" && c !== null ? ToolCall.make(c as ToolCall) : c as ToolCall)
    : u["toolCalls"] as never
  const usage = u["usage"] as { inputTokens: number; outputTokens: number } | undefined
  return InferenceResponse.make({
    text: u["text"] as string,
    toolCalls: calls,
    usage: typeof usage === "object" && usage !== null ? Usage.make(usage.inputTokens, usage.outputTokens) : usage,
    finishReason: u["finishReason"] as InferenceResponse.FinishReason,
    modelId: u["modelId"] as string,
    metadata: u["metadata"] as Json.Metadata,
  })
}

// A plain copy of a response (own data keys, `__proto__` included), as a driver would build it by hand.
// structuredClone, not JSON: a JSON round trip turns -0 into 0, an answer of its own.
const byHand = (r: InferenceResponse): unknown => structuredClone(r)

const deep = (levels: number): Json.JsonValue => {
  let value: Json.JsonValue = 1
  for (let i = 0; i < levels; i++) value = { a: value }
  return value
}

describe("answers core sealed", () => {
  it("are every valid answer built with core's constructors, and the boundary gives them back as they are", () => {
    fc.assert(fc.property(encodedAnswer, (u) => {
      const r = made(u)
      expect(Json.isSealed(r)).toBe(true)
      expect(response(r)).toBe(r)
    }))
  })

  it("are what the check gives for the same answer built by hand; what the check refuses is never sealed", () => {
    let sealed = 0
    let refused = 0
    fc.assert(fc.property(damaged, (u) => {
      let r: InferenceResponse
      try {
        r = made(u)
      } catch {
        return // The constructors refuse it themselves (`toolCalls: null`).
      }
      if (Json.isSealed(r)) {
        sealed++
        const handBuilt = byHand(r)
        const checked = response(handBuilt)
        expect(isFailure(checked)).toBe(false)
        expect(checked).toEqual(r)
        expect(checked).not.toBe(handBuilt)
      } else if (isFailure(response(r))) refused++
    }), { numRuns: 300 })
    // Both sides were exercised.
    expect(sealed).toBeGreaterThan(0)
    expect(refused).toBeGreaterThan(0)
  })

  it("read -0 as 0, as the check does (found by the property above, seed -2123489108)", () => {
    const r = made({
      text: "",
      toolCalls: [{ id: "c1", name: "t", arguments: { n: -0 } }],
      usage: { inputTokens: -0, outputTokens: 1 },
      finishReason: "stop",
      modelId: "m",
      metadata: { a: -0 },
    })
    expect(Json.isSealed(r)).toBe(true)
    const zeros = [(r.toolCalls[0]?.arguments as { n: number }).n, r.usage.inputTokens, (r.metadata as { a: number }).a]
    expect(zeros.map((z) => Object.is(z, 0))).toEqual([true, true, true])
    expect(response(byHand(r))).toEqual(r)
  })

  it("are copies: changing what was given to the constructors later changes nothing", () => {
    const args: { i: number; nested: { j: number } } = { i: 1, nested: { j: 2 } }
    const metadata: Record<string, Json.JsonValue> = { k: "v" }
    const r = InferenceResponse.make({ toolCalls: [ToolCall.make({ id: "c1", name: "t", arguments: args })], metadata })
    expect(Json.isSealed(r)).toBe(true)
    args.i = Number.NaN
    args.nested.j = Number.POSITIVE_INFINITY
    metadata["k"] = undefined as never
    expect(response(r)).toEqual(InferenceResponse.make({
      toolCalls: [ToolCall.make({ id: "c1", name: "t", arguments: { i: 1, nested: { j: 2 } } })],
      metadata: { k: "v" },
    }))
    expect(Object.isFrozen(r.toolCalls[0]?.arguments)).toBe(true)
  })

  it("a spread, mutated or proxied answer is checked (and a bad one refused), never trusted", () => {
    const r = InferenceResponse.make({ toolCalls: [ToolCall.make({ id: "c1", name: "t", arguments: { i: 1 } })] })
    expect(Json.isSealed(r)).toBe(true)

    const spread = { ...r }
    expect(Json.isSealed(spread)).toBe(false)
    expect(response(spread)).not.toBe(spread)
    expect(response({ ...r, usage: { inputTokens: Number.NaN, outputTokens: 0 } })).toMatchObject({ _tag: "InferenceFailed" })
    expect(response({ ...r, toolCalls: [{ ...r.toolCalls[0], arguments: { i: () => 1 } }] })).toMatchObject({ _tag: "InferenceFailed" })

    // A proxy of a sealed answer is another object: checked and copied.
    const proxied = new Proxy(r, {})
    const checked = response(proxied)
    expect(checked).not.toBe(proxied)
    expect(checked).toEqual(r)
    // A lying proxy (over a target it may lie about) is refused.
    const liar = new Proxy({ ...r }, { get: (target, key) => (key === "text" ? 42 : Reflect.get(target, key)) })
    expect(response(liar)).toMatchObject({ _tag: "InferenceFailed", message: expect.stringContaining("at text") })
    // A revocable proxy revoked after the check cannot reach what the run keeps.
    const { proxy, revoke } = Proxy.revocable({ ...r }, {})
    const kept = response(proxy)
    revoke()
    expect(isFailure(kept)).toBe(false)
    expect(JSON.parse(JSON.stringify(kept))).toEqual(JSON.parse(JSON.stringify(r)))
  })

  it("are only built within the boundary's bounds: deeper or larger arguments are refused as before", () => {
    // Core seals within its own bounds, the ones the boundary imports.
    const { maxDepth, maxValues } = Json
    const at = (levels: number) => InferenceResponse.make({ toolCalls: [ToolCall.make({ id: "c1", name: "t", arguments: deep(levels) })] })
    // `maxDepth` objects nested in each other: the deepest object sits at depth maxDepth - 1.
    const within = at(maxDepth)
    expect(Json.isSealed(within)).toBe(true)
    expect(Arguments.refusalOf(within.toolCalls[0] as ToolCall)).toBeUndefined()
    const withinByHand = response(byHand(within))
    if (isFailure(withinByHand)) throw new Error(withinByHand.message)
    expect(Arguments.refusalOf(withinByHand.toolCalls[0] as ToolCall)).toBeUndefined()

    const deeper = at(maxDepth + 1)
    expect(Json.isSealed(deeper)).toBe(false)
    const checked = response(deeper)
    if (isFailure(checked)) throw new Error(checked.message)
    expect(Arguments.refusalOf(checked.toolCalls[0] as ToolCall)?.message).toMatch(/nested deeper than 512 levels/)

    const wide = (n: number) => InferenceResponse.make({ toolCalls: [ToolCall.make({ id: "c1", name: "t", arguments: Array.from({ length: n }, (_, i) => i) })] })
    // The array itself counts as one value.
    expect(Json.isSealed(wide(maxValues - 1))).toBe(true)
    const large = wide(maxValues)
    expect(Json.isSealed(large)).toBe(false)
    const checkedLarge = response(large)
    if (isFailure(checkedLarge)) throw new Error(checkedLarge.message)
    expect(Arguments.refusalOf(checkedLarge.toolCalls[0] as ToolCall)?.message).toMatch(/too large/)
  })

  it("a call with a getter in its arguments is copied once: the getter cannot change the sealed value", () => {
    let reads = 0
    const args = Object.freeze({ get i() { return ++reads } })
    const r = InferenceResponse.make({ toolCalls: [ToolCall.make({ id: "c1", name: "t", arguments: args as never })] })
    expect(Json.isSealed(r)).toBe(true)
    const first = JSON.stringify(response(r))
    expect(JSON.stringify(response(r))).toBe(first)
    expect(reads).toBe(1)
  })
})
