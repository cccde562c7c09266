/**
 * Timeouts of one model call and of one tool call, on the Effect clock. The call is
 * interrupted (its HTTP request aborted) when the time is up; the run's own time guard
 * stays as it is.
 *
 * @since 0.1.0
 */
import { UseWrap, type AgentBuilder } from "@hookline/agent"
import { AgentError, ToolExecution, WrapHook } from "@hookline/core"
import { Clock, Duration, Effect } from "effect"
import * as O from "./internal/options.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface ModelTimeoutOptions {
  /** The longest one model call may take, in ms. */
  readonly ms: number
  /** Default "timeout:model". */
  readonly name?: string | undefined
  /** Default 100: inside a retry, so each attempt has its own time. */
  readonly priority?: number | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ToolTimeoutOptions {
  /** The longest one tool call may take, in ms. */
  readonly ms: number
  /** Only these tools; default every tool. */
  readonly tools?: ReadonlyArray<string> | undefined
  /** Default "timeout:tools". */
  readonly name?: string | undefined
  /** Default 100. */
  readonly priority?: number | undefined
}

const msOf = (at: string, o: Readonly<Record<string, unknown>>): number => {
  if (o["ms"] === undefined) O.invalid(`${at}.ms`, "expected the timeout in ms")
  return O.number(`${at}.ms`, o["ms"], 0, 1)
}

/**
 * A wrap hook that fails a model call that takes longer than `ms` with a retryable
 * `InferenceFailed` (status 408), so a retry outside it calls again. The call it cut is
 * an attempt of its step (`step.attempts`), with that error and the time it took.
 *
 * @since 0.1.0
 * @category constructors
 */
export const modelTimeout = (options: ModelTimeoutOptions): WrapHook.InferenceWrap => modelTimeoutOf(options).wrap

// The wrap and its place, from one reading of the caller's options (a getter may answer
// otherwise the second time): the capability registers the `name`/`priority` checked here.
const modelTimeoutOf = (options: ModelTimeoutOptions): O.Placed<WrapHook.InferenceWrap> => {
  const at = "modelTimeout"
  const o = O.record(at, options, ["ms", "name", "priority"])
  const ms = msOf(at, o)
  const placement = O.placement(at, o, "timeout:model", 100)
  const wrap = WrapHook.inference<never>((ctx, next) =>
    Effect.timeoutOrElse(next(ctx), {
      duration: Duration.millis(ms),
      orElse: () => Effect.fail(AgentError.inferenceFailed(`the model call timed out after ${ms} ms`, { status: 408, retryable: true })),
    })
  )
  return { wrap, placement }
}

/**
 * Model-call timeout as a capability: `UseModelTimeout({ ms: 30_000 })`.
 *
 * @since 0.1.0
 * @category capabilities
 */
export const UseModelTimeout = (options: ModelTimeoutOptions): AgentBuilder.Capability => {
  const { wrap, placement } = modelTimeoutOf(options)
  return UseWrap(wrap, placement)
}

/**
 * A wrap hook that ends a tool call that takes longer than `ms` with a failed
 * execution (`ToolTimedOut`), which goes back to the model like any tool failure. The
 * run it cut is a tool attempt of its step (`step.toolAttempts`), with that error.
 *
 * @since 0.1.0
 * @category constructors
 */
export const toolTimeout = (options: ToolTimeoutOptions): WrapHook.ToolWrap => toolTimeoutOf(options).wrap

const toolTimeoutOf = (options: ToolTimeoutOptions): O.Placed<WrapHook.ToolWrap> => {
  const at = "toolTimeout"
  const o = O.record(at, options, ["ms", "tools", "name", "priority"])
  const ms = msOf(at, o)
  const tools = o["tools"] === undefined ? undefined : O.strings(`${at}.tools`, o["tools"])
  const placement = O.placement(at, o, "timeout:tools", 100)
  const wrap = WrapHook.toolUse((ctx, next) =>
    Effect.flatMap(Clock.currentTimeMillis, (startedAt) =>
      Effect.timeoutOrElse(next(ctx), {
        duration: Duration.millis(ms),
        orElse: () =>
          Effect.map(Clock.currentTimeMillis, (now) => {
            const call = ctx.toolCall!
            return ToolExecution.failure(call, AgentError.toolTimedOut(call.id, call.name, ms), startedAt, now)
          }),
      }))
  )
  return { wrap: tools === undefined ? wrap : WrapHook.forTools(tools, wrap), placement }
}

/**
 * Tool-call timeout as a capability: `UseToolTimeout({ ms: 10_000, tools: ["fetch"] })`.
 *
 * @since 0.1.0
 * @category capabilities
 */
export const UseToolTimeout = (options: ToolTimeoutOptions): AgentBuilder.Capability => {
  const { wrap, placement } = toolTimeoutOf(options)
  return UseWrap(wrap, placement)
}
