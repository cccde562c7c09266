import { pipe } from "effect/Function"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { Usage } from "@hookline/core"
import { usage } from "./arbitraries.js"

describe("Usage", () => {
  describe("Monoid", () => {
    it("is associative", () => {
      fc.assert(
        fc.property(usage, usage, usage, (a, b, c) => {
          const { concat } = Usage.Monoid
          expect(concat(concat(a, b), c)).toEqual(concat(a, concat(b, c)))
        }),
      )
    })

    it("has empty as its identity on both sides, returning the other argument itself", () => {
      fc.assert(
        fc.property(usage, (a) => {
          const { concat, empty } = Usage.Monoid
          expect(concat(empty, a)).toBe(a)
          expect(concat(a, empty)).toBe(a)
        }),
      )
    })

    it("treats any zero usage as the identity", () => {
      fc.assert(
        fc.property(usage, (a) => {
          const zero = { inputTokens: 0, outputTokens: 0 }
          expect(Usage.add(zero, a)).toEqual(a)
          expect(Usage.add(a, zero)).toEqual(a)
        }),
      )
    })
  })

  describe("add", () => {
    it("adds input and output tokens separately", () => {
      fc.assert(
        fc.property(usage, usage, (a, b) => {
          const cached = (a.cachedInputTokens ?? 0) + (b.cachedInputTokens ?? 0)
          const reasoning = (a.reasoningTokens ?? 0) + (b.reasoningTokens ?? 0)
          expect(Usage.add(a, b)).toStrictEqual({
            inputTokens: a.inputTokens + b.inputTokens,
            outputTokens: a.outputTokens + b.outputTokens,
            ...(cached === 0 ? {} : { cachedInputTokens: cached }),
            ...(reasoning === 0 ? {} : { reasoningTokens: reasoning }),
          })
        }),
      )
    })

    it("is commutative", () => {
      fc.assert(
        fc.property(usage, usage, (a, b) => {
          expect(Usage.add(a, b)).toEqual(Usage.add(b, a))
        }),
      )
    })

    it("returns a frozen usage", () => {
      fc.assert(
        fc.property(usage, usage, (a, b) => {
          expect(Object.isFrozen(Usage.add(a, b))).toBe(true)
        }),
      )
    })

    it("gives the same result data-first and data-last", () => {
      fc.assert(
        fc.property(usage, usage, (a, b) => {
          expect(pipe(a, Usage.add(b))).toEqual(Usage.add(a, b))
        }),
      )
    })
  })

  describe("total", () => {
    it("is input plus output tokens", () => {
      fc.assert(
        fc.property(fc.nat(1_000_000), fc.nat(1_000_000), (i, o) => {
          expect(Usage.total(Usage.make(i, o))).toBe(i + o)
        }),
      )
    })

    it("turns add into + (a monoid homomorphism)", () => {
      fc.assert(
        fc.property(usage, usage, (a, b) => {
          expect(Usage.total(Usage.add(a, b))).toBe(Usage.total(a) + Usage.total(b))
        }),
      )
      expect(Usage.total(Usage.empty)).toBe(0)
    })
  })

  describe("make", () => {
    it("returns empty itself for zero tokens", () => {
      expect(Usage.make(0, 0)).toBe(Usage.empty)
    })

    it("leaves out zero details: with and without them it is the same value", () => {
      expect(Usage.make(0, 0, { cachedInputTokens: 0, reasoningTokens: 0 })).toBe(Usage.empty)
      expect(Usage.make(5, 2, { cachedInputTokens: 0 })).toStrictEqual({ inputTokens: 5, outputTokens: 2 })
      expect(Usage.make(5, 2, { cachedInputTokens: 3 })).toStrictEqual({ inputTokens: 5, outputTokens: 2, cachedInputTokens: 3 })
      expect(Usage.make(5, 2, { reasoningTokens: 1 })).toStrictEqual({ inputTokens: 5, outputTokens: 2, reasoningTokens: 1 })
    })

    it("adds details when only one side has them, and total ignores them (they are parts)", () => {
      const a = Usage.make(100, 10, { cachedInputTokens: 80, reasoningTokens: 4 })
      const b = Usage.make(50, 5)
      expect(Usage.add(a, b)).toStrictEqual({ inputTokens: 150, outputTokens: 15, cachedInputTokens: 80, reasoningTokens: 4 })
      expect(Usage.add(b, a)).toStrictEqual(Usage.add(a, b))
      expect(Usage.total(a)).toBe(110)
      expect(Object.isFrozen(Usage.add(a, b))).toBe(true)
    })

    it("builds a frozen usage", () => {
      fc.assert(
        fc.property(fc.nat(), fc.nat(), (i, o) => {
          const u = Usage.make(i, o)
          expect(u).toEqual({ inputTokens: i, outputTokens: o })
          expect(Object.isFrozen(u)).toBe(true)
        }),
      )
    })
  })
})
