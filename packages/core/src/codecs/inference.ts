/**
 * Codecs for what crosses the model boundary: usage, tool definitions, response
 * formats, model options, requests and responses.
 *
 * A rule added to a codec of the state's parts (a field's bound, a value its builder
 * rewrites) goes into `itself.ts` too: the agent's entry keeps a state that check vouches
 * for without decoding it.
 *
 * @since 0.1.0
 */
import * as t from "io-ts"
import * as InferenceRequest_ from "../InferenceRequest.js"
import * as InferenceResponse_ from "../InferenceResponse.js"
import * as Usage_ from "../Usage.js"
import { deepFreeze } from "../internal/immer.js"
import { appendLog, array, finite, optional, string, struct, tagged } from "./combinators.js"
import { remembering } from "./built.js"
import { JsonObject, plainMetadata } from "./json.js"
import { FinishReason } from "./literals.js"
import { plainMessage, ToolCall } from "./messages.js"

// Records without a constructor (response formats, model options) are written by
// users with only the keys they mean: decoding keeps only the keys present, so that
// `{ ...defaults, ...options }` is not overridden by an `undefined`.
const present = <A extends object>(fields: A, keys: ReadonlyArray<keyof A>): A => {
  const out: Partial<A> = {}
  for (const key of keys) if (fields[key] !== undefined) out[key] = fields[key]
  return deepFreeze(out as A)
}

/** @internal `Usage` without remembering what it builds: the codecs built on it. */
export const plainUsage = struct(
  "Usage",
  { inputTokens: finite, outputTokens: finite, cachedInputTokens: optional(finite), reasoningTokens: optional(finite) },
  ({ inputTokens, outputTokens, cachedInputTokens, reasoningTokens }) =>
    Usage_.make(inputTokens, outputTokens, { cachedInputTokens, reasoningTokens }),
)

/**
 * Token usage; zero usage decodes to `Usage.empty`. The details (cached input,
 * reasoning tokens) are optional: states written before them decode unchanged.
 *
 * @since 0.1.0
 * @category codecs
 */
export const Usage = remembering(plainUsage)

/**
 * A tool as the model sees it.
 *
 * @since 0.1.0
 * @category codecs
 */
export const ToolDefinition = struct(
  "ToolDefinition",
  { name: string, description: string, parameters: JsonObject },
  ({ name, description, parameters }): InferenceRequest_.ToolDefinition => Object.freeze({ name, description, parameters }),
)

type TextFormat = Extract<InferenceRequest_.ResponseFormat, { readonly type: "text" }>
type JsonFormat = Extract<InferenceRequest_.ResponseFormat, { readonly type: "json" }>

const textFormat = struct(
  "TextFormat",
  { type: t.literal("text") },
  (): TextFormat => Object.freeze({ type: "text" }),
)

const jsonFormatProps = {
  type: t.literal("json"),
  schema: optional(JsonObject),
  name: optional(string),
  description: optional(string),
}

const jsonFormat = struct(
  "JsonFormat",
  jsonFormatProps,
  (fields): JsonFormat => present(fields, ["type", "schema", "name", "description"]),
)

/** @internal `ResponseFormat` without remembering what it builds: the codecs built on it. */
export const plainResponseFormat = tagged("ResponseFormat", "type", { text: textFormat, json: jsonFormat })

/**
 * A response format, dispatched on `type`; absent keys stay absent.
 *
 * @since 0.1.0
 * @category codecs
 */
export const ResponseFormat = remembering(plainResponseFormat)

const modelOptionsProps = {
  temperature: optional(finite),
  topP: optional(finite),
  topK: optional(finite),
  maxOutputTokens: optional(finite),
  seed: optional(finite),
  stopSequences: optional(array(string)),
  providerOptions: optional(JsonObject),
}

/**
 * Model options; absent keys stay absent.
 *
 * @since 0.1.0
 * @category codecs
 */
export const ModelOptions = struct(
  "ModelOptions",
  modelOptionsProps,
  (fields): InferenceRequest_.ModelOptions =>
    present(fields, Object.keys(modelOptionsProps) as ReadonlyArray<keyof typeof modelOptionsProps>),
)

/**
 * A model request; its messages decode into an `AppendLog`.
 *
 * @since 0.1.0
 * @category codecs
 */
export const InferenceRequest = struct(
  "InferenceRequest",
  {
    systemPrompt: string,
    messages: appendLog(plainMessage),
    tools: array(ToolDefinition),
    responseFormat: optional(plainResponseFormat),
    options: ModelOptions,
  },
  (fields) => InferenceRequest_.make(fields),
)

/**
 * A model response.
 *
 * @since 0.1.0
 * @category codecs
 */
export const InferenceResponse = struct(
  "InferenceResponse",
  {
    text: string,
    toolCalls: array(ToolCall),
    usage: plainUsage,
    finishReason: FinishReason,
    modelId: string,
    metadata: plainMetadata,
    // Optional, so a state written before the flag existed still decodes.
    replayed: optional(t.literal(true)),
    // Optional for the same reason: states stored before reasoning was kept decode unchanged.
    reasoning: optional(string),
  },
  ({ replayed, ...fields }) => {
    const made = InferenceResponse_.make(fields)
    return replayed === true ? InferenceResponse_.asReplayed(made) : made
  },
)
