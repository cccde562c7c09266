/**
 * One tool of an MCP server as a hookline `Tool`: the server's JSON Schema goes to the
 * model as it is, the model's arguments are checked against it before the server sees
 * them (untrusted input), and the server's answer becomes the tool's output, bounded
 * like any tool's.
 *
 * @since 0.1.0
 */
import type { StandardSchemaV1 } from "@standard-schema/spec"
import { Tool } from "@hookline/agent"
import { AgentError, Json, type JsonObject } from "@hookline/core"
import { Ajv, type ErrorObject } from "ajv"

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
}

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
// against its meta-schema (servers write draft-07 and 2020-12 alike).
export const newAjv = (): Ajv => new Ajv({ strict: false, allErrors: false, validateFormats: false, validateSchema: false })

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
  const { $schema: _, ...rest } = schema
  const check = ajv.compile(rest)
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
  readonly call: (name: string, args: JsonObject, signal: AbortSignal) => Promise<CallResult>
}

/**
 * A hookline tool for a listed tool, or why it cannot be one (a name providers refuse,
 * a schema that is not an object schema, too large, or does not compile).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  listed: Listed,
  caller: Caller,
  options: Options,
  ajv: Ajv = newAjv(),
): { readonly tool: Tool } | { readonly skipped: string } => {
  const name = typeof listed?.name === "string" ? listed.name : ""
  try {
    const schemaText = JSON.stringify(listed.inputSchema) ?? ""
    if (schemaText.length > maxSchemaLength) {
      return { skipped: `${Json.excerpt(name, 80)}: its input schema has ${schemaText.length} characters (limit ${maxSchemaLength})` }
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
        const result = await caller.call(name, args, context.signal)
        if (result.isError === true) {
          const text = outputOf({ ...result, structuredContent: undefined })
          throw new McpToolError(typeof text === "string" ? text : Json.excerpt(text, 2_000))
        }
        return outputOf(result)
      },
    })
    return { tool }
  } catch (error) {
    return { skipped: `${Json.excerpt(name, 80)}: ${AgentError.messageOf(error)}` }
  }
}

