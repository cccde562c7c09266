// The hostile-schema class, generated: cycles through $ref, deep nesting, shared $refs
// that blow up, patterns that backtrack catastrophically and patterns RE2 cannot express,
// mixed into ordinary schemas. For every one, the safety check visits each node of the
// schema's JSON a bounded number of times, and the tool is either skipped with a reason
// or offered with a validator whose work on a value is bounded by the expanded schema
// times the value (counted by a keyword on every subschema, not by the clock).
import { Effect, Exit } from "effect"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { JsonObject } from "@hookline/core"
import { McpTool } from "@hookline/mcp"
import * as SchemaSafety from "../src/internal/SchemaSafety.js"

type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }

const catastrophic = ["(a+)+$", "(a|aa)+$", "(a*)*b", "^(\\w+\\s?)*$", "(.*a){12}", "(x+x+)+y"]
const unsupported = ["(a)\\1", "(?=a)a", "(?!a)b", "(?<=a)b", "(?<n>a)\\k<n>", "a{2000}"]
const benign = ["^[a-z]+$", "\\d{3}-\\d{4}", "^\\p{L}*$", "\\u00e9"]

const pattern = fc.oneof(
  { arbitrary: fc.constantFrom(...catastrophic), weight: 4 },
  { arbitrary: fc.constantFrom(...benign), weight: 2 },
  { arbitrary: fc.constantFrom(...unsupported), weight: 1 },
  { arbitrary: fc.string({ maxLength: 12 }), weight: 1 },
)

// A chain of `depth` nested array schemas around `inner`, built without recursion.
const nest = (inner: Json, depth: number): Json => {
  let schema = inner
  for (let i = 0; i < depth; i++) schema = { type: "array", items: schema }
  return schema
}

const leaf: fc.Arbitrary<Json> = fc.oneof(
  { arbitrary: fc.constantFrom<Json>({ type: "string" }, { type: "number" }, { enum: [{ $ref: "#" }, "x"] }), weight: 3 },
  { arbitrary: pattern.map((p) => ({ type: "string", pattern: p })), weight: 4 },
  {
    arbitrary: fc.constantFrom<Json>({ $ref: "#" }, { $ref: "#/definitions/a" }, { $ref: "#/definitions/b" }, { $ref: "#/definitions/missing" }),
    weight: 1,
  },
)

const subschema: fc.Arbitrary<Json> = fc.letrec<{ node: Json }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leaf,
    fc.record({ type: fc.constant("array"), items: tie("node") }),
    fc.record({ anyOf: fc.array(tie("node"), { minLength: 1, maxLength: 3 }) }),
    fc.dictionary(fc.constantFrom("p", "q", "r"), tie("node"), { maxKeys: 3 }).map((properties) => ({ type: "object", properties })),
    fc.dictionary(pattern, tie("node"), { maxKeys: 2 }).map((patternProperties) => ({ type: "object", patternProperties })),
  ),
})).node

// Definitions `a` and `b` (refs may loop through them), and a blow-up chain d0..dn where
// each refers twice to the next.
const blowUp = (levels: number): Record<string, Json> => {
  const definitions: Record<string, Json> = { [`d${levels}`]: { type: "string" } }
  for (let i = 0; i < levels; i++) definitions[`d${i}`] = { anyOf: [{ $ref: `#/definitions/d${i + 1}` }, { $ref: `#/definitions/d${i + 1}` }] }
  return definitions
}

const hostileSchema: fc.Arbitrary<JsonObject> = fc.record({
  a: subschema,
  b: subschema,
  props: fc.dictionary(fc.constantFrom("s", "t", "u"), subschema, { maxKeys: 3 }),
  depth: fc.oneof({ arbitrary: fc.integer({ min: 0, max: 40 }), weight: 4 }, { arbitrary: fc.integer({ min: 41, max: 200 }), weight: 1 }),
  levels: fc.oneof({ arbitrary: fc.constant(0), weight: 3 }, { arbitrary: fc.integer({ min: 1, max: 24 }), weight: 1 }),
  rootRef: fc.integer({ min: 0, max: 7 }).map((n) => n === 0),
}).map(({ a, b, props, depth, levels, rootRef }) => ({
  type: "object",
  properties: { ...props, deep: nest({ type: "string" }, depth), blow: levels > 0 ? { $ref: "#/definitions/d0" } : { type: "null" } },
  definitions: { a, b, ...(levels > 0 ? blowUp(levels) : {}) },
  ...(rootRef ? { $ref: "#" } : {}),
}) as JsonObject)

const text = fc.oneof(fc.constantFrom(`${"a".repeat(40)}!`, "a".repeat(40), `${"x".repeat(40)}z`, "é", ""), fc.string({ maxLength: 40 }))
const value: fc.Arbitrary<Json> = fc.letrec<{ v: Json }>((tie) => ({
  v: fc.oneof(
    { depthSize: "small" },
    text,
    fc.integer(),
    fc.constant(null),
    fc.array(tie("v"), { maxLength: 4 }),
    fc.dictionary(fc.oneof(fc.constantFrom("s", "t", "u", "deep", "blow", "p"), text), tie("v"), { maxKeys: 4 }),
  ),
})).v

const nodesOf = (json: unknown): number => {
  let count = 0
  const stack: Array<unknown> = [json]
  while (stack.length > 0) {
    const node = stack.pop()
    count++
    if (typeof node === "object" && node !== null) stack.push(...Object.values(node))
  }
  return count
}

// The schema with a counting keyword in every object (so in every subschema ajv applies).
const counted = (json: Json): JsonObject => countedNode(json) as JsonObject
const countedNode = (json: Json): Json => {
  if (Array.isArray(json)) return json.map(countedNode)
  if (typeof json !== "object" || json === null) return json
  const out: Record<string, Json> = { "x-visit": true }
  for (const [key, child] of Object.entries(json)) out[key] = ["enum", "const"].includes(key) ? child : countedNode(child)
  return out
}

const noCall: McpTool.Caller = { call: () => Promise.reject(new Error("not called here")) }
const options: McpTool.Options = { prefix: "", timeout: undefined, maxOutputLength: undefined }

describe("SchemaSafety (property)", () => {
  it("terminates within a bounded number of steps on every hostile schema, and either skips the tool or validates in bounded work", () => {
    fc.assert(
      fc.property(hostileSchema.map(counted), fc.array(value, { minLength: 1, maxLength: 4 }), (schema, values) => {
        const verdict = SchemaSafety.check(schema)
        // The check itself: each JSON node of the schema at most twice (as schema, as data).
        expect(verdict.steps).toBeLessThanOrEqual(2 * nodesOf(schema))

        let visits = 0
        const ajv = McpTool.newAjv()
        ajv.addKeyword({ keyword: "x-visit", errors: false, validate: () => (visits++, true) })
        const made = McpTool.make({ name: "t", inputSchema: schema }, noCall, options, ajv)
        if (!verdict.ok) {
          expect(made).toEqual({ skipped: { name: "t", reason: expect.stringContaining(verdict.reason) } })
          return
        }
        expect(verdict.nodes).toBeLessThanOrEqual(SchemaSafety.maxNodes)
        if ("skipped" in made) return // a schema the agent's Tool.make refuses (not an object schema, say)
        for (const v of values) {
          visits = 0
          // Synchronous, and ends with a value or a typed error: never a thrown stack overflow.
          const exit = Effect.runSync(Effect.exit(made.tool.validate(v)))
          expect(Exit.isSuccess(exit) || Exit.findErrorOption(exit)._tag === "Some").toBe(true)
          // Every subschema applied to every value node at most once per expanded schema node.
          expect(visits).toBeLessThanOrEqual(verdict.nodes * nodesOf(v))
        }
      }),
      { numRuns: 300 },
    )
  })
})
