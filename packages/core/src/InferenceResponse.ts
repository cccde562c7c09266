/**
 * What the model answered: text, tool calls, usage, finish reason and model id, and the
 * model's reasoning when it gives it.
 *
 * @since 0.1.0
 */
import type { Metadata } from "./Json.js"
import { emptyMetadata } from "./Json.js"
import { type ToolCall, make as makeToolCall } from "./ToolCall.js"
import * as Usage from "./Usage.js"
import { deepFreeze } from "./internal/immer.js"
import { isBoundedString, isSealed, seal, sealJson } from "./internal/sealed.js"

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
  /**
   * The model's reasoning (its thinking, or the provider's summary of it), when the model
   * gives it and the driver reads it; absent otherwise (`make` drops an empty one). It is
   * not sent back to the model: the assistant message keeps the text and the calls only.
   */
  readonly reasoning?: string | undefined
  /**
   * Set when a journal gave this answer back instead of calling the model (`isReplayed`);
   * `make` never sets it, so no driver can.
   */
  readonly replayed?: true | undefined
}

const noToolCalls: ReadonlyArray<ToolCall> = seal(Object.freeze([]))

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
  readonly reasoning?: string | undefined
}): InferenceResponse => {
  // Valid parts: a sealed response the agent trusts without checking it again.
  // Anything else is frozen as given, and checked at the agent's boundary.
  const trusted = sealed(input)
  if (trusted !== undefined) return trusted
  const toolCalls = input.toolCalls === undefined || input.toolCalls.length === 0 ? noToolCalls : deepFreeze(input.toolCalls)
  return Object.freeze({
    text: input.text ?? "",
    toolCalls,
    usage: input.usage === undefined ? Usage.empty : deepFreeze(input.usage),
    finishReason: input.finishReason ?? (toolCalls.length > 0 ? "tool-calls" : "stop"),
    modelId: input.modelId ?? "unknown",
    metadata: input.metadata === undefined ? emptyMetadata : deepFreeze(input.metadata),
    // Only when there is some: a response without reasoning keeps its former shape.
    ...(input.reasoning === undefined || input.reasoning === "" ? {} : { reasoning: input.reasoning }),
  })
}

/** The most tool calls one answer may hold at the agent's boundary (driverAnswer.ts). */
const maxToolCalls = 10_000

const finishReasonSet: ReadonlySet<unknown> = new Set(finishReasons)

/**
 * A sealed response when every part is valid and sealed, or can be copied into a
 * sealed value: a caller's arrays and objects may change later, so only frozen copies
 * made here, and values sealed before (calls from `ToolCall.make`), are kept.
 * `undefined` otherwise, or when reading the input threw.
 */
const sealed = (input: Parameters<typeof make>[0]): InferenceResponse | undefined => {
  try {
    const text = input.text ?? ""
    const modelId = input.modelId ?? "unknown"
    if (!isBoundedString(text) || !isBoundedString(modelId)) return undefined
    const reasoning = input.reasoning
    if (reasoning !== undefined && !isBoundedString(reasoning)) return undefined
    const given = input.toolCalls
    let toolCalls = noToolCalls
    if (given !== undefined && given.length > 0) {
      if (isSealed(given)) toolCalls = given
      else {
        if (!Array.isArray(given) || given.length > maxToolCalls) return undefined
        const copy: Array<ToolCall> = new Array(given.length)
        for (let i = 0; i < given.length; i++) {
          // Only calls `ToolCall.make` sealed: a call made by hand keeps its identity
          // (the agent keys what it knows of a call by it), so the response is not sealed.
          const call: unknown = given[i]
          if (!isSealed(call)) return undefined
          copy[i] = call as ToolCall
        }
        toolCalls = seal(Object.freeze(copy))
      }
    }
    const finishReason = input.finishReason ?? (toolCalls.length > 0 ? "tool-calls" : "stop")
    if (!finishReasonSet.has(finishReason)) return undefined
    const givenUsage = input.usage
    const usage = givenUsage === undefined || isSealed(givenUsage)
      ? givenUsage ?? Usage.empty
      : Usage.make(givenUsage.inputTokens, givenUsage.outputTokens)
    if (!isSealed(usage)) return undefined
    const givenMetadata = input.metadata
    let metadata = emptyMetadata
    if (givenMetadata !== undefined) {
      if (typeof givenMetadata !== "object" || givenMetadata === null || Array.isArray(givenMetadata)) return undefined
      const copy = sealJson(givenMetadata)
      if (copy === undefined) return undefined
      metadata = copy as Metadata
    }
    return seal(Object.freeze(
      reasoning === undefined || reasoning === ""
        ? { text, toolCalls, usage, finishReason, modelId, metadata }
        : { text, toolCalls, usage, finishReason, modelId, metadata, reasoning },
    ))
  } catch {
    return undefined
  }
}

/**
 * The answer marked as given back by a journal (a resumed run answering from what it
 * recorded before a crash) rather than by the model: hooks tell the two apart with
 * `isReplayed`. `UseCheckpoints` of `@hookline/store` marks what it replays.
 *
 * @since 0.1.0
 * @category combinators
 */
export const asReplayed = (response: InferenceResponse): InferenceResponse =>
  response.replayed === true ? response : Object.freeze({ ...response, replayed: true as const })

/**
 * Whether a journal gave this answer back instead of the model answering in this run.
 *
 * @since 0.1.0
 * @category guards
 */
export const isReplayed = (response: InferenceResponse): boolean => response.replayed === true

/**
 * @since 0.1.0
 * @category guards
 */
export const hasToolCalls = (response: InferenceResponse): boolean => response.toolCalls.length > 0
