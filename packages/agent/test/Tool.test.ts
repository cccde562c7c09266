import type { StandardSchemaV1 } from "@standard-schema/spec"
import { toStandardJsonSchema } from "@valibot/to-json-schema"
import { AgentError, type JsonObject } from "@hookline/core"
import { Duration, Effect, Exit, Schema } from "effect"
import * as t from "io-ts"
import * as v from "valibot"
import { describe, expect, expectTypeOf, it } from "vitest"
import * as z from "zod"
import { Tool } from "@hookline/agent"

const configError = (make: () => unknown): AgentError.AgentError => {
  try {
    make()
  } catch (error) {
    expect(error).toBeInstanceOf(AgentError.HooklineError)
    return (error as AgentError.HooklineError).error
  }
  throw new Error("expected a configuration error")
}

const validate = <A>(tool: Tool<A>, input: unknown) => Effect.runPromiseExit(tool.validate(input))

const failureOf = async <A>(tool: Tool<A>, input: unknown) => {
  const exit = await validate(tool, input)
  if (Exit.isSuccess(exit)) throw new Error(`expected invalid arguments, got ${JSON.stringify(exit.value)}`)
  return Effect.runSync(Effect.flip(Effect.failCause(exit.cause)))
}

const Add = t.type({ a: t.number, b: t.number })
const add = Tool.make({ name: "add", description: "Adds two numbers", parameters: Add, execute: ({ a, b }) => a + b })

const Order = t.type({ items: t.array(t.type({ sku: t.string, qty: t.number })) })

describe("Tool", () => {
  describe("make", () => {
    it("makes a frozen tool from an io-ts codec", () => {
      expect(add._tag).toBe("Tool")
      expect(add.name).toBe("add")
      expect(add.description).toBe("Adds two numbers")
      expect(add.timeout).toBeUndefined()
      expect(Object.isFrozen(add)).toBe(true)
      expect(Object.isFrozen(add.jsonSchema)).toBe(true)
      expect(add.jsonSchema).toEqual({
        type: "object",
        properties: { a: { type: "number" }, b: { type: "number" } },
        required: ["a", "b"],
      })
    })

    it("infers the arguments' type from the parameters", () => {
      const tool = Tool.make({ name: "t", parameters: z.object({ q: z.string() }), execute: (args) => args.q })
      expectTypeOf(tool).toEqualTypeOf<Tool<{ q: string }, unknown>>()
      expectTypeOf(add).toEqualTypeOf<Tool<{ a: number; b: number }, unknown>>()
    })

    it("defaults the description to the empty string", () => {
      expect(Tool.make({ name: "x", parameters: Add, execute: () => null }).description).toBe("")
    })

    it("reads the timeout as a Duration", () => {
      const tool = Tool.make({ name: "x", parameters: Add, execute: () => null, timeout: "1 second" })
      expect(tool.timeout).toEqual(Duration.seconds(1))
      expect(Tool.make({ name: "x", parameters: Add, execute: () => null, timeout: 250 }).timeout).toEqual(Duration.millis(250))
    })

    it("uses the jsonSchema option over the derived schema, as a frozen copy", () => {
      const jsonSchema = { type: "object", properties: { a: { type: "number", description: "the first" } } }
      const tool = Tool.make({ name: "x", parameters: Add, jsonSchema, execute: () => null })
      expect(tool.jsonSchema).toEqual(jsonSchema)
      expect(tool.jsonSchema).not.toBe(jsonSchema)
      expect(Object.isFrozen((tool.jsonSchema.properties as JsonObject).a)).toBe(true)
      expect(Object.isFrozen(jsonSchema)).toBe(false)
    })

    it("takes the JSON Schema of a zod schema from Standard JSON Schema, without $schema", () => {
      const tool = Tool.make({
        name: "order",
        parameters: z.object({ items: z.array(z.object({ sku: z.string(), qty: z.number() })), note: z.string().optional() }),
        execute: () => null,
      })
      expect(tool.jsonSchema).toEqual({
        type: "object",
        properties: {
          items: {
            type: "array",
            items: { type: "object", properties: { sku: { type: "string" }, qty: { type: "number" } }, required: ["sku", "qty"] },
          },
          note: { type: "string" },
        },
        required: ["items"],
      })
    })

    it("asks for jsonSchema with a valibot schema, which has no Standard JSON Schema of its own", () => {
      const error = configError(() =>
        Tool.make({ name: "x", parameters: v.object({ a: v.number() }), execute: () => null })
      )
      expect(error).toMatchObject({ _tag: "InvalidConfiguration", path: "jsonSchema" })
      expect(error.message).toContain("valibot")
      expect(error.message).toContain("pass jsonSchema")
    })

    it("takes a valibot schema with the jsonSchema option", () => {
      const jsonSchema = { type: "object", properties: { a: { type: "number" } }, required: ["a"] }
      const tool = Tool.make({ name: "x", parameters: v.object({ a: v.number() }), jsonSchema, execute: () => null })
      expect(tool.jsonSchema).toEqual(jsonSchema)
    })

    it("derives the JSON Schema of a valibot schema wrapped by @valibot/to-json-schema", () => {
      const tool = Tool.make({
        name: "x",
        parameters: toStandardJsonSchema(v.object({ a: v.number(), tags: v.optional(v.array(v.string())) })),
        execute: () => null,
      })
      expect(tool.jsonSchema).toEqual({
        type: "object",
        properties: { a: { type: "number" }, tags: { type: "array", items: { type: "string" } } },
        required: ["a"],
      })
    })

    it("takes an Effect Schema through Schema.toStandardSchemaV1 with the jsonSchema option", () => {
      const parameters = Schema.toStandardSchemaV1(Schema.Struct({ city: Schema.String, days: Schema.Int }))
      const jsonSchema = { type: "object", properties: { city: { type: "string" }, days: { type: "integer" } }, required: ["city", "days"] }
      const tool = Tool.make({ name: "weather", parameters, jsonSchema, execute: ({ city, days }) => `${city} ${days}` })
      expect(tool.jsonSchema).toEqual(jsonSchema)
      expectTypeOf(tool).toEqualTypeOf<Tool<{ readonly city: string; readonly days: number }, unknown>>()
    })

    it("asks for jsonSchema with an Effect Schema that only validates", () => {
      const parameters = Schema.toStandardSchemaV1(Schema.Struct({ city: Schema.String }))
      const error = configError(() => Tool.make({ name: "x", parameters, execute: () => null }))
      expect(error).toMatchObject({ _tag: "InvalidConfiguration", path: "jsonSchema" })
    })

    it("derives the JSON Schema of an Effect Schema that is also a Standard JSON Schema", () => {
      const parameters = Schema.toStandardJSONSchemaV1(Schema.toStandardSchemaV1(Schema.Struct({ city: Schema.String })))
      const tool = Tool.make({ name: "x", parameters, execute: () => null })
      expect(tool.jsonSchema).toMatchObject({ type: "object", properties: { city: { type: "string" } }, required: ["city"] })
    })

    it("asks for jsonSchema when the schema library cannot convert the parameters", () => {
      const parameters = z.object({ when: z.date() })
      const error = configError(() => Tool.make({ name: "x", parameters, execute: () => null }))
      expect(error).toMatchObject({ _tag: "InvalidConfiguration", path: "jsonSchema" })
      expect(error.message).toContain("pass jsonSchema")
    })

    it("asks for jsonSchema when an io-ts codec cannot be converted", () => {
      const error = configError(() => Tool.make({ name: "x", parameters: t.type({ n: t.bigint }), execute: () => null }))
      expect(error).toMatchObject({ _tag: "InvalidConfiguration", path: "jsonSchema" })
      expect(error.message).toContain("properties.n")
      expect(error.message).toContain("pass jsonSchema")
    })

    it("refuses parameters whose schema is not an object schema", () => {
      const error = configError(() => Tool.make({ name: "x", parameters: t.array(t.string), execute: () => null }))
      expect(error).toMatchObject({ _tag: "InvalidConfiguration", path: "parameters" })
      expect(error.message).toContain(`"object"`)
      expect(configError(() => Tool.make({ name: "x", parameters: z.string(), execute: () => null })))
        .toMatchObject({ path: "parameters" })
    })

    it("refuses a jsonSchema option that is not an object schema", () => {
      const error = configError(() => Tool.make({ name: "x", parameters: Add, jsonSchema: { type: "array" }, execute: () => null }))
      expect(error).toMatchObject({ _tag: "InvalidConfiguration", path: "jsonSchema" })
    })

    it("refuses a jsonSchema option that is not JSON, naming where", () => {
      const jsonSchema = { type: "object", properties: { a: { default: () => 1 } } } as unknown as JsonObject
      const error = configError(() => Tool.make({ name: "x", parameters: Add, jsonSchema, execute: () => null }))
      expect(error).toMatchObject({ _tag: "InvalidConfiguration", path: "jsonSchema.properties.a.default" })
    })

    it.each([
      ["the empty string", ""],
      ["a space", "get weather"],
      ["a dot", "weather.get"],
      ["65 characters", "a".repeat(65)],
      ["a number", 42],
      ["nothing", undefined],
    ])("refuses %s as name", (_, name) => {
      const error = configError(() => Tool.make({ name: name as string, parameters: Add, execute: () => null }))
      expect(error).toMatchObject({ _tag: "InvalidConfiguration", path: "name" })
    })

    it("accepts names of letters, digits, _ and - up to 64 characters", () => {
      expect(Tool.make({ name: `get_weather-2${"x".repeat(51)}`, parameters: Add, execute: () => null }).name).toHaveLength(64)
    })

    it("refuses a description that is not a string", () => {
      const error = configError(() => Tool.make({ name: "x", description: 1 as unknown as string, parameters: Add, execute: () => null }))
      expect(error).toMatchObject({ _tag: "InvalidConfiguration", path: "description" })
    })

    it.each([
      ["nothing", undefined],
      ["a plain object", { a: "number" }],
      ["a function", () => true],
      ["a Standard Schema of another version", { "~standard": { version: 2, vendor: "x", validate: () => ({ value: 1 }) } }],
      ["a Standard Schema without validate", Schema.toStandardJSONSchemaV1(Schema.Struct({ a: Schema.String }))],
    ])("refuses %s as parameters", (_, parameters) => {
      const error = configError(() => Tool.make({ name: "x", parameters: parameters as unknown as typeof Add, execute: () => null }))
      expect(error).toMatchObject({ _tag: "InvalidConfiguration", path: "parameters" })
    })

    it("refuses an execute that is not a function", () => {
      const error = configError(() => Tool.make({ name: "x", parameters: Add, execute: "run" as unknown as () => null }))
      expect(error).toMatchObject({ _tag: "InvalidConfiguration", path: "execute" })
    })

    it.each([
      ["text that is not a duration", "soon"],
      ["zero", 0],
      ["a negative duration", -5],
      ["NaN", Number.NaN],
      ["an object that is not a duration", { weeks: "x" }],
    ])("refuses %s as timeout", (_, timeout) => {
      const error = configError(() => Tool.make({ name: "x", parameters: Add, execute: () => null, timeout: timeout as Duration.Input }))
      expect(error).toMatchObject({ _tag: "InvalidConfiguration", path: "timeout" })
    })

    it("refuses options that are not an object", () => {
      const error = configError(() => Tool.make(undefined as unknown as Tool.Options<unknown>))
      expect(error).toMatchObject({ _tag: "InvalidConfiguration", path: "" })
    })
  })

  describe("validate", () => {
    it("decodes valid io-ts arguments", async () => {
      expect(await validate(add, { a: 1, b: 2 })).toEqual(Exit.succeed({ a: 1, b: 2 }))
    })

    it("names the path of the bad io-ts value", async () => {
      expect(await failureOf(add, { a: 1, b: "x" })).toEqual({ path: "b", message: `expected number, got "x"` })
      const order = Tool.make({ name: "order", parameters: Order, execute: () => null })
      const failure = await failureOf(order, { items: [{ sku: "a", qty: 1 }, { sku: "b", qty: "2" }] })
      expect(failure.path).toBe("items[1].qty")
    })

    it("leaves union and intersection members out of the io-ts path", async () => {
      const Args = t.intersection([t.type({ a: t.union([t.type({ n: t.number }), t.type({ s: t.string })]) }), t.partial({ b: t.string })])
      const tool = Tool.make({ name: "x", parameters: Args, execute: () => null })
      expect((await failureOf(tool, { a: { n: "1" } })).path).toBe("a.n")
      expect((await failureOf(tool, { a: { n: 1 }, b: 2 })).path).toBe("b")
    })

    it("names the path of the bad zod value with zod's message", async () => {
      const tool = Tool.make({
        name: "order",
        parameters: z.object({ items: z.array(z.object({ qty: z.number() })) }),
        execute: () => null,
      })
      const failure = await failureOf(tool, { items: [{ qty: 1 }, { qty: "x" }] })
      expect(failure).toEqual({ path: "items[1].qty", message: "Invalid input: expected number, received string" })
    })

    it("returns the zod schema's output", async () => {
      const tool = Tool.make({ name: "x", parameters: z.object({ n: z.string().transform(Number) }), execute: () => null })
      expect(await validate(tool, { n: "42" })).toEqual(Exit.succeed({ n: 42 }))
    })

    it("names the path of the bad valibot value from its path segments", async () => {
      const tool = Tool.make({
        name: "order",
        parameters: v.object({ items: v.array(v.object({ qty: v.number() })) }),
        jsonSchema: { type: "object" },
        execute: () => null,
      })
      const failure = await failureOf(tool, { items: [{ qty: 1 }, { qty: "x" }] })
      expect(failure.path).toBe("items[1].qty")
      expect(failure.message).toContain("Expected number")
    })

    it("names the path of the bad Effect Schema value", async () => {
      const parameters = Schema.toStandardSchemaV1(Schema.Struct({ stops: Schema.Array(Schema.Struct({ city: Schema.String })) }))
      const tool = Tool.make({ name: "x", parameters, jsonSchema: { type: "object" }, execute: () => null })
      expect(await failureOf(tool, { stops: [{ city: 1 }] })).toEqual({ path: "stops[0].city", message: "Expected string" })
    })

    it("awaits a Standard Schema that validates asynchronously", async () => {
      const parameters: StandardSchemaV1<unknown, { readonly id: number }> = {
        "~standard": {
          version: 1,
          vendor: "test",
          validate: async (value) =>
            typeof value === "object" && value !== null && "id" in value && typeof value.id === "number"
              ? { value: { id: value.id } }
              : { issues: [{ message: "no id", path: [{ key: "id" }] }] },
        },
      }
      const tool = Tool.make({ name: "x", parameters, jsonSchema: { type: "object" }, execute: () => null })
      expect(await validate(tool, { id: 7 })).toEqual(Exit.succeed({ id: 7 }))
      expect(await failureOf(tool, { id: "7" })).toEqual({ path: "id", message: "no id" })
    })

    it("refuses arguments given as text, at the root", async () => {
      const tools: ReadonlyArray<Tool> = [add, Tool.make({ name: "z", parameters: z.object({ a: z.number() }), execute: () => null })]
      for (const tool of tools) {
        const failure = await failureOf(tool, "{a: 1")
        expect(failure).toEqual({ path: "", message: `the arguments are not JSON: the model sent text that does not parse: "{a: 1" (5 characters)` })
        expect((await failureOf(tool, [1])).message).toBe("the arguments are not a JSON object: got an array: [1]")
        expect((await failureOf(tool, `{"a": 1}`)).message).toContain("not a JSON object: the driver passed them on as text")
      }
    })

    it("does not run the Standard Schema validator until the Effect runs", () => {
      let calls = 0
      const parameters: StandardSchemaV1<unknown, unknown> = {
        "~standard": { version: 1, vendor: "test", validate: (value) => (calls++, { value }) },
      }
      const tool = Tool.make({ name: "x", parameters, jsonSchema: { type: "object" }, execute: () => null })
      const effect = tool.validate({})
      expect(calls).toBe(0)
      Effect.runSync(effect)
      expect(calls).toBe(1)
    })
  })

  describe("definition", () => {
    it("gives the name, description and JSON Schema, frozen", () => {
      const definition = Tool.definition(add)
      expect(definition).toEqual({ name: "add", description: "Adds two numbers", parameters: add.jsonSchema })
      expect(definition.parameters).toBe(add.jsonSchema)
      expect(Object.isFrozen(definition)).toBe(true)
    })
  })

  describe("isTool", () => {
    it("recognizes tools", () => {
      expect(Tool.isTool(add)).toBe(true)
      expect(Tool.isTool({ _tag: "Tool", name: "add" })).toBe(false)
      expect(Tool.isTool(null)).toBe(false)
      expect(Tool.isTool(Tool.definition(add))).toBe(false)
    })
  })
})
