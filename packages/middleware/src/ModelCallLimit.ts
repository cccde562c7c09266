/**
 * A limit on the model calls of a run. When a run has made `max` calls, the next one
 * is not made: with `onLimit: "stop"` (the default) the run stops before it (a hard
 * stop); with `onLimit: "answer"` the call is answered, without the model, by a final
 * assistant message saying so (the run completes, and the user reads why). The count
 * is kept in the state's metadata under `limit:model_calls` and starts again at each
 * run; a call a cache hook answered earlier in BeforeInference is not counted.
 *
 * @since 0.1.0
 */
import { UseHook, type AgentBuilder } from "@hookline/agent"
import {
  AgentState,
  HookContext,
  HookTrigger,
  HookTriggers,
  InferenceResponse,
  StopReason,
  StopSignal,
  type Hook,
} from "@hookline/core"
import * as O from "./internal/builtinOptions.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The most model calls in a run. */
  readonly max: number
  /** `"stop"` (default): stop the run before the call; `"answer"`: answer it with `message`. */
  readonly onLimit?: "stop" | "answer" | undefined
  /** The final answer of `onLimit: "answer"`; default says the limit was reached. */
  readonly message?: string | undefined
}

/** @since 0.1.0 @category constants */
export const name = "limit:model_calls"

/** Low, so a cache hook answers first (and is not counted). @since 0.1.0 @category constants */
export const priority = -100

/** The stop reason of `onLimit: "stop"`, the closest built-in one until custom reasons land. @since 0.1.0 @category constants */
export const stopReason = StopReason.StepsLimitReached

const check = (options: unknown) => {
  const o = O.record("options", options, ["max", "onLimit", "message"])
  const max = O.count("options.max", o["max"])
  const onLimit = o["onLimit"] === undefined ? "stop" : O.oneOf("options.onLimit", o["onLimit"], ["stop", "answer"] as const)
  const message = o["message"] === undefined ? undefined : O.text("options.message", o["message"])
  return { max, onLimit, message }
}

const countOf = (u: unknown): number => (typeof u === "number" && Number.isSafeInteger(u) && u >= 0 ? u : 0)

/**
 * The hook (for BeforeExecution, to reset the count, BeforeStep, to stop, and
 * BeforeInference, to count or answer). Throws
 * `InvalidConfiguration` for bad options.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options): Hook => {
  const { max, onLimit, message } = check(options)
  return (ctx) => {
    if (ctx.trigger === HookTrigger.BeforeExecution) {
      return ctx.state.metadata[name] === undefined ? ctx : HookContext.withState(ctx, AgentState.withMetadata(ctx.state, { [name]: 0 }))
    }
    const used = countOf(ctx.state.metadata[name])
    const reason = `Model call limit reached: ${used}/${max} calls in this run`
    if (ctx.trigger === HookTrigger.BeforeStep) {
      // The loop checks stops after BeforeStep: the call is never made.
      return onLimit === "stop" && used >= max ? HookContext.withStopSignal(ctx, StopSignal.make(stopReason, reason, name)) : ctx
    }
    if (ctx.trigger !== HookTrigger.BeforeInference || ctx.response !== undefined) return ctx
    if (used < max) return HookContext.withState(ctx, AgentState.withMetadata(ctx.state, { [name]: used + 1 }))
    return HookContext.withResponse(ctx, InferenceResponse.make({ text: message ?? reason, finishReason: "other", modelId: name }))
  }
}

/**
 * The limit as a capability: `UseHook(make(options), { triggers: BeforeExecution,
 * BeforeStep and BeforeInference, priority: -100, name: "limit:model_calls" })`.
 *
 * @example
 * ```ts
 * UseModelCallLimit({ max: 10, onLimit: "answer" })
 * ```
 *
 * @since 0.1.0
 * @category capabilities
 */
export const UseModelCallLimit = (options: Options): AgentBuilder.Capability =>
  UseHook(make(options), {
    triggers: HookTriggers.of(HookTrigger.BeforeExecution, HookTrigger.BeforeStep, HookTrigger.BeforeInference),
    priority,
    name,
  })
