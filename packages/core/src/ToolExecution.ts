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
import * as Usage from "./Usage.js"
import { finite } from "./internal/finite.js"
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
  /** What the call spent on models (a subagent, a tool that calls a model); absent for none. */
  readonly usage?: Usage.Usage | undefined
  /** Set when a journal gave this result back instead of running the call (`isReplayed`). */
  readonly replayed?: true | undefined
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
  /** What the call spent on models before it failed; absent for none. */
  readonly usage?: Usage.Usage | undefined
  /** Set when a journal gave this result back instead of running the call (`isReplayed`). */
  readonly replayed?: true | undefined
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
  /** Set when a journal gave this result back instead of running the call (`isReplayed`). */
  readonly replayed?: true | undefined
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
  Object.freeze({
    status: "success",
    toolCall: deepFreeze(toolCall),
    output: deepFreeze(output),
    startedAt: finite("startedAt", startedAt),
    completedAt: finite("completedAt", completedAt),
  })

/**
 * @since 0.1.0
 * @category constructors
 */
export const failure = (toolCall: ToolCall, error: ToolError, startedAt: number, completedAt: number = startedAt): Failure =>
  Object.freeze({
    status: "failure",
    toolCall: deepFreeze(toolCall),
    error: deepFreeze(error),
    startedAt: finite("startedAt", startedAt),
    completedAt: finite("completedAt", completedAt),
  })

/**
 * @since 0.1.0
 * @category constructors
 */
export const blocked = (toolCall: ToolCall, reason: string, at: number): Blocked => {
  const time = finite("at", at)
  return Object.freeze({ status: "blocked", toolCall: deepFreeze(toolCall), reason, startedAt: time, completedAt: time })
}

/**
 * The execution with what the call spent on models added to its `usage`. A blocked
 * call ran nothing, and nothing spent leaves the execution as it is.
 *
 * The loop adds an execution's usage to the run's when it commits the call, so a hook
 * that gives an execution at BeforeToolUse (a journal replaying a call after a crash)
 * brings the call's spending back with it; a cache that answers instead of a call that
 * spent nothing should give an execution without it.
 *
 * @since 0.1.0
 * @category combinators
 */
export const withUsage = (execution: ToolExecution, usage: Usage.Usage | undefined): ToolExecution => {
  if (execution.status === "blocked" || usage === undefined || Usage.total(usage) === 0) return execution
  const had = execution.usage
  return Object.freeze({ ...execution, usage: had === undefined ? usage : Usage.add(had, usage) })
}

/**
 * The execution marked as given back by a journal (a resumed run answering a call from
 * what it recorded before a crash) rather than run: hooks and observers tell the two
 * apart with `isReplayed`. `UseCheckpoints` of `@hookline/store` marks what it replays.
 *
 * @since 0.1.0
 * @category combinators
 */
export const asReplayed = <E extends ToolExecution>(execution: E): E =>
  execution.replayed === true ? execution : Object.freeze({ ...execution, replayed: true as const }) as unknown as E

/**
 * Whether a journal gave this result back instead of running the call in this run (an
 * audit log counts it once, where it ran).
 *
 * @since 0.1.0
 * @category guards
 */
export const isReplayed = (execution: ToolExecution): boolean => execution.replayed === true

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
 * What the call spent on models, if anything (a blocked call spent nothing).
 *
 * @since 0.1.0
 * @category getters
 */
export const usageOf = (execution: ToolExecution): Usage.Usage | undefined =>
  execution.status === "blocked" ? undefined : execution.usage

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
