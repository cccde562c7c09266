// The copies the laws and arbitraries make keep every key as data, `__proto__` included:
// a context decoded from JSON may hold one in its metadata or tool arguments.
import { describe, expect, it } from "vitest"
import { deepFreezeCopy } from "../src/arbitraries/base.js"
import { thaw } from "../src/internal/inspect.js"

const hostile = () => JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": 1}, "a": [1, {"__proto__": 2}]}') as Record<string, unknown>

const keepsKeysAsData = (copy: Record<string, unknown>) => {
  expect(Object.getPrototypeOf(copy)).toBe(Object.prototype)
  expect(Object.keys(copy)).toEqual(["__proto__", "constructor", "a"])
  expect(Object.getOwnPropertyDescriptor(copy, "__proto__")?.value).toEqual({ polluted: true })
  const nested = (copy["a"] as ReadonlyArray<Record<string, unknown>>)[1]!
  expect(Object.getOwnPropertyDescriptor(nested, "__proto__")?.value).toBe(2)
  expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined()
}

describe("copies of hostile JSON", () => {
  it("thaw keeps __proto__ and constructor keys as own data", () => {
    const copy = thaw(hostile())
    keepsKeysAsData(copy)
    expect(Object.isFrozen(copy)).toBe(false)
  })

  it("deepFreezeCopy keeps __proto__ and constructor keys as own data", () => {
    const copy = deepFreezeCopy(hostile() as never) as Record<string, unknown>
    keepsKeysAsData(copy)
    expect(Object.isFrozen(copy)).toBe(true)
  })
})
