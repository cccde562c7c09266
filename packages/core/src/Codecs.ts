/**
 * io-ts codecs for every core data type, for whatever crosses a boundary as JSON:
 * checkpoints, traces, untrusted tool arguments. Encoding gives JSON-safe data (an
 * `AppendLog` becomes an array, absent optional fields are left out); decoding
 * validates, names the path of the first bad value (`context.messages[3].role`) and
 * rebuilds deeply frozen values with the modules' own constructors.
 *
 * @since 0.1.0
 */
import type * as t from "io-ts"
import { Result } from "effect"
import { isLeft } from "fp-ts/lib/Either.js"
import * as AgentError_ from "./AgentError.js"
import { excerpt } from "./Json.js"
import { pathOf } from "./internal/decode.js"

export { appendLog, type Codec, type EncodedFields } from "./codecs/combinators.js"
export { AgentError, InferenceFailed, ToolError } from "./codecs/errors.js"
export {
  InferenceRequest,
  InferenceResponse,
  ModelOptions,
  ResponseFormat,
  ToolDefinition,
  Usage,
} from "./codecs/inference.js"
export { JsonObject, JsonValue, Metadata } from "./codecs/json.js"
export { ExecutionStatus, FinishReason, HookPoint, HookTrigger, StopReason } from "./codecs/literals.js"
export { Message, ToolCall } from "./codecs/messages.js"
export { AgentContext, AgentState, Execution, HookContext, InferenceAttempt, Step, StopSignal, ToolAttempt, ToolExecution } from "./codecs/state.js"

/**
 * The encoded (JSON-safe) form of a codec's values.
 *
 * @since 0.1.0
 * @category models
 */
export type Encoded<C extends t.Any> = t.OutputOf<C>

// The deepest error is the most specific; ties go to the first reported. The value
// shown is an excerpt: a 10 MB string or a 100,000-level array is not printed whole.
const failureOf = (errors: t.Errors): AgentError_.DecodeFailed => {
  let best = errors[0]
  for (const error of errors) if (best === undefined || error.context.length > best.context.length) best = error
  if (best === undefined) return AgentError_.decodeFailed("", "invalid value")
  const { path, expected } = pathOf(best)
  return AgentError_.decodeFailed(path, best.message ?? `expected ${expected}, got ${excerpt(best.value, 60)}`)
}

/**
 * Decodes untrusted input; a failure names the path of the first bad value. Never
 * throws: whatever the input (a proxy, a throwing getter, a cycle, JSON nested
 * deeper than 512 levels), the answer is a value or a `DecodeFailed`.
 *
 * @since 0.1.0
 * @category codecs
 */
export const decode = <A>(codec: t.Decoder<unknown, A>, input: unknown): Result.Result<A, AgentError_.DecodeFailed> => {
  try {
    const result = codec.decode(input)
    return isLeft(result) ? Result.fail(failureOf(result.left)) : Result.succeed(result.right)
  } catch (cause) {
    // A hostile input (a throwing getter or proxy) is a bad input, not a crash.
    return Result.fail(AgentError_.decodeFailed("", safeMessageOf(cause)))
  }
}

const safeMessageOf = (cause: unknown): string => {
  try {
    const message = AgentError_.messageOf(cause)
    return message.length > 500 ? `${message.slice(0, 500)}…` : message
  } catch {
    return "the input threw while it was read"
  }
}

/**
 * Decodes untrusted input or throws a `HooklineError` carrying `DecodeFailed`.
 *
 * @since 0.1.0
 * @category codecs
 */
export const decodeUnsafe = <A>(codec: t.Decoder<unknown, A>, input: unknown): A => {
  const result = decode(codec, input)
  if (Result.isFailure(result)) throw new AgentError_.HooklineError(result.failure)
  return result.success
}

/**
 * The JSON-safe encoded form of a value.
 *
 * @since 0.1.0
 * @category codecs
 */
export const encode = <A, O>(codec: t.Encoder<A, O>, value: A): O => codec.encode(value)

/**
 * The value's encoded form as JSON text.
 *
 * @since 0.1.0
 * @category codecs
 */
export const toJson = <A, O>(codec: t.Encoder<A, O>, value: A): string => JSON.stringify(codec.encode(value))

/**
 * Parses and decodes JSON text; text that is not JSON (or not a string) fails at the
 * root (path `""`) with the parser's message.
 *
 * @since 0.1.0
 * @category codecs
 */
export const fromJson = <A>(codec: t.Decoder<unknown, A>, text: string): Result.Result<A, AgentError_.DecodeFailed> => {
  if (typeof text !== "string") {
    return Result.fail(AgentError_.decodeFailed("", `expected JSON text (a string), got ${excerpt(text, 60)}`))
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (cause) {
    return Result.fail(AgentError_.decodeFailed("", safeMessageOf(cause)))
  }
  return decode(codec, parsed)
}
