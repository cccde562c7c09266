/**
 * The outcome of one tool call: success with an output, failure with an error, or
 * blocked by a hook with a reason.
 *
 * @since 0.1.0
 */
import type { ToolArgumentsInvalid, ToolFailed, ToolTimedOut, UnknownTool } from "./AgentError.js"
import { toText, type JsonValue } from "./Json.js"
import * as Message from "./Message.js"
import type { ToolCall } from "./ToolCall.js"
import { deepFreeze } from "./internal/immer.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Success {
  readonly status: "success"
  readonly toolCall: ToolCall
  readonly output: JsonValue
  readonly startedAt: number
  readonly completedAt: number
}

/**
 * The errors a tool call can end with; each goes back to the model as an error result.
 *
 * @since 0.1.0
 * @category models
 */
export type ToolError = ToolFailed | ToolTimedOut | UnknownTool | ToolArgumentsInvalid

/**
 * @since 0.1.0
 * @category models
 */
export interface Failure {
  readonly status: "failure"
  readonly toolCall: ToolCall
  readonly error: ToolError
  readonly startedAt: number
  readonly completedAt: number
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Blocked {
  readonly status: "blocked"
  readonly toolCall: ToolCall
  readonly reason: string
  readonly startedAt: number
  readonly completedAt: number
}

/**
 * @since 0.1.0
 * @category models
 */
export type ToolExecution = Success | Failure | Blocked

/**
 * @since 0.1.0
 * @category constructors
 */
export const success = (toolCall: ToolCall, output: JsonValue, startedAt: number, completedAt: number = startedAt): Success =>
  Object.freeze({ status: "success", toolCall: deepFreeze(toolCall), output: deepFreeze(output), startedAt, completedAt })

/**
 * @since 0.1.0
 * @category constructors
 */
export const failure = (toolCall: ToolCall, error: ToolError, startedAt: number, completedAt: number = startedAt): Failure =>
  Object.freeze({ status: "failure", toolCall: deepFreeze(toolCall), error: deepFreeze(error), startedAt, completedAt })

/**
 * @since 0.1.0
 * @category constructors
 */
export const blocked = (toolCall: ToolCall, reason: string, at: number): Blocked =>
  Object.freeze({ status: "blocked", toolCall: deepFreeze(toolCall), reason, startedAt: at, completedAt: at })

/**
 * @since 0.1.0
 * @category guards
 */
export const isSuccess = (execution: ToolExecution): execution is Success => execution.status === "success"

/**
 * @since 0.1.0
 * @category guards
 */
export const isBlocked = (execution: ToolExecution): execution is Blocked => execution.status === "blocked"

/**
 * The text the model reads for this execution.
 *
 * @since 0.1.0
 * @category getters
 */
export const content = (execution: ToolExecution): string => {
  switch (execution.status) {
    case "success":
      return toText(execution.output)
    case "failure":
      return `Error: ${execution.error.message}`
    case "blocked":
      return `Blocked: ${execution.reason}`
  }
}

/**
 * The tool message the loop commits for this execution.
 *
 * @since 0.1.0
 * @category getters
 */
export const toMessage = (execution: ToolExecution): Message.ToolMessage =>
  Message.tool({
    toolCallId: execution.toolCall.id,
    toolName: execution.toolCall.name,
    content: content(execution),
    isError: execution.status !== "success",
  })
