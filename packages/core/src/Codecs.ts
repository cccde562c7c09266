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
import type * as AgentState_ from "./AgentState.js"
import * as Built from "./codecs/built.js"
import * as Itself from "./codecs/itself.js"
import { AgentState as AgentStateCodec } from "./codecs/state.js"
import { excerpt } from "./Json.js"
import { pathOf } from "./codecs/decode.js"

import { defaultLimits, rootContext, type Limits } from "./codecs/combinators.js"
export { appendLog, type Codec, defaultLimits, type EncodedFields, type Limits } from "./codecs/combinators.js"
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
export { AgentContext, AgentState, Execution, HookContext, InferenceAttempt, PendingCall, PendingDecision, Step, StopSignal, ToolAttempt, ToolExecution } from "./codecs/state.js"

/**
 * @internal whether core's codecs built `u` (decoded under the default bounds: a state
 * `AgentState` decoded, a message `Message` decoded, ...), or `rememberBuilt` took it: a
 * state so known passes the agent's entry as it is.
 */
export const isBuilt = (u: unknown): boolean => Built.isBuilt(u)

/**
 * @internal `state`, remembered as checked (`isBuilt`) when it is made only of parts
 * core's codecs built (`Message`, `Step`, `StopSignal`, `AgentError`, `PendingCall`,
 * `Metadata`, `Usage`, `ResponseFormat` remember what they decode), in core's own frozen
 * records, within `AgentState`'s bounds; anything else is given back as it is, not
 * remembered. A store folding its checkpoints (each part decoded with these codecs)
 * hands its state through this, so the agent's entry does not decode it again. It
 * cannot mark a forged state: it checks, and only a decode adds parts.
 */
export const rememberBuilt = <A>(state: A): A => Built.rememberBuilt(state)

/**
 * @internal whether `decode(AgentState, u)` (default bounds) accepts `u` and answers a
 * value deep-equal to it, `u` being frozen plain data all through (no Proxy, no accessor,
 * no hidden key, no key the decode drops): a state the agent's entry keeps as it is
 * without building the decode's copy. False is always safe: the caller decodes.
 */
export const decodesToItself = (u: unknown): boolean => Itself.decodesToItself(u)

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
 * Size limits of a decode; each defaults to `defaultLimits`.
 *
 * @since 0.1.0
 * @category models
 */
export interface DecodeOptions {
  /** The most items one array or JSON object may hold. Default 100,000. */
  readonly maxItems?: number | undefined
  /** The longest JSON text `fromJson` parses, in UTF-8 bytes. Default 64 MiB. */
  readonly maxBytes?: number | undefined
  /**
   * The longest string (UTF-16 code units) a value may hold: a message's text, an id, a
   * name, a JSON value's strings and keys. Default 32 Mi (`Json.maxStringLength`).
   */
  readonly maxStringLength?: number | undefined
}

const limitsFrom = (options: DecodeOptions | undefined): Limits =>
  options === undefined
    ? defaultLimits
    : {
      maxItems: options.maxItems ?? defaultLimits.maxItems,
      maxBytes: options.maxBytes ?? defaultLimits.maxBytes,
      maxStringLength: options.maxStringLength ?? defaultLimits.maxStringLength,
    }

/**
 * Decodes untrusted input; a failure names the path of the first bad value. Never
 * throws: whatever the input (a proxy, a throwing getter, a cycle, JSON nested
 * deeper than 512 levels), the answer is a value or a `DecodeFailed`. Decoding stops at
 * the first bad value, and an array or object with more than `maxItems` items fails
 * before any is read, a string longer than `maxStringLength` as soon as it is met
 * (`DecodeFailed` naming the path and the limit).
 *
 * @since 0.1.0
 * @category codecs
 */
export const decode = <A>(
  codec: t.Decoder<unknown, A>,
  input: unknown,
  options?: DecodeOptions,
): Result.Result<A, AgentError_.DecodeFailed> => {
  try {
    const result = codec.validate(input, rootContext(codec, input, limitsFrom(options)))
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
export const decodeUnsafe = <A>(codec: t.Decoder<unknown, A>, input: unknown, options?: DecodeOptions): A => {
  const result = decode(codec, input, options)
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
export const fromJson = <A>(
  codec: t.Decoder<unknown, A>,
  text: string,
  options?: DecodeOptions,
): Result.Result<A, AgentError_.DecodeFailed> => {
  if (typeof text !== "string") {
    return Result.fail(AgentError_.decodeFailed("", `expected JSON text (a string), got ${excerpt(text, 60)}`))
  }
  const { maxBytes } = limitsFrom(options)
  // UTF-8 takes 1 to 3 bytes per UTF-16 unit: count only when the length cannot decide.
  const bytes = text.length > maxBytes || text.length * 3 <= maxBytes ? text.length : utf8Length(text)
  if (bytes > maxBytes) {
    return Result.fail(AgentError_.decodeFailed("", `expected at most ${maxBytes} bytes of JSON text (the maxBytes limit), got ${text.length > maxBytes ? "more" : bytes}`))
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (cause) {
    return Result.fail(AgentError_.decodeFailed("", safeMessageOf(cause)))
  }
  return decode(codec, parsed, options)
}

const utf8Length = (text: string): number => {
  let bytes = 0
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i)
    if (unit < 0x80) bytes += 1
    else if (unit < 0x800) bytes += 2
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4
        i++
      } else bytes += 3
    } else bytes += 3
  }
  return bytes
}

/**
 * Parses and decodes JSON text, or throws a `HooklineError` carrying `DecodeFailed`
 * (the Promise-side form of `fromJson`: no Effect `Result` to unwrap).
 *
 * @since 0.1.0
 * @category codecs
 */
export const fromJsonUnsafe = <A>(codec: t.Decoder<unknown, A>, text: string): A => {
  const result = fromJson(codec, text)
  if (Result.isFailure(result)) throw new AgentError_.HooklineError(result.failure)
  return result.success
}

/**
 * A stored state (JSON text from `stringifyState`) back as an `AgentState`; throws a
 * `HooklineError` whose `.error` is `DecodeFailed{ path }` naming the first bad value.
 *
 * @since 0.1.0
 * @category codecs
 */
export const parseStateUnsafe = (text: string): AgentState_.AgentState => fromJsonUnsafe(AgentStateCodec, text)

/**
 * A state as JSON text, to store between runs (`parseStateUnsafe` reads it back).
 *
 * @since 0.1.0
 * @category codecs
 */
export const stringifyState = (state: AgentState_.AgentState): string => toJson(AgentStateCodec, state)
