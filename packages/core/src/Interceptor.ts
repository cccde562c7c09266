/**
 * What the loop calls at every trigger. A `HookStack` is one; `PassThroughInterceptor`
 * returns every context as it is; users may plug in their own.
 *
 * @since 0.1.0
 */
import { Cause, Effect } from "effect"
import { HooklineError, hookFailed, messageOf, type HookFailed } from "./AgentError.js"
import { HookPoint } from "./codecs/literals.js"
import type { HookContext } from "./HookContext.js"
import { contextAtFailure, settle, type DispatchEnv } from "./stack/dispatch.js"
import { isLostWraps, LoopWraps } from "./stack/loopWraps.js"
import { isHookStack, type HookStack } from "./HookStack.js"
import { disarm } from "./internal/thenable.js"
import { truncate } from "./Truncation.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Interceptor<R = never> {
  readonly intercept: (ctx: HookContext) => Effect.Effect<HookContext, HookFailed, R>
  /**
   * Optional synchronous path: the loop calls it first and uses `intercept` only when
   * it returns `undefined`. It may throw `HooklineError(HookFailed)`; the loop takes
   * anything else it throws (or `intercept`'s Effect dies with) as the interceptor's
   * `HookFailed` naming it, as it does a hook's throw.
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
 * @internal a custom interceptor's `intercept` on `ctx`, as the loop runs it: the stacks
 * it reaches learn which wrap hooks the loop runs (`wrapsFrom`, or none), so a stack
 * whose wrap hooks would be skipped refuses to run. `intercept` is user code: a throw,
 * or a return that is not an Effect (a Promise is disarmed), is its failure
 * (`failureOf`), not the run's defect.
 */
export const runUnderLoop = <R>(interceptor: Interceptor<R>, ctx: HookContext): Effect.Effect<HookContext, HookFailed, R> =>
  Effect.provideService(called(interceptor, ctx), LoopWraps, interceptor.wrapsFrom ?? null)

// `intercept` called as user code: a throw, or a return that is not an Effect (a Promise
// is disarmed), is its failure.
const called = <R>(interceptor: Interceptor<R>, ctx: HookContext): Effect.Effect<HookContext, HookFailed, R> => {
  let effect: unknown
  try {
    effect = interceptor.intercept(ctx)
  } catch (cause) {
    return isDefect(cause) ? Effect.die(cause) : Effect.fail(failureOf(ctx, cause))
  }
  if (!Effect.isEffect(effect)) {
    disarm(effect)
    return Effect.fail(hookFailed(name, ctx.trigger, "intercept returned something that is not an Effect"))
  }
  return effect as Effect.Effect<HookContext, HookFailed, R>
}

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

/**
 * @internal what the loop makes of what a custom interceptor threw (`interceptSync` or
 * `intercept` itself), or its Effect failed or died with (`Cause.squash`): the
 * `HookFailed` it raised (thrown as `HooklineError`, or failed with), when well formed;
 * anything else (an Error, a string, `undefined`, a malformed record) is the
 * interceptor's failure naming what was thrown, as a stack names a hook that throws
 * (`stack/dispatch.ts`). Bounded either way: a record a stack made is kept as it is (it
 * carries the context its failing hook reached: `reachedOf`), any other is rebuilt from
 * one read of its fields, cut to `Truncation.defaultMaxLength`. Never throws.
 */
export const failureOf = (input: HookContext, cause: unknown): HookFailed => {
  const raised = cause instanceof HooklineError ? cause.error : cause
  if (contextAtFailure(raised as HookFailed) !== undefined) return raised as HookFailed
  const record = wellFormed(raised)
  if (record !== undefined) return record
  // A thenable thrown (an async function's promise) is nobody's: its rejection is handled.
  disarm(cause)
  return hookFailed(name, input.trigger, messageOf(cause))
}

/**
 * @internal whether what a custom interceptor threw, or its Effect died with, is a
 * programmer error the loop lets through as it is rather than `failureOf` it: a stack
 * with wrap hooks run where the loop cannot see them (`InvalidConfiguration`, made by
 * core; one built elsewhere is not).
 */
export const isDefect = (cause: unknown): boolean => isLostWraps(cause)

// A HookFailed record read once (a getter or a Proxy answers once), or `undefined`.
const wellFormed = (raised: unknown): HookFailed | undefined => {
  if (typeof raised !== "object" || raised === null) return undefined
  try {
    const { _tag, hook, trigger, message } = raised as Record<string, unknown>
    if (_tag !== "HookFailed" || typeof hook !== "string" || typeof message !== "string" || !HookPoint.is(trigger)) return undefined
    return Object.freeze({ _tag: "HookFailed", hook: truncate(hook), trigger, message: truncate(message) })
  } catch {
    return undefined
  }
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
 * path otherwise, and answers as the loop does. A `HookStack` answers for its hooks. A
 * custom interceptor is user code: whatever it throws, its Effect fails or dies with, or
 * an `intercept` that returns no Effect, is its failure, `HookFailed{ hook:
 * "interceptor" }` (a `HookFailed` it raises is kept); what it returns gets the check a
 * hook's return gets (a valid context of the same trigger and run, frozen through). An
 * interruption stays one.
 *
 * @since 0.1.0
 * @category running
 */
export const run = <R>(
  interceptor: Interceptor<R>,
  ctx: HookContext,
  env?: DispatchEnv,
): Effect.Effect<HookContext, HookFailed, R> => {
  if (isHookStack(interceptor)) {
    // A stack checked every hook's return, and throws only its hooks' HookFailed.
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
  return Effect.suspend(() => {
    const sync = interceptor.interceptSync
    if (sync !== undefined) {
      let out: HookContext | undefined
      try {
        out = sync(ctx, env)
      } catch (cause) {
        return isDefect(cause) ? Effect.die(cause) : Effect.fail(failureOf(ctx, cause))
      }
      if (out !== undefined) return answer(ctx, out)
    }
    return Effect.matchCauseEffect(called(interceptor, ctx), {
      onFailure: (cause) => {
        if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause)
        const squashed = Cause.squash(cause)
        return isDefect(squashed) ? Effect.failCause(cause) : Effect.fail(failureOf(ctx, squashed))
      },
      onSuccess: (out) => answer(ctx, out),
    })
  })
}

// A custom interceptor's return, checked as the loop checks it.
const answer = (input: HookContext, output: unknown): Effect.Effect<HookContext, HookFailed> => {
  const checked = checkReturn(input, output)
  return isFailure(checked) ? Effect.fail(checked) : Effect.succeed(checked)
}
