/**
 * What the loop calls at every trigger. A `HookStack` is one; `PassThroughInterceptor`
 * returns every context as it is; users may plug in their own.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { HooklineError, type HookFailed } from "./AgentError.js"
import type { HookContext } from "./HookContext.js"
import type { DispatchEnv } from "./stack/dispatch.js"
import { LoopWraps } from "./stack/loopWraps.js"
import type { HookStack } from "./HookStack.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Interceptor<R = never> {
  readonly intercept: (ctx: HookContext) => Effect.Effect<HookContext, HookFailed, R>
  /**
   * Optional synchronous path: the loop calls it first and uses `intercept` only when
   * it returns `undefined`. It may throw `HooklineError(HookFailed)`.
   */
  readonly interceptSync?: ((ctx: HookContext, env?: DispatchEnv) => HookContext | undefined) | undefined
  /**
   * The stack this interceptor runs, whose wrap hooks (`HookStack.withWrap`) the loop
   * runs around each model call and tool execution: set by `around`. A loop given a
   * custom interceptor that runs a stack with wrap hooks without declaring it here
   * refuses to run (`InvalidConfiguration` at `interceptor`), rather than skip them.
   */
  readonly wrapsFrom?: HookStack<R> | undefined
}

/**
 * An interceptor from an Effect function.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <R = never>(intercept: (ctx: HookContext) => Effect.Effect<HookContext, HookFailed, R>): Interceptor<R> =>
  Object.freeze({ intercept })

/**
 * A custom interceptor around a stack that keeps the stack's wrap hooks: `intercept`
 * gets each context and `next`, the stack's own dispatch, and may act before and after
 * it (log, time, trace, rewrite). The loop runs the stack's wrap hooks around each
 * model call and tool execution, as it does for the stack itself.
 *
 * @example
 * ```ts
 * const traced = Interceptor.around(stack, (ctx, next) => Effect.tap(next(ctx), () => Effect.log(ctx.trigger)))
 * AgentLoop.make({ interceptor: traced })
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const around = <R, R2 = never>(
  stack: HookStack<R>,
  intercept: (ctx: HookContext, next: (ctx: HookContext) => Effect.Effect<HookContext, HookFailed, R>) => Effect.Effect<HookContext, HookFailed, R2>,
): Interceptor<R | R2> => Object.freeze({ intercept: (ctx: HookContext) => intercept(ctx, stack.intercept), wrapsFrom: stack })

/**
 * @internal what the loop runs a custom interceptor's `intercept` under: the stacks it
 * reaches learn which wrap hooks the loop runs (`wrapsFrom`, or none), so a stack whose
 * wrap hooks would be skipped refuses to run.
 */
export const underLoop = <A, E, R>(interceptor: Interceptor<any>, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.provideService(effect, LoopWraps, interceptor.wrapsFrom ?? null)

/**
 * The interceptor of a stack (a stack is already one; this only narrows the type).
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromStack = <R>(stack: HookStack<R>): Interceptor<R> => stack

/**
 * Returns every context unchanged, the same reference (for tests, or to turn hooks off).
 *
 * @since 0.1.0
 * @category constructors
 */
export const PassThroughInterceptor: Interceptor<never> = Object.freeze({
  intercept: (ctx: HookContext) => Effect.succeed(ctx),
  interceptSync: (ctx: HookContext) => ctx,
})

/**
 * Runs an interceptor's synchronous path when it has one for this context, its Effect
 * path otherwise.
 *
 * @since 0.1.0
 * @category running
 */
export const run = <R>(
  interceptor: Interceptor<R>,
  ctx: HookContext,
  env?: DispatchEnv,
): Effect.Effect<HookContext, HookFailed, R> => {
  if (interceptor.interceptSync === undefined) return interceptor.intercept(ctx)
  const sync = interceptor.interceptSync
  return Effect.suspend(() => {
    let out: HookContext | undefined
    try {
      out = sync(ctx, env)
    } catch (error) {
      if (error instanceof HooklineError && error.error._tag === "HookFailed") return Effect.fail(error.error)
      throw error
    }
    return out === undefined ? interceptor.intercept(ctx) : Effect.succeed(out)
  })
}
