/**
 * One iteration of the loop: the model's response, the tool executions, usage and
 * finish reason.
 *
 * @since 0.1.0
 */
import type { InferenceFailed } from "./AgentError.js"
import type { FinishReason, InferenceResponse } from "./InferenceResponse.js"
import type { ToolError, ToolExecution } from "./ToolExecution.js"
import * as Usage from "./Usage.js"
import { finite, finiteOptional } from "./internal/finite.js"
import type { JsonValue } from "./internal/jsonValue.js"
import { deepFreeze } from "./internal/immer.js"

/**
 * One call of the model within a step, as wrap hooks made it (a retry, a fallback).
 * Recorded when the step has wrap hooks around its model call.
 *
 * @since 0.1.0
 * @category models
 */
export interface InferenceAttempt {
  /** The model that answered, else the driver's own id, if it has one. */
  readonly modelId: string | undefined
  /** Epoch milliseconds. */
  readonly startedAt: number
  readonly durationMs: number
  /** What the attempt cost, when it answered (a failed call reports none). */
  readonly usage: Usage.Usage
  /** Why it failed; absent for an attempt that answered. */
  readonly error: InferenceFailed | undefined
}

/**
 * One execution of a tool within a step, as wrap hooks made it.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolAttempt {
  readonly toolCallId: string
  readonly toolName: string
  /** Epoch milliseconds. */
  readonly startedAt: number
  readonly durationMs: number
  /** Why it failed; absent for an attempt that succeeded (or was blocked). */
  readonly error: ToolError | undefined
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const inferenceAttempt = (input: {
  readonly modelId?: string | undefined
  readonly startedAt: number
  readonly durationMs: number
  readonly usage?: Usage.Usage | undefined
  readonly error?: InferenceFailed | undefined
}): InferenceAttempt =>
  Object.freeze({
    modelId: input.modelId,
    startedAt: finite("startedAt", input.startedAt),
    durationMs: finite("durationMs", input.durationMs),
    usage: input.usage ?? Usage.empty,
    error: input.error,
  })

/**
 * @since 0.1.0
 * @category constructors
 */
export const toolAttempt = (input: {
  readonly toolCallId: string
  readonly toolName: string
  readonly startedAt: number
  readonly durationMs: number
  readonly error?: ToolError | undefined
}): ToolAttempt =>
  Object.freeze({
    toolCallId: input.toolCallId,
    toolName: input.toolName,
    startedAt: finite("startedAt", input.startedAt),
    durationMs: finite("durationMs", input.durationMs),
    error: input.error,
  })

/**
 * A person's decision on a call, as a resume keeps it: approve, approve with edited
 * arguments, or reject with a message the model reads (`AgentState.PendingDecision`).
 *
 * @since 0.1.0
 * @category models
 */
export type Decision =
  | { readonly _tag: "Approve" } & DecidedBy
  | { readonly _tag: "Edit"; readonly arguments: JsonValue } & DecidedBy
  | { readonly _tag: "Reject"; readonly message: string } & DecidedBy

/**
 * Who made a decision and why, when the caller said (`Decision.approve(id, { by,
 * reason })`); `by` is `"hookline"` for a decision the library made itself (an approval
 * that expired). Both are kept with the decision and are not part of it: a repeat
 * compares the kind and the arguments or message only.
 *
 * @since 0.1.0
 * @category models
 */
export interface DecidedBy {
  readonly by?: string | undefined
  readonly reason?: string | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Step {
  readonly index: number
  readonly response: InferenceResponse | undefined
  readonly toolExecutions: ReadonlyArray<ToolExecution>
  readonly usage: Usage.Usage
  readonly finishReason: FinishReason | undefined
  readonly startedAt: number
  readonly completedAt: number | undefined
  /** Every model call of the step, when wrap hooks held it; else absent. */
  readonly attempts?: ReadonlyArray<InferenceAttempt> | undefined
  /** Every tool execution of the step, when wrap hooks held them; else absent. */
  readonly toolAttempts?: ReadonlyArray<ToolAttempt> | undefined
  /**
   * The decisions a resume carried out in this step, by call id (a suspended step's
   * calls, decided by a person): kept after the calls ran so that a repeat of the same
   * decision is told from a different one. Absent on other steps (and on runs stored
   * before it was kept).
   */
  readonly decisions?: Readonly<Record<string, Decision>> | undefined
}

const none: ReadonlyArray<ToolExecution> = Object.freeze([])

/**
 * @internal `make` for the loop's own record of a step no wrap hook held: the answer is
 * frozen all through (checked where the driver gave it, or a hook's checked return), the
 * executions a frozen copy of the run's frozen executions, so nothing is walked; the
 * times are the loop's clock readings, checked as `make` checks them.
 */
export const fromFrozenParts = (
  index: number,
  startedAt: number,
  response: InferenceResponse,
  toolExecutions: ReadonlyArray<ToolExecution>,
  completedAt: number,
): Step =>
  Object.freeze({
    index: finite("index", index),
    response,
    toolExecutions: toolExecutions.length === 0 ? none : toolExecutions,
    usage: response.usage ?? Usage.empty,
    finishReason: response.finishReason,
    startedAt: finite("startedAt", startedAt),
    completedAt: finite("completedAt", completedAt),
  })

/**
 * A frozen step; usage and finish reason come from the response unless given.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (input: {
  readonly index: number
  readonly startedAt: number
  readonly response?: InferenceResponse | undefined
  readonly toolExecutions?: ReadonlyArray<ToolExecution> | undefined
  readonly usage?: Usage.Usage | undefined
  readonly finishReason?: FinishReason | undefined
  readonly completedAt?: number | undefined
  readonly attempts?: ReadonlyArray<InferenceAttempt> | undefined
  readonly toolAttempts?: ReadonlyArray<ToolAttempt> | undefined
  readonly decisions?: Readonly<Record<string, Decision>> | undefined
}): Step => {
  const step: Step = {
    index: finite("index", input.index),
    response: input.response === undefined ? undefined : deepFreeze(input.response),
    toolExecutions: input.toolExecutions === undefined || input.toolExecutions.length === 0
      ? none
      // A frozen array of frozen executions is taken as it is (what the copy below would
      // hold: deepFreeze stops at frozen values), so a run's own record is not copied.
      : Object.isFrozen(input.toolExecutions) && input.toolExecutions.every(Object.isFrozen)
      ? input.toolExecutions
      : Object.freeze(input.toolExecutions.map(deepFreeze)),
    usage: deepFreeze(input.usage ?? input.response?.usage ?? Usage.empty),
    finishReason: input.finishReason ?? input.response?.finishReason,
    startedAt: finite("startedAt", input.startedAt),
    completedAt: finiteOptional("completedAt", input.completedAt),
  }
  // Steps without wrap hooks keep the shape they always had.
  if (input.attempts === undefined && input.toolAttempts === undefined && input.decisions === undefined) return Object.freeze(step)
  return Object.freeze({
    ...step,
    ...(input.attempts === undefined ? {} : { attempts: Object.freeze(input.attempts.map(deepFreeze)) }),
    ...(input.toolAttempts === undefined ? {} : { toolAttempts: Object.freeze(input.toolAttempts.map(deepFreeze)) }),
    ...(input.decisions === undefined ? {} : { decisions: deepFreeze({ ...input.decisions }) }),
  })
}
