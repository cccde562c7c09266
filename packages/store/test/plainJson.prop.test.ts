// The writer's counting walk (`isPlainWithin`) reads an object's keys without making their
// array; it answers as the walk over `Object.keys` did, for any value (prototypes with
// enumerable keys, null prototypes, class instances, toJSON, holes, getters that throw)
// and any bounds.
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { isPlainWithin } from "../src/internal/plainJson.js"

// The walk as it was, over Object.keys.
const reference = (u: unknown, maxItems: number, maxDepth: number): boolean => {
  const node = (v: unknown, depth: number): boolean => {
    if (typeof v === "string" || typeof v === "boolean") return true
    if (typeof v === "number") return Number.isFinite(v)
    if (typeof v !== "object") return false
    if (v === null) return true
    if (depth >= maxDepth) return false
    if (Array.isArray(v)) {
      if (v.length > maxItems) return false
      for (let i = 0; i < v.length; i++) if (!node(v[i], depth + 1)) return false
      return true
    }
    const proto: unknown = Object.getPrototypeOf(v)
    if ((proto !== Object.prototype && proto !== null) || typeof (v as { toJSON?: unknown }).toJSON === "function") return false
    const keys = Object.keys(v)
    if (keys.length > maxItems) return false
    for (const key of keys) if (!node((v as Record<string, unknown>)[key], depth + 1)) return false
    return true
  }
  try {
    return node(u, 0)
  } catch {
    return false
  }
}

// Odd objects beside fast-check's: inherited enumerable keys, a throwing getter, a
// non-enumerable key, a class instance.
class Box {
  constructor(readonly v: unknown) {}
}
const odd = (inner: unknown): fc.Arbitrary<unknown> =>
  fc.constantFrom(
    Object.create({ inherited: 1 }, { own: { value: inner, enumerable: true } }) as unknown,
    Object.defineProperty({ a: inner }, "boom", { enumerable: true, get: () => { throw new Error("boom") } }) as unknown,
    Object.defineProperty({ a: inner }, "hidden", { enumerable: false, value: () => 1 }) as unknown,
    Object.assign(Object.create(null) as object, { a: inner }) as unknown,
    new Box(inner) as unknown,
    { toJSON: () => inner } as unknown,
  )

const value: fc.Arbitrary<unknown> = fc.oneof(
  fc.anything({ withObjectString: true, withNullPrototype: true, withSparseArray: true, withBigInt: true, withDate: true, maxDepth: 4 }),
  fc.jsonValue({ maxDepth: 5 }).chain((inner) => fc.oneof(fc.constant(inner), odd(inner), odd(inner).map((o) => ({ x: [o] })))),
)

describe("isPlainWithin", () => {
  it("answers as the walk over Object.keys, for any value and bounds", () => {
    fc.assert(
      fc.property(value, fc.integer({ min: 0, max: 6 }), fc.integer({ min: 0, max: 6 }), (u, maxItems, maxDepth) => {
        expect(isPlainWithin(u, maxItems, maxDepth)).toBe(reference(u, maxItems, maxDepth))
      }),
      { numRuns: 2_000 },
    )
  })

  it("refuses an object with more keys than maxItems, and takes one with exactly as many", () => {
    expect(isPlainWithin({ a: 1, b: 2, c: 3 }, 2, 10)).toBe(false)
    expect(isPlainWithin({ a: 1, b: 2 }, 2, 10)).toBe(true)
    expect(isPlainWithin(Object.create({ inherited: 1, more: 2 }, { own: { value: 1, enumerable: true } }), 1, 10)).toBe(false)
  })

  it("counts and reads only own keys when Object.prototype has an enumerable one (a polluted prototype)", () => {
    const polluted = Object.prototype as Record<string, unknown>
    let answers: ReadonlyArray<boolean>
    try {
      polluted["pollution"] = () => "not JSON"
      answers = [isPlainWithin({ a: 1 }, 1, 10), reference({ a: 1 }, 1, 10), isPlainWithin({ a: { b: 2 } }, 1, 10)]
    } finally {
      delete polluted["pollution"]
    }
    expect(answers).toEqual([true, true, true])
  })
})
