/**
 * Errors as tagged, frozen, JSON-safe records. The same value travels in the Effect
 * error channel (`Effect.catchTag` works on it), sits in `state.execution.errors`, and
 * round-trips through its codec. Where a plain `throw` or a rejected Promise is needed,
 * it is wrapped in a `HooklineError`.
 *
 * @since 0.1.0
 */
import type { HookTrigger } from "./HookTrigger.js"
import type { WrapPoint } from "./internal/wrapPoint.js"
import { truncate } from "./Truncation.js"

/**
 * A hook threw (or its Effect failed) under `onError: 'fail'`.
 * @since 0.1.0
 * @category models
 */
export interface HookFailed {
  readonly _tag: "HookFailed"
  readonly hook: string
  /** The trigger, or the wrap point of a wrap hook. */
  readonly trigger: HookTrigger | WrapPoint
  readonly message: string
}

/**
 * `HookStack.run` met an effectful hook: run that trigger with `HookStack.intercept`.
 * @since 0.1.0
 * @category models
 */
export interface HookIsEffectful {
  readonly _tag: "HookIsEffectful"
  readonly hook: string
  readonly trigger: HookTrigger
  readonly message: string
}

/**
 * The model call failed.
 * @since 0.1.0
 * @category models
 */
export interface InferenceFailed {
  readonly _tag: "InferenceFailed"
  readonly message: string
  readonly status: number | undefined
  readonly retryable: boolean
  /** How long the provider asked to wait before another call (its `Retry-After`), in ms. */
  readonly retryAfterMs?: number | undefined
}

/**
 * A tool's execute function threw or failed.
 * @since 0.1.0
 * @category models
 */
export interface ToolFailed {
  readonly _tag: "ToolFailed"
  readonly toolCallId: string
  readonly toolName: string
  readonly message: string
}

/**
 * A tool ran past its timeout.
 * @since 0.1.0
 * @category models
 */
export interface ToolTimedOut {
  readonly _tag: "ToolTimedOut"
  readonly toolCallId: string
  readonly toolName: string
  readonly timeoutMs: number
  readonly message: string
}

/**
 * A hook blocked the call.
 * @since 0.1.0
 * @category models
 */
export interface ToolBlocked {
  readonly _tag: "ToolBlocked"
  readonly toolCallId: string
  readonly toolName: string
  readonly reason: string
  readonly message: string
}

/**
 * The model's arguments failed the tool's validator; `path` names where.
 * @since 0.1.0
 * @category models
 */
export interface ToolArgumentsInvalid {
  readonly _tag: "ToolArgumentsInvalid"
  readonly toolCallId: string
  readonly toolName: string
  readonly path: string
  readonly message: string
}

/**
 * The model asked for a tool the agent does not have.
 * @since 0.1.0
 * @category models
 */
export interface UnknownTool {
  readonly _tag: "UnknownTool"
  readonly toolCallId: string
  readonly toolName: string
  readonly message: string
}

/**
 * A configuration (stack options, builder) is invalid at `path`.
 * @since 0.1.0
 * @category models
 */
export interface InvalidConfiguration {
  readonly _tag: "InvalidConfiguration"
  readonly path: string
  readonly message: string
}

/**
 * JSON did not decode; `path` names the first bad value (`context.messages[3].role`).
 * @since 0.1.0
 * @category models
 */
export interface DecodeFailed {
  readonly _tag: "DecodeFailed"
  readonly path: string
  readonly message: string
}

/**
 * The run was aborted (AbortSignal or interruption).
 * @since 0.1.0
 * @category models
 */
export interface Aborted {
  readonly _tag: "Aborted"
  readonly message: string
}

/**
 * @since 0.1.0
 * @category models
 */
export type AgentError =
  | HookFailed
  | HookIsEffectful
  | InferenceFailed
  | ToolFailed
  | ToolTimedOut
  | ToolBlocked
  | ToolArgumentsInvalid
  | UnknownTool
  | InvalidConfiguration
  | DecodeFailed
  | Aborted

/**
 * @since 0.1.0
 * @category models
 */
export type AgentErrorTag = AgentError["_tag"]

// One read of a thrown value's `message`: a getter may throw, or answer differently
// each time; a Proxy (revoked or not) may throw from any trap.
const readMessage = (cause: object): unknown => {
  try {
    return (cause as { readonly message?: unknown }).message
  } catch {
    return undefined
  }
}

const render = (cause: unknown): string => {
  if (typeof cause === "string") return cause
  if ((typeof cause === "object" && cause !== null) || typeof cause === "function") {
    const message = readMessage(cause)
    if (typeof message === "string") return message
  }
  if (typeof cause === "bigint") return `${cause}`
  try {
    const json = JSON.stringify(cause)
    if (typeof json === "string") return json
  } catch {
    // A cycle, a throwing toJSON or getter, a proxy: try its string form.
  }
  try {
    return String(cause)
  } catch {
    // A throwing toString or Symbol.toPrimitive, a revoked proxy.
    return "a thrown value that cannot be read"
  }
}

/**
 * The text of anything thrown, at most `Truncation.defaultMaxLength` characters
 * (`Truncation.truncate`). Total: a `message` getter that throws, a Proxy (even a
 * revoked one), a throwing `toString` or `Symbol.toPrimitive` give a text, never a throw.
 * @since 0.1.0
 * @category getters
 */
export const messageOf = (cause: unknown): string => truncate(textOf(cause))

// The whole text (the constructors cut their whole message once, so the marker counts
// all of it).
const textOf = (cause: unknown): string => {
  try {
    return render(cause)
  } catch {
    return "a thrown value that cannot be read"
  }
}

/**
 * `error` with its message cut to `Truncation.defaultMaxLength` characters (the same
 * error when it is short enough), so that no error carries megabytes into the state.
 * @since 0.1.0
 * @category combinators
 */
export const bounded = <E extends AgentError>(error: E): E => {
  const message = truncate(error.message)
  return message === error.message ? error : (Object.freeze({ ...error, message }) as unknown as E)
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const hookFailed = (hook: string, trigger: HookTrigger | WrapPoint, cause: unknown): HookFailed =>
  Object.freeze({ _tag: "HookFailed", hook, trigger, message: truncate(`hook "${hook}" failed on ${trigger}: ${textOf(cause)}`) })

/**
 * @since 0.1.0
 * @category constructors
 */
export const hookIsEffectful = (hook: string, trigger: HookTrigger): HookIsEffectful =>
  Object.freeze({
    _tag: "HookIsEffectful",
    hook,
    trigger,
    message: `hook "${hook}" on ${trigger} is effectful: use HookStack.intercept, not HookStack.run`,
  })

// Error constructors never throw (they run where something already failed): a number
// that is not finite is normalised, so the error reads back from JSON as it was made.
const finiteOr = <A>(n: unknown, otherwise: A): number | A => (typeof n === "number" && Number.isFinite(n) ? (n === 0 ? 0 : n) : otherwise)

/**
 * A failed model call. A `status` that is not a finite number is left out; so is a
 * `retryAfterMs` that is not a finite number >= 0 (a hint nobody can wait on: the
 * caller's own backoff applies).
 *
 * @since 0.1.0
 * @category constructors
 */
export const inferenceFailed = (
  message: string,
  options: { readonly status?: number | undefined; readonly retryable?: boolean; readonly retryAfterMs?: number | undefined } = {},
): InferenceFailed => {
  const retryAfterMs = finiteOr(options.retryAfterMs, undefined)
  return Object.freeze({
    _tag: "InferenceFailed",
    message: truncate(message),
    status: finiteOr(options.status, undefined),
    retryable: options.retryable ?? false,
    ...(retryAfterMs === undefined || retryAfterMs < 0 ? {} : { retryAfterMs }),
  })
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const toolFailed = (toolCallId: string, toolName: string, cause: unknown): ToolFailed =>
  Object.freeze({ _tag: "ToolFailed", toolCallId, toolName, message: truncate(`tool "${toolName}" failed: ${textOf(cause)}`) })

/**
 * A tool that ran past its timeout. A `timeoutMs` that is not a finite number is
 * recorded as 0 (the message keeps what was given).
 *
 * @since 0.1.0
 * @category constructors
 */
export const toolTimedOut = (toolCallId: string, toolName: string, timeoutMs: number): ToolTimedOut =>
  Object.freeze({
    _tag: "ToolTimedOut",
    toolCallId,
    toolName,
    timeoutMs: finiteOr(timeoutMs, 0),
    message: `tool "${toolName}" timed out after ${timeoutMs} ms`,
  })

/**
 * @since 0.1.0
 * @category constructors
 */
export const toolBlocked = (toolCallId: string, toolName: string, reason: string): ToolBlocked => {
  const cut = truncate(reason)
  return Object.freeze({ _tag: "ToolBlocked", toolCallId, toolName, reason: cut, message: `tool "${toolName}" was blocked: ${cut}` })
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const toolArgumentsInvalid = (toolCallId: string, toolName: string, path: string, detail: string): ToolArgumentsInvalid =>
  Object.freeze({
    _tag: "ToolArgumentsInvalid",
    toolCallId,
    toolName,
    path,
    message: `invalid arguments for tool "${toolName}" at ${path === "" ? "the root" : path}: ${detail}`,
  })

/**
 * @since 0.1.0
 * @category constructors
 */
export const unknownTool = (toolCallId: string, toolName: string): UnknownTool =>
  Object.freeze({ _tag: "UnknownTool", toolCallId, toolName, message: `unknown tool "${toolName}"` })

/**
 * @since 0.1.0
 * @category constructors
 */
export const invalidConfiguration = (path: string, detail: string): InvalidConfiguration =>
  Object.freeze({ _tag: "InvalidConfiguration", path, message: `invalid configuration at ${path === "" ? "the root" : path}: ${detail}` })

/**
 * @since 0.1.0
 * @category constructors
 */
export const decodeFailed = (path: string, detail: string): DecodeFailed =>
  Object.freeze({ _tag: "DecodeFailed", path, message: `cannot decode ${path === "" ? "the root" : path}: ${detail}` })

/**
 * @since 0.1.0
 * @category constructors
 */
export const aborted = (message = "the run was aborted"): Aborted => Object.freeze({ _tag: "Aborted", message })

/**
 * An `Error` that carries an `AgentError`, for plain `throw` and rejected Promises.
 *
 * @since 0.1.0
 * @category models
 */
export class HooklineError extends Error {
  readonly _tag: AgentErrorTag
  constructor(readonly error: AgentError) {
    super(error.message)
    this._tag = error._tag
    this.name = `HooklineError(${error._tag})`
  }
}

/**
 * @since 0.1.0
 * @category guards
 */
export const isAgentError = (u: unknown): u is AgentError =>
  typeof u === "object" && u !== null && "_tag" in u && typeof u._tag === "string" && "message" in u && typeof u.message === "string"
