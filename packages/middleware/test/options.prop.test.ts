// Every built-in's options, generated (branch edges3): a value of a class known bad for
// its field (NaN, the infinities, a negative or fractional count, a hole, a list past
// maxItems, a sparse list of 2^32 - 1 slots, a text past Json.maxStringLength, a
// non-function where a function belongs, a RegExp with the global flag, a Proxy whose
// traps throw) is a HooklineError(InvalidConfiguration) naming that field, thrown when
// the hook or the capability is made; and any value at all, in any field or as the whole
// options, is either taken or that error: never another throw.
import { ApplyContextConfigHook } from "@hookline/agent"
import { AgentError, Codecs, Json } from "@hookline/core"
import { ScriptedDriver } from "@hookline/testing"
import * as fc from "fast-check"
import * as t from "io-ts"
import { describe, expect, it } from "vitest"
import {
  Approval,
  ClearToolResults,
  CostBudget,
  Fallback,
  ModelCallLimit,
  Output,
  PiiRedaction,
  Retry,
  Summarization,
  Timeout,
  ToolCallLimit,
  UseSlidingWindow,
} from "../src/index.js"

type Kind =
  | { readonly _tag: "count"; readonly min: number }
  | { readonly _tag: "number"; readonly min: number; readonly max?: number }
  | { readonly _tag: "boolean" }
  | { readonly _tag: "text" }
  | { readonly _tag: "names" }
  | { readonly _tag: "statuses" }
  | { readonly _tag: "function" }
  | { readonly _tag: "enum" }
  | { readonly _tag: "table" }
  | { readonly _tag: "drivers" }
  | { readonly _tag: "driver" }
  | { readonly _tag: "reason" }
  | { readonly _tag: "duration" }
  | { readonly _tag: "tools" }

const count = (min = 0): Kind => ({ _tag: "count", min })
const number = (min: number, max?: number): Kind => ({ _tag: "number", min, ...(max === undefined ? {} : { max }) })
const boolean: Kind = { _tag: "boolean" }
const text: Kind = { _tag: "text" }
const names: Kind = { _tag: "names" }
const statuses: Kind = { _tag: "statuses" }
const fn: Kind = { _tag: "function" }
const oneOf: Kind = { _tag: "enum" }
const table: Kind = { _tag: "table" }
const drivers: Kind = { _tag: "drivers" }
const oneDriver: Kind = { _tag: "driver" }
const reason: Kind = { _tag: "reason" }
const duration: Kind = { _tag: "duration" }
const tools: Kind = { _tag: "tools" }

interface Maker {
  readonly name: string
  readonly make: (options: Record<string, unknown>) => unknown
  /** Made with `value` as the whole options; default `make`. */
  readonly whole?: (value: unknown) => unknown
  readonly base: Record<string, unknown>
  /** Where the error names a field: `prefix` + the field. */
  readonly prefix: string
  readonly fields: Readonly<Record<string, Kind>>
}

const driver = ScriptedDriver.make([ScriptedDriver.text("ok")])
const backoff = { maxAttempts: count(1), initialDelayMs: number(0), factor: number(1), maxDelayMs: number(0), jitter: number(0, 1) }

const makers: ReadonlyArray<Maker> = [
  {
    name: "Retry.modelRetry",
    make: (o) => Retry.modelRetry(o),
    base: {},
    prefix: "modelRetry.",
    fields: { ...backoff, when: fn, retryable: boolean, statuses, honorRetryAfter: boolean, maxRetryAfterMs: number(0) },
  },
  {
    name: "Retry.toolRetry",
    make: (o) => Retry.toolRetry(o as never),
    base: { tools: ["search"] },
    prefix: "toolRetry.",
    fields: { ...backoff, tools: names, timeouts: boolean },
  },
  { name: "Timeout.modelTimeout", make: (o) => Timeout.modelTimeout(o as never), base: { ms: 10 }, prefix: "modelTimeout.", fields: { ms: number(1) } },
  {
    name: "Timeout.toolTimeout",
    make: (o) => Timeout.toolTimeout(o as never),
    base: { ms: 10 },
    prefix: "toolTimeout.",
    fields: { ms: number(1), tools: names },
  },
  {
    name: "Fallback.fallbackModels",
    make: ({ models, ...o }) => Fallback.fallbackModels(models as never, o),
    whole: (value) => Fallback.fallbackModels([driver], value as never),
    base: { models: [driver] },
    prefix: "fallbackModels.",
    fields: { models: drivers, when: fn },
  },
  {
    name: "ToolCallLimit.make",
    make: (o) => ToolCallLimit.make(o as never),
    base: { total: 5 },
    prefix: "options.",
    fields: { total: count(), perTool: table, onLimit: oneOf },
  },
  {
    name: "ModelCallLimit.make",
    make: (o) => ModelCallLimit.make(o as never),
    base: { max: 3 },
    prefix: "options.",
    fields: { max: count(), onLimit: oneOf, message: text },
  },
  {
    name: "ClearToolResults.make",
    make: (o) => ClearToolResults.make(o),
    base: {},
    prefix: "options.",
    fields: { keep: count(), placeholder: text, exclude: names },
  },
  { name: "PiiRedaction.make", make: (o) => PiiRedaction.make(o), base: {}, prefix: "options.", fields: { kinds: names, on: names } },
  {
    name: "CostBudget.make",
    make: (o) => CostBudget.make(o as never),
    base: { maxCost: 1, prices: {} },
    prefix: "options.",
    fields: { maxCost: number(0), prices: table, unknownModel: oneOf, currency: text },
  },
  {
    name: "Summarization.make",
    make: (o) => Summarization.make(o as never),
    base: { driver, maxTokens: 100 },
    prefix: "options.",
    fields: { driver: oneDriver, maxTokens: count(1), keep: count(), prompt: text },
  },
  {
    name: "UseSlidingWindow",
    make: (o) => UseSlidingWindow(o as never),
    base: { maxMessages: 3 },
    prefix: "",
    fields: { maxMessages: count(1), priority: number(-Infinity) },
  },
  {
    name: "Approval.make",
    make: (o) => Approval.make(o as never),
    base: { tools: ["refund"] },
    prefix: "",
    fields: { tools: names, when: fn, payload: fn, reason, expiresIn: duration, decode: tools },
  },
  { name: "Output.make", make: (o) => Output.make(t.type({ a: t.string }), o), base: {}, prefix: "options.", fields: { retries: count() } },
  { name: "ApplyContextConfigHook", make: (o) => ApplyContextConfigHook(o), base: {}, prefix: "", fields: { systemPrompt: text } },
]

const maxItems = Codecs.defaultLimits.maxItems
// Made once: a 32 Mi string and a 100,001-item list are too big to generate per run.
const longText = "x".repeat(Json.maxStringLength + 1)
const tooLong = (item: unknown): Array<unknown> => Array(maxItems + 1).fill(item)
const sparse = (): Array<unknown> => new Array(2 ** 32 - 1)
const holey = (item: unknown): Array<unknown> => {
  const out: Array<unknown> = [item]
  out.length = 2
  return out
}

const throwing = (): unknown =>
  new Proxy({}, {
    get: () => {
      throw new Error("get")
    },
    ownKeys: () => {
      throw new Error("ownKeys")
    },
    getPrototypeOf: () => {
      throw new Error("getPrototypeOf")
    },
  })
const revoked = (): unknown => {
  const { proxy, revoke } = Proxy.revocable([], {})
  revoke()
  return proxy
}

// Values are made by thunks, inside the property: fast-check inspects the values it
// holds (a revoked Proxy throws there) and prints them (a sparse array of 2^32 - 1 slots).
type Thunk = () => unknown
const of = (arb: fc.Arbitrary<unknown>): fc.Arbitrary<Thunk> => arb.map((v) => () => v)
const made = (...thunks: ReadonlyArray<Thunk>): fc.Arbitrary<Thunk> => fc.constantFrom(...thunks)

const notNumbers = of(fc.constantFrom<unknown>(Number.NaN, "3", 3n, null, true, {}, [], /3/g))

// A value of a class known bad for the kind: the field must be refused.
const badFor = (kind: Kind): fc.Arbitrary<Thunk> => {
  switch (kind._tag) {
    case "count":
      return fc.oneof(
        notNumbers,
        of(fc.constantFrom(Infinity, -Infinity, 2 ** 53, kind.min - 1)),
        of(fc.double({ noInteger: true, noDefaultInfinity: true, noNaN: true })),
        of(fc.integer({ max: kind.min - 1 })),
      )
    case "number":
      return fc.oneof(
        notNumbers,
        of(fc.constantFrom(Infinity, -Infinity).filter((n) => !(n >= kind.min && n <= (kind.max ?? Infinity)) || !Number.isFinite(n))),
        // Strictly outside (fast-check's -0 under an excluded 0 is not below it).
        ...(Number.isFinite(kind.min) ? [of(fc.double({ max: kind.min, noNaN: true }).filter((n) => n < kind.min))] : []),
        ...(kind.max === undefined ? [] : [of(fc.double({ min: kind.max, noNaN: true }).filter((n) => n > kind.max!))]),
      )
    case "boolean":
      return of(fc.constantFrom<unknown>(0, 1, "true", null, Number.NaN))
    case "text":
      return fc.oneof(made(() => longText), of(fc.constantFrom<unknown>(5, null, {}, [], /x/g, Symbol("s"), 1n, Number.NaN)))
    case "names":
      return fc.oneof(
        of(fc.constantFrom<unknown>("search", 5, null, {}, /x/g)),
        made(() => holey("email"), () => tooLong("email"), sparse, () => [longText], () => [5], () => [null], revoked),
      )
    case "statuses":
      return fc.oneof(
        of(fc.constantFrom<unknown>(500, null, "500")),
        made(() => holey(500), () => tooLong(500), sparse, () => [Number.NaN], () => [Infinity], () => [-500], () => [99], () => [600], () => [500.5]),
      )
    case "function":
      return fc.oneof(of(fc.constantFrom<unknown>(5, "f", null, {}, [], /f/g, true, Number.NaN)), of(fc.jsonValue()))
    case "enum":
      return fc.oneof(
        of(fc.constantFrom<unknown>(5, null, {}, [], "STOP")),
        made(() => longText),
        of(fc.string().filter((s) => !["stop", "answer", "block", "free"].includes(s))),
      )
    case "table":
      return fc.oneof(
        of(fc.constantFrom<unknown>(null, 5, "t", [], true)),
        made(() => ({ m: Number.NaN }), () => ({ m: -1 }), () => ({ m: Infinity }), () => JSON.parse('{"__proto__": -1}') as unknown, throwing),
      )
    case "driver":
      return fc.oneof(of(fc.constantFrom<unknown>(null, {}, 5, "d", [], { generate: 5 })), made(throwing, revoked))
    case "reason":
      return fc.oneof(of(fc.constantFrom<unknown>(5, null, {}, [], /r/g, true, Number.NaN)), made(() => longText, throwing, revoked))
    case "duration":
      return fc.oneof(
        // Not {}: a duration object of no units (0 ms).
        of(fc.constantFrom<unknown>(Number.NaN, -1, Infinity, -Infinity, "soon", "", null, [], /d/g, true, { hour: 2 }, { hours: "2" })),
        made(() => new Date(0)),
        of(fc.double({ max: 0, noNaN: true }).filter((n) => n < 0)),
        made(throwing, revoked, () => Symbol("d")),
      )
    case "tools":
      return fc.oneof(
        of(fc.constantFrom<unknown>(5, null, {}, "t")),
        made(() => [5], () => [{}], () => holey(5), sparse, revoked, () => [throwing()], () => [revoked()]),
      )
    case "drivers":
      return fc.oneof(
        of(fc.constantFrom<unknown>(null, {}, 5)),
        made(() => driver, () => [], () => holey(driver), () => tooLong(driver), sparse, () => [{ generate: () => null }], () => [5]),
      )
  }
}

const outcome = (make: () => unknown): { readonly ok: true } | { readonly ok: false; readonly path: string } => {
  try {
    make()
    return { ok: true }
  } catch (error) {
    if (error instanceof AgentError.HooklineError && error.error._tag === "InvalidConfiguration") return { ok: false, path: error.error.path }
    throw error
  }
}

const fieldOf = fc.constantFrom(...makers).chain((maker) =>
  fc.constantFrom(...Object.keys(maker.fields)).map((field) => ({ maker, field, kind: maker.fields[field]! }))
)

describe("the built-ins' options", () => {
  it("take every base configuration", () => {
    for (const maker of makers) expect(outcome(() => maker.make(maker.base)), maker.name).toEqual({ ok: true })
  })

  it("refuse a value of a bad class in any field with InvalidConfiguration naming the field", () => {
    fc.assert(
      fc.property(fieldOf.chain((f) => badFor(f.kind).map((thunk) => ({ ...f, thunk }))), ({ maker, field, thunk }) => {
        const value = thunk()
        const got = outcome(() => maker.make({ ...maker.base, [field]: value }))
        expect(got, `${maker.name} ${field} = ${Json.excerpt(value, 60)}`).toMatchObject({ ok: false })
        expect(got.ok === false && got.path.startsWith(`${maker.prefix}${field}`), `${maker.name}: ${got.ok === false && got.path}`).toBe(true)
      }),
      { numRuns: 500 },
    )
  })

  it("take or refuse anything in any field, or as the whole options: never another throw", () => {
    const anything = fc.oneof(
      of(fc.anything({ withBigInt: true, withNullPrototype: true, withObjectString: true, withSparseArray: true, withBoxedValues: true })),
      made(throwing, revoked, () => /g/g, () => () => 1, () => Symbol("s")),
    )
    fc.assert(
      fc.property(fieldOf, anything, fc.boolean(), ({ maker, field }, thunk, whole) => {
        const value = thunk()
        outcome(() => (whole ? (maker.whole ?? maker.make)(value as Record<string, unknown>) : maker.make({ ...maker.base, [field]: value })))
      }),
      { numRuns: 500 },
    )
  })
})
