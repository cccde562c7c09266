/**
 * Wrap hooks: hooks that hold a call. A wrap hook gets the context and `next`, the
 * rest of the chain down to the call itself, and may call `next` zero times (answer
 * itself), once, several times (retry), or with an edited context (another request,
 * other arguments, another model). Two points are wrapped: each model call
 * (`WrapInference`) and each tool execution (`WrapToolUse`). Wrap hooks nest by
 * priority, higher outside, and run inside the before/after hooks of their call.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { HooklineError, type InferenceFailed } from "./AgentError.js"
import type { HookContext } from "./HookContext.js"
import type { InferenceResponse } from "./InferenceResponse.js"
import type { ToolExecution } from "./ToolExecution.js"

/** @since 0.1.0 @category constructors */
export const WrapInference = "WrapInference" as const
/** @since 0.1.0 @category constructors */
export const WrapToolUse = "WrapToolUse" as const

/**
 * Where a wrap hook sits: around each model call, or around each tool execution.
 *
 * @since 0.1.0
 * @category models
 */
export type WrapPoint = typeof WrapInference | typeof WrapToolUse

/**
 * Both wrap points.
 *
 * @since 0.1.0
 * @category constructors
 */
export const points: ReadonlyArray<WrapPoint> = Object.freeze([WrapInference, WrapToolUse])

/**
 * @since 0.1.0
 * @category guards
 */
export const isWrapPoint = (u: unknown): u is WrapPoint => u === WrapInference || u === WrapToolUse

/**
 * What a model call's `next` takes besides the context. `model` is the model to call
 * instead of the agent's own (a `Driver` from `@hookline/agent`); the loop checks it
 * where it enters.
 *
 * @since 0.1.0
 * @category models
 */
export interface CallOptions {
  readonly model?: unknown
}

/**
 * The rest of a model call: the inner wrap hooks, then the model. Its context is the
 * BeforeInference context (with `request`); it fails with the call's `InferenceFailed`.
 *
 * @since 0.1.0
 * @category models
 */
export type InferenceNext = (ctx: HookContext, options?: CallOptions) => Effect.Effect<InferenceResponse, InferenceFailed>

/**
 * The rest of a tool execution: the inner wrap hooks, then the tool. Its context is the
 * BeforeToolUse context (with `toolCall`); a tool's failure is data (a failed execution).
 *
 * @since 0.1.0
 * @category models
 */
export type ToolNext = (ctx: HookContext) => Effect.Effect<ToolExecution>

/**
 * A hook around each model call. Failing with an `InferenceFailed` is the call's
 * outcome (the model failed, or the hook gave up); any other failure is the hook's
 * own, handled by its `onError` policy.
 *
 * @since 0.1.0
 * @category models
 */
export interface InferenceWrap<E = never, R = never> {
  readonly _tag: "WrapHook"
  readonly point: typeof WrapInference
  readonly run: (ctx: HookContext, next: InferenceNext) => Effect.Effect<InferenceResponse, InferenceFailed | E, R>
}

/**
 * A hook around each tool execution. Any failure is the hook's own (a tool's failure
 * is a failed execution, which the hook returns or retries).
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolWrap<E = never, R = never> {
  readonly _tag: "WrapHook"
  readonly point: typeof WrapToolUse
  readonly run: (ctx: HookContext, next: ToolNext) => Effect.Effect<ToolExecution, E, R>
}

/**
 * Either kind of wrap hook.
 *
 * @since 0.1.0
 * @category models
 */
export type WrapHook<E = unknown, R = never> = InferenceWrap<E, R> | ToolWrap<E, R>

/**
 * The services a wrap hook needs.
 *
 * @since 0.1.0
 * @category models
 */
export type Requirements<W> = W extends InferenceWrap<any, infer R> ? R : W extends ToolWrap<any, infer R> ? R : never

/**
 * A hook around each model call.
 *
 * @since 0.1.0
 * @category constructors
 */
export const inference = <E = never, R = never>(
  run: (ctx: HookContext, next: InferenceNext) => Effect.Effect<InferenceResponse, InferenceFailed | E, R>,
): InferenceWrap<E, R> => Object.freeze({ _tag: "WrapHook", point: WrapInference, run })

/**
 * A hook around each tool execution.
 *
 * @since 0.1.0
 * @category constructors
 */
export const toolUse = <E = never, R = never>(
  run: (ctx: HookContext, next: ToolNext) => Effect.Effect<ToolExecution, E, R>,
): ToolWrap<E, R> => Object.freeze({ _tag: "WrapHook", point: WrapToolUse, run })

// An inner wrap hook's failure reaches a Promise wrap hook as the rejection of `next`
// (a HookFailed defect); passed on, it stays a defect, so the chain reports it as that
// hook's and not as the Promise hook's own failure (found by the fuzzer, issue 16).
const passInnerFailures = <A>(effect: Effect.Effect<A, unknown>): Effect.Effect<A, unknown> =>
  Effect.catch(effect, (error) =>
    error instanceof HooklineError && error.error._tag === "HookFailed" ? Effect.die(error) : Effect.fail(error))

/**
 * A hook around each model call, from an async function; `next` gives a Promise, and
 * the signal fires when the run is aborted.
 *
 * @since 0.1.0
 * @category constructors
 */
export const inferencePromise = (
  run: (
    ctx: HookContext,
    next: (ctx: HookContext, options?: CallOptions) => Promise<InferenceResponse>,
    signal: AbortSignal,
  ) => Promise<InferenceResponse>,
): InferenceWrap<unknown> =>
  inference((ctx, next) =>
    Effect.flatMap(Effect.context<never>(), (services) => {
      // `next` runs with the run's services (its clock, the hooks' services), not a bare runtime's.
      const runNext = Effect.runPromiseWith(services)
      return passInnerFailures(Effect.tryPromise({
        try: (signal) => run(ctx, (c, o) => runNext(next(c, o), { signal }), signal),
        catch: (cause) => cause,
      }))
    })
  )

/**
 * A hook around each tool execution, from an async function.
 *
 * @since 0.1.0
 * @category constructors
 */
export const toolUsePromise = (
  run: (ctx: HookContext, next: (ctx: HookContext) => Promise<ToolExecution>, signal: AbortSignal) => Promise<ToolExecution>,
): ToolWrap<unknown> =>
  toolUse((ctx, next) =>
    Effect.flatMap(Effect.context<never>(), (services) => {
      const runNext = Effect.runPromiseWith(services)
      return passInnerFailures(Effect.tryPromise({ try: (signal) => run(ctx, (c) => runNext(next(c), { signal }), signal), catch: (cause) => cause }))
    })
  )

/**
 * Runs `wrap` only where `predicate` holds; elsewhere it calls `next` once, as is.
 *
 * @since 0.1.0
 * @category combinators
 */
export function when<E, R>(predicate: (ctx: HookContext) => boolean, wrap: InferenceWrap<E, R>): InferenceWrap<E, R>
export function when<E, R>(predicate: (ctx: HookContext) => boolean, wrap: ToolWrap<E, R>): ToolWrap<E, R>
export function when<E, R>(predicate: (ctx: HookContext) => boolean, wrap: WrapHook<E, R>): WrapHook<E, R> {
  if (wrap.point === WrapInference) {
    return inference<E, R>((ctx, next) => (predicate(ctx) ? wrap.run(ctx, next) : next(ctx)))
  }
  return toolUse<E, R>((ctx, next) => (predicate(ctx) ? wrap.run(ctx, next) : next(ctx)))
}

/**
 * Runs a tool wrap only for calls of the named tools.
 *
 * @since 0.1.0
 * @category combinators
 */
export const forTools = <E, R>(names: ReadonlyArray<string>, wrap: ToolWrap<E, R>): ToolWrap<E, R> => {
  const set = new Set(names)
  return when((ctx) => ctx.toolCall !== undefined && set.has(ctx.toolCall.name), wrap)
}

/**
 * @since 0.1.0
 * @category guards
 */
export const isWrapHook = (u: unknown): u is WrapHook<unknown, unknown> =>
  typeof u === "object" && u !== null && "_tag" in u && u._tag === "WrapHook" && "point" in u && isWrapPoint(u.point)
  && "run" in u && typeof u.run === "function"
