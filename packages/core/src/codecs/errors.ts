/**
 * Codecs for the tagged error records. Decoding rebuilds the exact frozen record the
 * constructor made, `message` included (the message is kept as encoded, not recomputed).
 *
 * A rule added to a codec of the state's parts (a field's bound, a value its builder
 * rewrites) goes into `itself.ts` too: the agent's entry keeps a state that check vouches
 * for without decoding it.
 *
 * @since 0.1.0
 */
import * as t from "io-ts"
import * as AgentError_ from "../AgentError.js"
import { finite, optional, string, struct, tagged } from "./combinators.js"
import { remembering } from "./built.js"
import { HookPoint, HookTrigger } from "./literals.js"

const hookFailed = struct(
  "HookFailed",
  { _tag: t.literal("HookFailed"), hook: string, trigger: HookPoint, message: string },
  ({ hook, trigger, message }): AgentError_.HookFailed => Object.freeze({ _tag: "HookFailed", hook, trigger, message }),
)

const hookIsEffectful = struct(
  "HookIsEffectful",
  { _tag: t.literal("HookIsEffectful"), hook: string, trigger: HookTrigger, message: string },
  ({ hook, trigger, message }): AgentError_.HookIsEffectful => Object.freeze({ _tag: "HookIsEffectful", hook, trigger, message }),
)

const inferenceFailed = struct(
  "InferenceFailed",
  { _tag: t.literal("InferenceFailed"), message: string, status: optional(finite), retryable: t.boolean, retryAfterMs: optional(finite) },
  ({ message, status, retryable, retryAfterMs }) => AgentError_.inferenceFailed(message, { status, retryable, retryAfterMs }),
)

const toolFailed = struct(
  "ToolFailed",
  { _tag: t.literal("ToolFailed"), toolCallId: string, toolName: string, message: string },
  ({ toolCallId, toolName, message }): AgentError_.ToolFailed => Object.freeze({ _tag: "ToolFailed", toolCallId, toolName, message }),
)

const toolTimedOut = struct(
  "ToolTimedOut",
  { _tag: t.literal("ToolTimedOut"), toolCallId: string, toolName: string, timeoutMs: finite, message: string },
  ({ toolCallId, toolName, timeoutMs, message }): AgentError_.ToolTimedOut =>
    Object.freeze({ _tag: "ToolTimedOut", toolCallId, toolName, timeoutMs, message }),
)

const toolBlocked = struct(
  "ToolBlocked",
  { _tag: t.literal("ToolBlocked"), toolCallId: string, toolName: string, reason: string, message: string },
  ({ toolCallId, toolName, reason, message }): AgentError_.ToolBlocked =>
    Object.freeze({ _tag: "ToolBlocked", toolCallId, toolName, reason, message }),
)

const toolArgumentsInvalid = struct(
  "ToolArgumentsInvalid",
  { _tag: t.literal("ToolArgumentsInvalid"), toolCallId: string, toolName: string, path: string, message: string },
  ({ toolCallId, toolName, path, message }): AgentError_.ToolArgumentsInvalid =>
    Object.freeze({ _tag: "ToolArgumentsInvalid", toolCallId, toolName, path, message }),
)

const unknownTool = struct(
  "UnknownTool",
  { _tag: t.literal("UnknownTool"), toolCallId: string, toolName: string, message: string },
  ({ toolCallId, toolName, message }): AgentError_.UnknownTool => Object.freeze({ _tag: "UnknownTool", toolCallId, toolName, message }),
)

const invalidConfiguration = struct(
  "InvalidConfiguration",
  { _tag: t.literal("InvalidConfiguration"), path: string, message: string },
  ({ path, message }): AgentError_.InvalidConfiguration => Object.freeze({ _tag: "InvalidConfiguration", path, message }),
)

const decodeFailed = struct(
  "DecodeFailed",
  { _tag: t.literal("DecodeFailed"), path: string, message: string },
  ({ path, message }): AgentError_.DecodeFailed => Object.freeze({ _tag: "DecodeFailed", path, message }),
)

const aborted = struct(
  "Aborted",
  { _tag: t.literal("Aborted"), message: string },
  ({ message }) => AgentError_.aborted(message),
)

/**
 * A failed model call.
 *
 * @since 0.1.0
 * @category codecs
 */
export const InferenceFailed = inferenceFailed

/** @internal `AgentError` without remembering what it builds: the codecs built on it. */
export const plainAgentError = tagged("AgentError", "_tag", {
  HookFailed: hookFailed,
  HookIsEffectful: hookIsEffectful,
  InferenceFailed: inferenceFailed,
  ToolFailed: toolFailed,
  ToolTimedOut: toolTimedOut,
  ToolBlocked: toolBlocked,
  ToolArgumentsInvalid: toolArgumentsInvalid,
  UnknownTool: unknownTool,
  InvalidConfiguration: invalidConfiguration,
  DecodeFailed: decodeFailed,
  Aborted: aborted,
})

/**
 * Any `AgentError`, dispatched on `_tag`.
 *
 * @since 0.1.0
 * @category codecs
 */
export const AgentError = remembering(plainAgentError)

/**
 * The errors a tool call can end with (`ToolExecution.ToolError`).
 *
 * @since 0.1.0
 * @category codecs
 */
export const ToolError = tagged("ToolError", "_tag", {
  ToolFailed: toolFailed,
  ToolTimedOut: toolTimedOut,
  UnknownTool: unknownTool,
  ToolArgumentsInvalid: toolArgumentsInvalid,
})
