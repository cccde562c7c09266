// The vouching walk's short cut for what core sealed (internal/frozenJson.ts): a container
// in core's sealed set (`Json.isSealed`: a model answer from `InferenceResponse.make`, a
// call from `ToolCall.make`, their usage, metadata and arguments) is not asked again
// whether it is plain, frozen, a Proxy or holds an accessor; its bounds are counted as
// before. It answers as the full walk over the same data unsealed, and no caller's value
// can claim it: core copies what it is given and seals only its copies.
import { InferenceResponse, Json, type JsonValue, type Metadata, ToolCall, Usage } from "@hookline/core"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import * as ByReference from "../src/internal/byReference.js"
import * as FrozenJson from "../src/internal/frozenJson.js"

const deepFreeze = <A>(value: A): A => {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key])
    Object.freeze(value)
  }
  return value
}

// The same data, frozen plain objects and arrays that core never saw: the full walk's case.
const unsealedCopy = <A>(value: A): A => deepFreeze(structuredClone(value))

const nested = (depth: number, inside: unknown): unknown => {
  let value: unknown = inside
  for (let i = 0; i < depth; i++) value = Object.freeze([value])
  return value
}

// An answer core seals: calls made by ToolCall.make, metadata and usage copied.
const sealedAnswer = fc
  .record({
    text: fc.string({ maxLength: 40 }),
    calls: fc.array(fc.tuple(fc.string({ minLength: 1, maxLength: 8 }), fc.jsonValue({ maxDepth: 6 })), { maxLength: 3 }),
    metadata: fc.option(fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 4 }), { maxKeys: 4 }), { nil: undefined }),
    tokens: fc.option(fc.tuple(fc.nat(1_000), fc.nat(1_000)), { nil: undefined }),
  })
  .map(({ text, calls, metadata, tokens }) =>
    InferenceResponse.make({
      text,
      toolCalls: calls.map(([name, args], i) => ToolCall.make({ id: `call-${i}`, name, arguments: args as JsonValue })),
      ...(metadata === undefined ? {} : { metadata: metadata as Metadata }),
      ...(tokens === undefined ? {} : { usage: Usage.make(tokens[0], tokens[1]) }),
    }))

// Measures with the store's bounds and with small ones, so the item, depth and byte bounds bite.
const measures: ReadonlyArray<() => FrozenJson.Measure> = [
  () => ByReference.measure(),
  () => FrozenJson.make(3, 6, 400),
  () => FrozenJson.make(100, 12, 120),
]

describe("the vouching walk over what core sealed", () => {
  it("answers as the full walk over the same data unsealed, at any depth and within any bounds", () => {
    let sealedSeen = 0
    fc.assert(
      fc.property(sealedAnswer, fc.nat({ max: Json.maxDepth }), fc.nat({ max: measures.length - 1 }), (answer, depth, which) => {
        if (Json.isSealed(answer)) sealedSeen++
        const copy = unsealedCopy(answer)
        expect(Json.isSealed(copy)).toBe(false)
        const make = measures[which] as () => FrozenJson.Measure
        expect(make().bytes(nested(depth, answer))).toBe(make().bytes(nested(depth, copy)))
        expect(make().keep(answer)).toBe(make().keep(copy))
      }),
      { numRuns: 400 },
    )
    // The generator makes sealed answers (else the property says nothing).
    expect(sealedSeen).toBeGreaterThan(300)
  }, 60_000)

  it("never holds a caller's object: core seals its own copies", () => {
    const args = Object.freeze({ i: 1, nested: Object.freeze([1, 2]) })
    const call = ToolCall.make({ id: "c", name: "echo", arguments: args })
    expect(Json.isSealed(call)).toBe(true)
    expect(call.arguments).not.toBe(args)
    expect(Json.isSealed(args)).toBe(false)
    expect(Json.isSealed(args.nested)).toBe(false)

    const calls = Object.freeze([call])
    const metadata = Object.freeze({ k: Object.freeze({ v: 1 }) })
    const usage = Object.freeze({ inputTokens: 1, outputTokens: 2 })
    const answer = InferenceResponse.make({ text: "t", toolCalls: calls, metadata, usage })
    expect(Json.isSealed(answer)).toBe(true)
    for (const given of [calls, metadata, metadata.k, usage]) expect(Json.isSealed(given)).toBe(false)
    expect(answer.metadata).not.toBe(metadata)
    expect(answer.usage).not.toBe(usage)

    // A call made by hand is not sealed, nor is the answer that holds it (kept as given).
    const byHand = Object.freeze({ id: "c", name: "echo", arguments: Object.freeze({}) })
    const holding = InferenceResponse.make({ toolCalls: [byHand] })
    expect(Json.isSealed(byHand)).toBe(false)
    expect(Json.isSealed(holding)).toBe(false)
  })

  it("gives no short cut to a lookalike, a Proxy over a sealed value, or an answer holding a call made by hand", () => {
    const sealed = InferenceResponse.make({ toolCalls: [ToolCall.make({ id: "c", name: "echo", arguments: { i: 1 } })] })
    const measure = ByReference.measure()
    expect(measure.bytes(sealed)).toBeGreaterThan(0)
    // A Proxy is another object: not in the set, and refused as every Proxy is.
    expect(measure.bytes(new Proxy(sealed, {}))).toBe(-1)
    expect(measure.bytes(Object.freeze([new Proxy(sealed, {})]))).toBe(-1)
    // The same shape, frozen, with a getter deep inside: walked with every check.
    const getter = Object.freeze(Object.defineProperty({}, "i", { enumerable: true, get: () => 1 }))
    const lookalike = Object.freeze({ ...sealed, toolCalls: Object.freeze([Object.freeze({ id: "c", name: "echo", arguments: getter })]) })
    expect(Json.isSealed(lookalike)).toBe(false)
    expect(measure.bytes(lookalike)).toBe(-1)
    // An answer core could not seal (a call made by hand, with a hidden property) is walked whole.
    const hidden = Object.freeze(Object.defineProperty({ id: "c", name: "echo", arguments: {} }, "extra", { value: 1, enumerable: false }))
    const holding = InferenceResponse.make({ toolCalls: [hidden] })
    expect(Json.isSealed(holding)).toBe(false)
    expect(measure.bytes(holding)).toBe(-1)
  })

  it("still refuses a sealed object once Object.prototype has a toJSON, as the full walk does", () => {
    const sealed = InferenceResponse.make({ text: "t" })
    const measure = ByReference.measure()
    expect(measure.bytes(sealed)).toBeGreaterThan(0)
    Object.defineProperty(Object.prototype, "toJSON", { value: () => "x", configurable: true, writable: true })
    try {
      expect(measure.bytes(sealed)).toBe(-1)
      expect(measure.bytes(unsealedCopy({ text: "t" }))).toBe(-1)
    } finally {
      delete (Object.prototype as { toJSON?: unknown }).toJSON
    }
    expect(measure.bytes(sealed)).toBeGreaterThan(0)
  })
})
