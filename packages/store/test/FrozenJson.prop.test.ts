// The vouching walk's short cuts (internal/frozenJson.ts) answer as the full walk: a
// container met again under a root kept this step (`keep`) is not walked twice, and the
// caller's own containers (`bytesOwn`: a delta and its tails) are not asked again whether
// they are plain. Over generated values that share parts, hostile ones among them (not
// frozen, getters, hidden properties, foreign prototypes, a Proxy, past the bounds, near
// the depth bound at another depth than where the part was first walked), each answer is
// the one a fresh measure gives the same value.
import { Json } from "@hookline/core"
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

const nested = (depth: number, inside: unknown = 0): unknown => {
  let value: unknown = inside
  for (let i = 0; i < depth; i++) value = Object.freeze([value])
  return value
}

// Parts a value may hold, some of them met more than once.
const part: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue().map(deepFreeze),
  fc.jsonValue(),
  fc.constantFrom<() => unknown>(
    () => Object.freeze(Object.defineProperty({}, "now", { enumerable: true, get: () => 1 })),
    () => Object.freeze(Object.defineProperty({ a: 1 }, "b", { value: 2, enumerable: false })),
    () => Object.freeze(Object.defineProperty([0], 0, { enumerable: true, get: () => 1 })),
    () => Object.freeze(Object.setPrototypeOf([1], Object.freeze(Object.create(Array.prototype, { toJSON: { value: () => "x" } })))),
    () => new Proxy(Object.freeze({ a: 1 }), {}),
    () => Object.freeze(Object.assign(Object.create(null), { a: 1 })),
    () => Object.freeze(Array.from({ length: 100_001 }, () => 0)),
  ).map((f) => f()),
  fc.integer({ min: Json.maxDepth - 4, max: Json.maxDepth + 1 }).map((d) => nested(d)),
  fc.integer({ min: 1, max: 8 }).map((d) => nested(d)),
)

// A value built of `parts` (indexes into the pool), each wrapped in 0 to `Json.maxDepth`
// frozen arrays, so a part kept at one depth is met again at another.
const built = (pool: ReadonlyArray<unknown>, picks: ReadonlyArray<readonly [number, number]>, frozen: boolean): unknown => {
  const items = picks.map(([at, depth]) => nested(depth, pool[at % pool.length]))
  const out = Object.fromEntries(items.map((item, i) => [`k${i}`, item]))
  return frozen ? Object.freeze(out) : out
}

const input = fc.record({
  pool: fc.array(part, { minLength: 1, maxLength: 6 }),
  // Roots kept first, as a step's journal entries are.
  roots: fc.array(fc.tuple(fc.nat(), fc.nat({ max: 3 })), { maxLength: 4 }),
  // The value measured after them: parts at various depths.
  picks: fc.array(fc.tuple(fc.nat(), fc.oneof(fc.nat({ max: 3 }), fc.integer({ min: Json.maxDepth - 8, max: Json.maxDepth })))),
  frozen: fc.boolean(),
  // Whether the value's top container is the caller's own (`bytesOwn`).
  own: fc.boolean(),
})

const fresh = (): FrozenJson.Measure => ByReference.measure()

describe("the vouching walk's short cuts (internal/frozenJson.ts)", () => {
  it("answers as a fresh walk, after kept roots that share its parts and with the caller's own containers", () => {
    let shared = 0
    fc.assert(
      fc.property(input, ({ pool, roots, picks, frozen, own }) => {
        const measured = fresh()
        const kept = roots.map(([at, depth]) => nested(depth, pool[at % pool.length]))
        for (const root of kept) expect(measured.keep(root)).toBe(fresh().bytes(root))
        // The caller's own top container is plain and frozen, as `diff` makes a delta.
        const value = built(pool, picks, own || frozen)
        const expected = fresh().bytes(value)
        if (expected >= 0 && kept.length > 0) shared++
        expect(own ? measured.bytesOwn(value as object, undefined, undefined, undefined) : measured.bytes(value)).toBe(expected)
        // And again, after the step's measures are dropped.
        measured.forget()
        expect(measured.bytes(value)).toBe(expected)
      }),
      { numRuns: 600 },
    )
    expect(shared).toBeGreaterThan(0)
  }, 120_000)

  it("refuses a part past the depth bound when met deeper than where it was kept", () => {
    const measured = fresh()
    const part = nested(Json.maxDepth - 2)
    const root = Object.freeze([part])
    expect(measured.keep(root)).toBeGreaterThan(0)
    expect(measured.bytes(nested(1, part))).toBeGreaterThan(0)
    expect(measured.bytes(nested(3, part))).toBe(-1)
    expect(fresh().bytes(nested(3, part))).toBe(-1)
  })
})
