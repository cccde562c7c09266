/**
 * What the loop calls at every trigger. A `HookStack` is one; `PassThroughInterceptor`
 * returns every context as it is; users may plug in their own.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { HooklineError, hookFailed, messageOf, type HookFailed } from "./AgentError.js"
import type { HookContext } from "./HookContext.js"
import { contextAtFailure, settle, type DispatchEnv } from "./stack/dispatch.js"
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

/** What a custom interceptor's failures are named (`HookFailed.hook`). */
const name = "interceptor"

/**
 * @internal what the loop does with a custom interceptor's return, the check a stack
 * gives each hook's return (`stack/dispatch.ts` `settle`; a stack checks its own hooks,
 * so the loop does not call this for one): a valid context of the same trigger and run,
 * frozen through where it differs from `input`, or the `HookFailed` (hook
 * "interceptor") naming what was wrong. The return is untrusted, as a hook's: user code.
 */
export const checkReturn = (input: HookContext, output: unknown): HookContext | HookFailed => {
  if (output === input) return input
  let out: HookContext | string
  try {
    out = settle(input, output)
  } catch (cause) {
    // A hostile return (a Proxy whose traps throw) is a bad return, not a crash.
    out = messageOf(cause)
  }
  return typeof out === "string" ? hookFailed(name, input.trigger, out) : out
}

/**
 * @internal the state a failed custom interceptor's dispatch reached (a stack's failure
 * carries the context its failing hook was given: `HookStack.contextAtFailure`), checked
 * as its return is against `input`; `undefined` when it reached none or a bad one (the
 * interceptor ran the stack on a context it forged), so nothing of it is committed.
 */
export const reachedOf = (input: HookContext, error: HookFailed): HookContext | undefined => {
  const reached = contextAtFailure(error)
  if (reached === undefined) return undefined
  const out = checkReturn(input, reached)
  return isFailure(out) ? undefined : out
}

/** @internal whether a `checkReturn` answer is its failure. */
export const isFailure = (out: HookContext | HookFailed): out is HookFailed => (out as { readonly _tag?: unknown })._tag === "HookFailed"

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
