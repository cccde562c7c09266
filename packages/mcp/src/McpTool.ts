/**
 * One tool of an MCP server as a hookline `Tool`: the server's JSON Schema goes to the
 * model as it is, the model's arguments are checked against it before the server sees
 * them (untrusted input), and the server's answer becomes the tool's output, bounded
 * like any tool's. A schema that cannot be checked safely (a `$ref` cycle, too deep or
 * too large, a pattern that cannot run in linear time) makes the tool skipped. Each
 * call carries the run's idempotency key in its `_meta`.
 *
 * @since 0.1.0
 */
import type { StandardSchemaV1 } from "@standard-schema/spec"
import { Tool } from "@hookline/agent"
import { AgentError, Json, type JsonObject } from "@hookline/core"
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation"
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv"
import * as LinearRegExp from "./internal/LinearRegExp.js"
import * as SchemaSafety from "./internal/SchemaSafety.js"

/**
 * A tool as the server lists it (`tools/list`); untrusted until `make` checked it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Listed {
  readonly name: string
  readonly description?: string | undefined
  readonly inputSchema: unknown
  readonly outputSchema?: unknown
}

/**
 * A listed tool that is not offered to the model, and why (a name providers refuse, a
 * schema that is not an object schema, too large, nested too deep, with a `$ref` cycle,
 * or with a pattern that cannot be checked in linear time).
 *
 * @since 0.1.0
 * @category models
 */
export interface Skipped {
  /** The server's name for the tool. */
  readonly name: string
  readonly reason: string
}

/**
 * The `_meta` key under which every `tools/call` request carries the call's idempotency
 * key (`runId:toolCallId`, the same on every attempt of the call, a resumed run's
 * included), so a server can recognise a call repeated after a crash.
 *
 * @since 0.1.0
 * @category constants
 */
export const idempotencyKeyMeta = "io.hookline/idempotencyKey"

/**
 * What `tools/call` answers: content blocks, maybe structured content, maybe an error.
 *
 * @since 0.1.0
 * @category models
 */
export interface CallResult {
  readonly content?: ReadonlyArray<{ readonly type: string; readonly text?: unknown }> | undefined
  readonly structuredContent?: unknown
  readonly isError?: boolean | undefined
}

/** The longest description a server may give a tool; longer ones are cut. */
export const maxDescriptionLength = 8_000

/** The largest input schema taken from a server, in characters of its JSON text. */
export const maxSchemaLength = 100_000

/**
 * A tool call the server answered with `isError`: its text is the tool's error.
 *
 * @since 0.1.0
 * @category errors
 */
export class McpToolError extends Error {
  override readonly name = "McpToolError"
}

// ajv: one error is enough for the model to correct itself; formats are hints only
// (an unknown format must not make a tool unusable); the schema is not checked
// against its meta-schema (servers write draft-07 and 2020-12 alike); patterns run on
// RE2, in linear time, never as a backtracking RegExp.
export const newAjv = (): Ajv =>
  new Ajv({ strict: false, allErrors: false, validateFormats: false, validateSchema: false, code: { regExp: LinearRegExp.engine } })

/**
 * Why a schema cannot be validated safely, or `undefined` when it can (see
 * `SchemaSafety`).
 *
 * @since 0.1.0
 * @category guards
 */
export const unsafeSchema = (schema: unknown): string | undefined => {
  const verdict = SchemaSafety.check(schema)
  return verdict.ok ? undefined : verdict.reason
}

// The root's `$schema` and `$id` are dropped: ajv would refuse a second tool with the
// same `$id`, and the safety check follows local `$ref`s only.
const compilable = (schema: JsonObject): JsonObject => {
  const { $schema: _, $id: __, ...rest } = schema
  return rest
}

const pathOf = (error: ErrorObject): ReadonlyArray<PropertyKey> => {
  const keys = error.instancePath === ""
    ? []
    : error.instancePath.slice(1).split("/").map((k) => k.replace(/~1/g, "/").replace(/~0/g, "~"))
  const missing = (error.params as { readonly missingProperty?: unknown }).missingProperty
  return typeof missing === "string" ? [...keys, missing] : keys
}

const messageOf = (error: ErrorObject): string =>
  typeof (error.params as { readonly missingProperty?: unknown }).missingProperty === "string"
    ? "required"
    : error.message ?? "invalid"

/** A Standard Schema over the server's JSON Schema, compiled once. */
const validatorOf = (ajv: Ajv, schema: JsonObject): StandardSchemaV1<unknown, JsonObject> => {
  const check = ajv.compile(compilable(schema))
  return Object.freeze({
    "~standard": Object.freeze({
      version: 1 as const,
      vendor: "hookline-mcp",
      validate: (value: unknown): StandardSchemaV1.Result<JsonObject> => {
        if (check(value)) return { value: value as JsonObject }
        const error = check.errors?.[0]
        return {
          issues: [error === undefined ? { message: "invalid arguments" } : { message: messageOf(error), path: pathOf(error) }],
        }
      },
    }),
  })
}

/**
 * The SDK client's validator of tools' output schemas, on the same safe ajv: a schema
 * that cannot be checked safely or does not compile gives a validator that refuses
 * every output (its tool is skipped anyway), instead of failing the whole tool list.
 *
 * @since 0.1.0
 * @category constructors
 */
export const outputValidator = (ajv: Ajv): jsonSchemaValidator => ({
  getValidator: <T>(schema: JsonSchemaType): JsonSchemaValidator<T> => {
    let reason = unsafeSchema(schema)
    let check: ValidateFunction | undefined
    try {
      if (reason === undefined) check = ajv.compile(compilable(schema as JsonObject))
    } catch (error) {
      reason = AgentError.messageOf(error)
    }
    return (input) =>
      check?.(input) === true
        ? { valid: true, data: input as T, errorMessage: undefined }
        : { valid: false, data: undefined, errorMessage: reason ?? ajv.errorsText(check?.errors) }
  },
})

/**
 * The text a result gives the model: its structured content if it has some, else the
 * text of its text blocks, else its content blocks as JSON (images and the like).
 *
 * @since 0.1.0
 * @category conversions
 */
export const outputOf = (result: CallResult): unknown => {
  if (result.structuredContent !== undefined && result.isError !== true) return result.structuredContent
  const content = Array.isArray(result.content) ? result.content : []
  if (content.every((block) => block?.type === "text" && typeof block.text === "string")) {
    return content.map((block) => block.text as string).join("\n")
  }
  return content
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Put before each tool's name (`files_`), so tools of two servers cannot clash. */
  readonly prefix: string
  readonly timeout: Tool.Options<unknown>["timeout"]
  readonly maxOutputLength: number | undefined
}

/**
 * What calls the server: `callTool` of an SDK client, and what to wait for before the
 * result is given back (a tool list refresh the call caused).
 *
 * @since 0.1.0
 * @category models
 */
export interface Caller {
  readonly call: (
    name: string,
    args: JsonObject,
    call: { readonly signal: AbortSignal; readonly idempotencyKey: string },
  ) => Promise<CallResult>
}

/**
 * A hookline tool for a listed tool, or why it cannot be one (see `Skipped`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  listed: Listed,
  caller: Caller,
  options: Options,
  ajv: Ajv = newAjv(),
): { readonly tool: Tool } | { readonly skipped: Skipped } => {
  const name = typeof listed?.name === "string" ? listed.name : ""
  const skip = (reason: string) => ({ skipped: Object.freeze({ name: name.slice(0, 200), reason }) })
  try {
    for (const [which, schema] of [["input", listed.inputSchema], ["output", listed.outputSchema]] as const) {
      if (schema === undefined && which === "output") continue
      const schemaText = JSON.stringify(schema) ?? ""
      if (schemaText.length > maxSchemaLength) {
        return skip(`its ${which} schema has ${schemaText.length} characters (limit ${maxSchemaLength})`)
      }
      const unsafe = unsafeSchema(schema)
      if (unsafe !== undefined) return skip(`its ${which} schema cannot be checked safely: ${unsafe}`)
    }
    const description = typeof listed.description === "string" ? listed.description.slice(0, maxDescriptionLength) : ""
    const schema = listed.inputSchema as JsonObject
    const tool = Tool.make<JsonObject>({
      name: `${options.prefix}${name}`,
      description,
      jsonSchema: schema,
      parameters: validatorOf(ajv, schema),
      timeout: options.timeout,
      maxOutputLength: options.maxOutputLength,
      execute: async (args, context) => {
        const result = await caller.call(name, args, { signal: context.signal, idempotencyKey: context.idempotencyKey })
        if (result.isError === true) {
          const text = outputOf({ ...result, structuredContent: undefined })
          throw new McpToolError(typeof text === "string" ? text : Json.excerpt(text, 2_000))
        }
        return outputOf(result)
      },
    })
    return { tool }
  } catch (error) {
    return skip(AgentError.messageOf(error))
  }
}

