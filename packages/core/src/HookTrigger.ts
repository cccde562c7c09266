/**
 * The ten points of the agent loop where hooks run.
 *
 * @since 0.1.0
 */
import { deepFreeze } from "./internal/immer.js"

/** @since 0.1.0 @category constructors */
export const BeforeExecution = "BeforeExecution" as const
/** @since 0.1.0 @category constructors */
export const BeforeStep = "BeforeStep" as const
/** @since 0.1.0 @category constructors */
export const BeforeInference = "BeforeInference" as const
/** @since 0.1.0 @category constructors */
export const AfterInference = "AfterInference" as const
/** @since 0.1.0 @category constructors */
export const BeforeToolUse = "BeforeToolUse" as const
/** @since 0.1.0 @category constructors */
export const AfterToolUse = "AfterToolUse" as const
/** @since 0.1.0 @category constructors */
export const AfterStep = "AfterStep" as const
/** @since 0.1.0 @category constructors */
export const OnStop = "OnStop" as const
/** @since 0.1.0 @category constructors */
export const AfterExecution = "AfterExecution" as const
/** @since 0.1.0 @category constructors */
export const OnError = "OnError" as const

/**
 * @since 0.1.0
 * @category models
 */
export type HookTrigger =
  | typeof BeforeExecution
  | typeof BeforeStep
  | typeof BeforeInference
  | typeof AfterInference
  | typeof BeforeToolUse
  | typeof AfterToolUse
  | typeof AfterStep
  | typeof OnStop
  | typeof AfterExecution
  | typeof OnError

/**
 * Every trigger, in the order the loop first reaches them (OnError last).
 *
 * @since 0.1.0
 * @category constructors
 */
export const all: ReadonlyArray<HookTrigger> = Object.freeze([
  BeforeExecution, BeforeStep, BeforeInference, AfterInference, BeforeToolUse, AfterToolUse, AfterStep, OnStop, AfterExecution, OnError,
])

/**
 * @since 0.1.0
 * @category guards
 */
export const isHookTrigger = (u: unknown): u is HookTrigger => typeof u === "string" && (all as ReadonlyArray<string>).includes(u)

/**
 * A context field only some triggers carry: `errors` is always an array, non-empty
 * only at OnError.
 *
 * @since 0.1.0
 * @category models
 */
export type Field = "request" | "response" | "toolCall" | "toolExecution" | "errors"

/**
 * The optional context fields each trigger carries (`errors`: non-empty); every other
 * one is absent (empty) at that trigger.
 *
 * @since 0.1.0
 * @category getters
 */
export const fields: Readonly<Record<HookTrigger, ReadonlyArray<Field>>> =
  deepFreeze({
    BeforeExecution: [],
    BeforeStep: [],
    BeforeInference: ["request"],
    AfterInference: ["request", "response"],
    BeforeToolUse: ["toolCall"],
    AfterToolUse: ["toolCall", "toolExecution"],
    AfterStep: [],
    OnStop: [],
    AfterExecution: [],
    OnError: ["errors"],
  })
