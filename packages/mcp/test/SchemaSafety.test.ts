import { describe, expect, it } from "vitest"
import * as SchemaSafety from "../src/internal/SchemaSafety.js"

const object = (properties: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
  type: "object",
  properties,
  ...extra,
})

const reasonOf = (schema: unknown): string => {
  const verdict = SchemaSafety.check(schema)
  return verdict.ok ? "ok" : verdict.reason
}

// A chain of `depth` nested `items`, built without recursion.
const nested = (depth: number): Record<string, unknown> => {
  let schema: Record<string, unknown> = { type: "string" }
  for (let i = 0; i < depth; i++) schema = { type: "array", items: schema }
  return object({ deep: schema })
}

describe("SchemaSafety", () => {
  describe("check", () => {
    it("accepts ordinary tool schemas, local $refs that do not loop included", () => {
      expect(reasonOf(object({ a: { type: "number" }, b: { type: "string", pattern: "^[a-z]+$" } }, { required: ["a"] }))).toBe("ok")
      expect(reasonOf(object({ p: { $ref: "#/definitions/point" }, q: { $ref: "#/definitions/point" } }, {
        definitions: { point: object({ x: { type: "number" }, y: { type: "number" } }) },
      }))).toBe("ok")
      expect(reasonOf(object({ a: { $ref: "#/$defs/a~1b" } }, { $defs: { "a/b": { type: "string" } } }))).toBe("ok")
    })

    it("refuses a root that refers to itself, and any cycle through $ref", () => {
      expect(reasonOf({ type: "object", $ref: "#" })).toMatch(/cycle/)
      expect(reasonOf(object({ a: { $ref: "#/definitions/a" } }, { definitions: { a: { anyOf: [{ $ref: "#/definitions/b" }] }, b: { $ref: "#/definitions/a" } } })))
        .toMatch(/cycle/)
      // A recursive tree type is a cycle too: refused, not offered.
      expect(reasonOf(object({ children: { type: "array", items: { $ref: "#" } } }))).toMatch(/cycle/)
    })

    it("refuses a schema too deep, however deep, without overflowing its own stack", () => {
      expect(reasonOf(nested(SchemaSafety.maxDepth - 3))).toBe("ok")
      expect(reasonOf(nested(SchemaSafety.maxDepth))).toMatch(/deeper than 64/)
      expect(reasonOf(nested(200_000))).toMatch(/deeper than 64/)
    })

    it("refuses shared $refs whose expansion is too large (an exponential blow-up)", () => {
      const definitions: Record<string, unknown> = { d14: { type: "string" } }
      for (let i = 0; i < 14; i++) definitions[`d${i}`] = { anyOf: [{ $ref: `#/definitions/d${i + 1}` }, { $ref: `#/definitions/d${i + 1}` }] }
      const verdict = SchemaSafety.check(object({ a: { $ref: "#/definitions/d0" } }, { definitions }))
      expect(verdict).toMatchObject({ ok: false, reason: expect.stringMatching(/more than 20000 nodes/) })
      // Each node is visited once, not once per path.
      expect(verdict.steps).toBeLessThan(500)
    })

    it("refuses $refs it cannot follow safely: not local, pointing to nothing, or under a nested $id", () => {
      expect(reasonOf(object({ a: { $ref: "http://json-schema.org/draft-07/schema#" } }))).toMatch(/not local/)
      expect(reasonOf(object({ a: { $ref: "#/definitions/none" } }))).toMatch(/points to nothing/)
      expect(reasonOf(object({ a: { $id: "http://x/a", $ref: "#" } }))).toMatch(/nested \$id/)
    })

    it("accepts a pattern that backtracks catastrophically, since RE2 runs it in linear time", () => {
      expect(reasonOf(object({ s: { type: "string", pattern: "(a+)+$" } }))).toBe("ok")
    })

    it("refuses patterns RE2 cannot express (backreferences, lookaround), in pattern and patternProperties", () => {
      expect(reasonOf(object({ s: { type: "string", pattern: "(a)\\1" } }))).toMatch(/linear time/)
      expect(reasonOf(object({ s: { type: "string", pattern: "(?=a)a" } }))).toMatch(/linear time/)
      expect(reasonOf(object({}, { patternProperties: { "(?<=x)y": { type: "string" } } }))).toMatch(/linear time/)
      expect(reasonOf(object({ s: { type: "string", pattern: "a".repeat(1_001) } }))).toMatch(/1001 characters/)
    })

    it("reads enum, const, default and examples as data: a $ref or pattern there is not followed", () => {
      expect(reasonOf(object({ s: { enum: [{ $ref: "#" }, { pattern: "(a)\\1" }], default: { $id: "x" } } }))).toBe("ok")
    })
  })
})
