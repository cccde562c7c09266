/**
 * What the model answered: text, tool calls, usage, finish reason and model id.
 *
 * @since 0.1.0
 */
import type { Metadata } from "./Json.js"
import { emptyMetadata } from "./Json.js"
import type { ToolCall } from "./ToolCall.js"
import * as Usage from "./Usage.js"
import { deepFreeze } from "./internal/immer.js"

/**
 * Why the model stopped generating (the Vercel AI SDK's names).
 *
 * @since 0.1.0
 * @category models
 */
export type FinishReason = "stop" | "length" | "content-filter" | "tool-calls" | "error" | "other"

/**
 * @since 0.1.0
 * @category constructors
 */
export const finishReasons: ReadonlyArray<FinishReason> = Object.freeze([
  "stop",
  "length",
  "content-filter",
  "tool-calls",
  "error",
  "other",
])

/**
 * @since 0.1.0
 * @category models
 */
export interface InferenceResponse {
  readonly text: string
  readonly toolCalls: ReadonlyArray<ToolCall>
  readonly usage: Usage.Usage
  readonly finishReason: FinishReason
  readonly modelId: string
  /** Provider details worth keeping (response id, provider metadata). */
  readonly metadata: Metadata
}

const noToolCalls: ReadonlyArray<ToolCall> = Object.freeze([])

/**
 * A frozen response; the finish reason defaults to `tool-calls` when there are tool
 * calls and `stop` otherwise.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (input: {
  readonly text?: string | undefined
  readonly toolCalls?: ReadonlyArray<ToolCall> | undefined
  readonly usage?: Usage.Usage | undefined
  readonly finishReason?: FinishReason | undefined
  readonly modelId?: string | undefined
  readonly metadata?: Metadata | undefined
}): InferenceResponse => {
  const toolCalls = input.toolCalls === undefined || input.toolCalls.length === 0 ? noToolCalls : deepFreeze(input.toolCalls)
  return Object.freeze({
    text: input.text ?? "",
    toolCalls,
    usage: input.usage === undefined ? Usage.empty : deepFreeze(input.usage),
    finishReason: input.finishReason ?? (toolCalls.length > 0 ? "tool-calls" : "stop"),
    modelId: input.modelId ?? "unknown",
    metadata: input.metadata === undefined ? emptyMetadata : deepFreeze(input.metadata),
  })
}

/**
 * @since 0.1.0
 * @category guards
 */
export const hasToolCalls = (response: InferenceResponse): boolean => response.toolCalls.length > 0
