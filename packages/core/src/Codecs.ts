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
import { firstError } from "./internal/decode.js"

export { appendLog, type Codec, type EncodedFields } from "./codecs/combinators.js"
export { AgentError, ToolError } from "./codecs/errors.js"
export {
  InferenceRequest,
  InferenceResponse,
  ModelOptions,
  ResponseFormat,
  ToolDefinition,
  Usage,
} from "./codecs/inference.js"
export { JsonObject, JsonValue, Metadata } from "./codecs/json.js"
export { ExecutionStatus, FinishReason, HookTrigger, StopReason } from "./codecs/literals.js"
export { Message, ToolCall } from "./codecs/messages.js"
export { AgentContext, AgentState, Execution, HookContext, Step, StopSignal, ToolExecution } from "./codecs/state.js"

/**
 * The encoded (JSON-safe) form of a codec's values.
 *
 * @since 0.1.0
 * @category models
 */
export type Encoded<C extends t.Any> = t.OutputOf<C>

/**
 * Decodes untrusted input; a failure names the path of the first bad value.
 *
 * @since 0.1.0
 * @category codecs
 */
export const decode = <A>(codec: t.Decoder<unknown, A>, input: unknown): Result.Result<A, AgentError_.DecodeFailed> => {
  try {
    const result = codec.decode(input)
    if (!isLeft(result)) return Result.succeed(result.right)
    const { path, detail } = firstError(result.left)
    return Result.fail(AgentError_.decodeFailed(path, detail))
  } catch (cause) {
    // A hostile input (a throwing getter or proxy) is a bad input, not a crash.
    return Result.fail(AgentError_.decodeFailed("", AgentError_.messageOf(cause)))
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
 * Parses and decodes JSON text; text that is not JSON fails at the root (path `""`)
 * with the parser's message.
 *
 * @since 0.1.0
 * @category codecs
 */
export const fromJson = <A>(codec: t.Decoder<unknown, A>, text: string): Result.Result<A, AgentError_.DecodeFailed> => {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (cause) {
    return Result.fail(AgentError_.decodeFailed("", AgentError_.messageOf(cause)))
  }
  return decode(codec, parsed)
}
