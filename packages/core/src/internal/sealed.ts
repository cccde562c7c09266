// Values core's constructors built themselves from valid, bounded parts: real objects
// (never a proxy), frozen, holding only data properties, whose every part is sealed or
// a scalar. Nothing outside core can add to the set, and a sealed value cannot change,
// so a boundary that must check what a driver answered (the agent's driverAnswer.ts)
// skips the check and the copy for them. Anything else, a hand-built, mutated or
// proxied answer included, is checked there as before.
import type { JsonValue } from "./jsonValue.js"
import { maxDepth, maxStringLength, maxValues } from "./limits.js"

const sealed = new WeakSet<object>()

/** Adds `value` (a frozen object this module's callers built) to the sealed set. */
export const seal = <A extends object>(value: A): A => {
  sealed.add(value)
  return value
}

/** Whether `s` is a string a sealed value may hold (`limits.ts`). */
export const isBoundedString = (s: unknown): s is string => typeof s === "string" && s.length <= maxStringLength

/** Whether `u` was sealed by core. */
export const isSealed = (u: unknown): boolean => typeof u === "object" && u !== null && sealed.has(u)

// The bounds of the agent's boundary (limits.ts): JSON nested deeper, holding more
// values, or a longer string, is refused there, so it is never sealed here.

const FAIL: unique symbol = Symbol("FAIL")

const isPlain = (value: object): boolean => {
  const proto: unknown = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

class Copy {
  budget = maxValues

  value(u: unknown, depth: number): JsonValue | typeof FAIL {
    if (--this.budget < 0) return FAIL
    switch (typeof u) {
      case "string":
        return u.length > maxStringLength ? FAIL : u
      case "boolean":
        return u
      case "number":
        // -0 reads as 0, as at every JSON boundary (JSON text has no -0).
        return Number.isFinite(u) ? (u === 0 ? 0 : u) : FAIL
      case "object":
        break
      default:
        return FAIL
    }
    if (u === null) return null
    if (sealed.has(u)) return this.skip(u as JsonValue, depth)
    if (depth >= maxDepth) return FAIL
    if (Array.isArray(u)) {
      const n = u.length
      const out: Array<JsonValue> = new Array(n)
      for (let i = 0; i < n; i++) {
        const item = this.value(u[i], depth + 1)
        if (item === FAIL) return FAIL
        out[i] = item
      }
      return seal(Object.freeze(out))
    }
    if (!isPlain(u)) return FAIL
    const out: Record<string, JsonValue> = {}
    for (const key of Object.keys(u)) {
      if (key.length > maxStringLength) return FAIL
      const item = this.value((u as Record<string, unknown>)[key], depth + 1)
      if (item === FAIL) return FAIL
      // `out.__proto__ = v` would set the prototype: keep it an own data key.
      if (key === "__proto__") Object.defineProperty(out, key, { value: item, enumerable: true, writable: true, configurable: true })
      else out[key] = item
    }
    return seal(Object.freeze(out))
  }

  // A sealed node is reused; its values still count, and its depth still bounds, as if
  // it were copied (it may sit deeper here than where it was sealed).
  private skip(u: JsonValue, depth: number): JsonValue | typeof FAIL {
    this.budget++
    return this.count(u, depth) ? u : FAIL
  }

  private count(u: unknown, depth: number): boolean {
    if (--this.budget < 0) return false
    if (typeof u !== "object" || u === null) return true
    if (depth >= maxDepth) return false
    if (Array.isArray(u)) {
      for (let i = 0; i < u.length; i++) if (!this.count(u[i], depth + 1)) return false
      return true
    }
    for (const key of Object.keys(u)) if (!this.count((u as Record<string, unknown>)[key], depth + 1)) return false
    return true
  }
}

/**
 * A sealed frozen copy of `u` if it is JSON within the bounds (a sealed value is reused
 * as it is); `undefined` if it is not JSON, too deep, too large, or reading it threw.
 */
export const sealJson = (u: unknown): JsonValue | undefined => {
  if (typeof u === "object" && u !== null && sealed.has(u)) return u as JsonValue
  try {
    const out = new Copy().value(u, 0)
    return out === FAIL ? undefined : out
  } catch {
    return undefined
  }
}
