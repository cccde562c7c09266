/**
 * One iteration of the loop: the model's response, the tool executions, usage and
 * finish reason.
 *
 * @since 0.1.0
 */
import type { FinishReason, InferenceResponse } from "./InferenceResponse.js"
import type { ToolExecution } from "./ToolExecution.js"
import * as Usage from "./Usage.js"
import { deepFreeze } from "./internal/immer.js"

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
}

const none: ReadonlyArray<ToolExecution> = Object.freeze([])

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
}): Step =>
  Object.freeze({
    index: input.index,
    response: input.response === undefined ? undefined : deepFreeze(input.response),
    toolExecutions: input.toolExecutions === undefined || input.toolExecutions.length === 0
      ? none
      : Object.freeze(input.toolExecutions.map(deepFreeze)),
    usage: deepFreeze(input.usage ?? input.response?.usage ?? Usage.empty),
    finishReason: input.finishReason ?? input.response?.finishReason,
    startedAt: input.startedAt,
    completedAt: input.completedAt,
  })
