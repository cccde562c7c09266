import { describe, expect, it } from "vitest"
import { Truncation } from "@hookline/core"

describe("Truncation", () => {
  describe("truncate", () => {
    it("returns a text within the limit as the same string", () => {
      expect(Truncation.truncate("abc", 3)).toBe("abc")
    })

    it("keeps the first limit characters and appends the marker", () => {
      expect(Truncation.truncate("abcdef", 3)).toBe(`abc${Truncation.marker(6, 3)}`)
      expect(Truncation.marker(6, 3)).toBe("…[truncated: 6 characters, limit 3]")
    })

    it("never splits a surrogate pair", () => {
      const text = `a${"😀".repeat(10)}`
      const cut = Truncation.truncate(text, 2)
      expect(cut.startsWith("a…")).toBe(true)
    })

    it("is idempotent: a cut text is not cut again at the same limit", () => {
      const once = Truncation.truncate("w".repeat(500), 100)
      expect(Truncation.truncate(once, 100)).toBe(once)
      expect(Truncation.of(once)).toEqual({ length: 500, limit: 100 })
    })

    it("uses the default limit of 100,000 characters", () => {
      expect(Truncation.defaultMaxLength).toBe(100_000)
      expect(Truncation.of(Truncation.truncate("q".repeat(100_001)))).toEqual({ length: 100_001, limit: 100_000 })
    })
  })

  describe("of", () => {
    it("recognizes only cut texts", () => {
      expect(Truncation.of("plain")).toBeUndefined()
      expect(Truncation.of(42)).toBeUndefined()
      expect(Truncation.of(Truncation.truncate("abcdef", 2))).toEqual({ length: 6, limit: 2 })
    })
  })
})
