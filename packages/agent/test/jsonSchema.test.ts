import * as t from "io-ts"
import { describe, expect, it } from "vitest"
import { fromCodec } from "../src/internal/jsonSchema.js"

const schemaOf = (codec: t.Any) => {
  const conversion = fromCodec(codec)
  if (!conversion.ok) throw new Error(`not converted: ${conversion.path}: ${conversion.reason}`)
  return conversion.schema
}

const failureOf = (codec: t.Any) => {
  const conversion = fromCodec(codec)
  if (conversion.ok) throw new Error(`converted: ${JSON.stringify(conversion.schema)}`)
  return conversion
}

describe("jsonSchema", () => {
  describe("fromCodec", () => {
    it("converts the primitive codecs", () => {
      expect(schemaOf(t.string)).toEqual({ type: "string" })
      expect(schemaOf(t.number)).toEqual({ type: "number" })
      expect(schemaOf(t.boolean)).toEqual({ type: "boolean" })
      expect(schemaOf(t.null)).toEqual({ type: "null" })
      expect(schemaOf(t.unknown)).toEqual({})
      expect(schemaOf(t.any)).toEqual({})
      expect(schemaOf(t.UnknownArray)).toEqual({ type: "array" })
      expect(schemaOf(t.UnknownRecord)).toEqual({ type: "object" })
    })

    it("turns t.Int (also branded further) into an integer", () => {
      expect(schemaOf(t.Int)).toEqual({ type: "integer" })
      interface PositiveBrand {
        readonly Positive: unique symbol
      }
      const Positive = t.brand(t.Int, (n): n is t.Branded<t.Int, PositiveBrand> => n > 0, "Positive")
      expect(schemaOf(Positive)).toEqual({ type: "integer" })
    })

    it("converts a refinement to its base", () => {
      const Short = t.refinement(t.string, (s) => s.length < 10, "Short")
      expect(schemaOf(Short)).toEqual({ type: "string" })
    })

    it("converts literals and unions of string or number literals to enum", () => {
      expect(schemaOf(t.literal("a"))).toEqual({ type: "string", enum: ["a"] })
      expect(schemaOf(t.union([t.literal("low"), t.literal("high")]))).toEqual({ type: "string", enum: ["low", "high"] })
      expect(schemaOf(t.union([t.literal(1), t.literal(2)]))).toEqual({ type: "number", enum: [1, 2] })
      expect(schemaOf(t.union([t.literal("a"), t.literal(1)]))).toEqual({ enum: ["a", 1] })
      expect(schemaOf(t.keyof({ red: null, green: null }))).toEqual({ type: "string", enum: ["red", "green"] })
    })

    it("converts other unions to anyOf", () => {
      expect(schemaOf(t.union([t.string, t.null]))).toEqual({ anyOf: [{ type: "string" }, { type: "null" }] })
      expect(schemaOf(t.union([t.literal(true), t.number]))).toEqual({
        anyOf: [{ type: "boolean", enum: [true] }, { type: "number" }],
      })
    })

    it("converts t.type with every property required", () => {
      expect(schemaOf(t.type({ a: t.number, b: t.string }))).toEqual({
        type: "object",
        properties: { a: { type: "number" }, b: { type: "string" } },
        required: ["a", "b"],
      })
    })

    it("leaves out of required a property whose codec accepts undefined", () => {
      expect(schemaOf(t.type({ a: t.number, b: t.union([t.string, t.undefined]) }))).toEqual({
        type: "object",
        properties: { a: { type: "number" }, b: { type: "string" } },
        required: ["a"],
      })
    })

    it("converts t.partial to optional properties", () => {
      expect(schemaOf(t.partial({ a: t.number }))).toEqual({ type: "object", properties: { a: { type: "number" } } })
    })

    it("closes t.strict and t.exact objects with additionalProperties false", () => {
      const closed = { type: "object", properties: { a: { type: "number" } }, required: ["a"], additionalProperties: false }
      expect(schemaOf(t.strict({ a: t.number }))).toEqual(closed)
      expect(schemaOf(t.exact(t.type({ a: t.number })))).toEqual(closed)
    })

    it("merges an intersection of object types", () => {
      const Order = t.intersection([
        t.type({
          customer: t.type({ name: t.string, email: t.string }),
          items: t.array(t.type({ sku: t.string, qty: t.Int })),
          priority: t.union([t.literal("low"), t.literal("high")]),
        }),
        t.partial({ note: t.string, tags: t.readonlyArray(t.string) }),
      ])
      expect(schemaOf(Order)).toEqual({
        type: "object",
        properties: {
          customer: {
            type: "object",
            properties: { name: { type: "string" }, email: { type: "string" } },
            required: ["name", "email"],
          },
          items: {
            type: "array",
            items: {
              type: "object",
              properties: { sku: { type: "string" }, qty: { type: "integer" } },
              required: ["sku", "qty"],
            },
          },
          priority: { type: "string", enum: ["low", "high"] },
          note: { type: "string" },
          tags: { type: "array", items: { type: "string" } },
        },
        required: ["customer", "items", "priority"],
      })
    })

    it("keeps an intersection closed only when every member is", () => {
      const both = t.intersection([t.strict({ a: t.number }), t.exact(t.partial({ b: t.string }))])
      expect(schemaOf(both)).toMatchObject({ additionalProperties: false })
      const mixed = t.intersection([t.strict({ a: t.number }), t.partial({ b: t.string })])
      expect(schemaOf(mixed)).not.toHaveProperty("additionalProperties")
    })

    it("converts records with string keys to additionalProperties", () => {
      expect(schemaOf(t.record(t.string, t.number))).toEqual({ type: "object", additionalProperties: { type: "number" } })
    })

    it("converts records with finite keys to required properties", () => {
      expect(schemaOf(t.record(t.keyof({ x: null, y: null }), t.number))).toEqual({
        type: "object",
        properties: { x: { type: "number" }, y: { type: "number" } },
        required: ["x", "y"],
        additionalProperties: false,
      })
    })

    it("converts tuples to fixed-length item lists", () => {
      expect(schemaOf(t.tuple([t.string, t.number]))).toEqual({
        type: "array",
        items: [{ type: "string" }, { type: "number" }],
        minItems: 2,
        maxItems: 2,
      })
    })

    it("converts t.readonly to its base", () => {
      expect(schemaOf(t.readonly(t.type({ a: t.string })))).toEqual({
        type: "object",
        properties: { a: { type: "string" } },
        required: ["a"],
      })
    })

    it("expands a recursive codec once and leaves its self-references open", () => {
      interface Tree {
        readonly label: string
        readonly children: ReadonlyArray<Tree>
      }
      const Tree: t.Type<Tree> = t.recursion("Tree", () => t.type({ label: t.string, children: t.readonlyArray(Tree) }))
      expect(schemaOf(Tree)).toEqual({
        type: "object",
        properties: { label: { type: "string" }, children: { type: "array", items: {} } },
        required: ["label", "children"],
      })
    })

    it("reports a custom codec with the path where it sits", () => {
      const DateFromString = new t.Type<Date, string, unknown>(
        "DateFromString",
        (u): u is Date => u instanceof Date,
        (u, c) => (typeof u === "string" ? t.success(new Date(u)) : t.failure(u, c)),
        (d) => d.toISOString(),
      )
      const failure = failureOf(t.type({ when: t.array(DateFromString) }))
      expect(failure.path).toBe("properties.when.items")
      expect(failure.reason).toContain("DateFromString")
    })

    it("reports codecs with no JSON form", () => {
      expect(failureOf(t.bigint).reason).toContain("bigint")
      expect(failureOf(t.Function).reason).toContain("Function")
      expect(failureOf(t.undefined).reason).toContain("undefined")
      expect(failureOf(t.record(t.number, t.string)).reason).toContain("number")
    })

    it("reports an intersection of types that are not objects", () => {
      const failure = failureOf(t.intersection([t.type({ a: t.string }), t.string]))
      expect(failure.path).toBe("allOf[1]")
    })
  })
})
