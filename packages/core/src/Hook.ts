/**
 * Hooks: pure `(ctx) => ctx` functions, and effectful hooks lifted from Effects or
 * Promises. Pure hooks form a monoid (the Endomorphism monoid): `sequence` composes
 * them, `identity` is the unit.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { getMonoid } from "fp-ts/lib/Endomorphism.js"
import type { Endomorphism } from "fp-ts/lib/Endomorphism.js"
import type { Monoid as M } from "fp-ts/lib/Monoid.js"
import { concatAll } from "fp-ts/lib/Monoid.js"
import type { HookContext } from "./HookContext.js"

/**
 * A pure hook: no I/O, no clock, no randomness; expected conditions are returned as
 * data (a block, a stop signal), never thrown.
 *
 * @since 0.1.0
 * @category models
 */
export type Hook = Endomorphism<HookContext>

/**
 * A hook that needs an effect (I/O, time, a service). It runs only under
 * `HookStack.intercept`.
 *
 * @since 0.1.0
 * @category models
 */
export interface EffectHook<E = unknown, R = never> {
  readonly _tag: "EffectHook"
  readonly run: (ctx: HookContext) => Effect.Effect<HookContext, E, R>
}

/**
 * Either kind of hook.
 *
 * @since 0.1.0
 * @category models
 */
export type AnyHook<E = unknown, R = never> = Hook | EffectHook<E, R>

/**
 * The services a hook needs: `never` for a pure hook.
 *
 * @since 0.1.0
 * @category models
 */
export type Requirements<H> = H extends EffectHook<any, infer R> ? R : never

/**
 * Returns its input.
 *
 * @since 0.1.0
 * @category constructors
 */
export const identity: Hook = getMonoid<HookContext>().empty

/**
 * Lifts an effectful function into a hook.
 *
 * @since 0.1.0
 * @category constructors
 */
export const effect = <E, R>(run: (ctx: HookContext) => Effect.Effect<HookContext, E, R>): EffectHook<E, R> =>
  Object.freeze({ _tag: "EffectHook", run })

/**
 * Lifts an async function; it gets an `AbortSignal` that fires when the run is
 * interrupted (a permission hook that is interrupted never allows the call).
 *
 * @since 0.1.0
 * @category constructors
 */
export const promise = (run: (ctx: HookContext, signal: AbortSignal) => Promise<HookContext>): EffectHook<unknown> =>
  effect((ctx) => Effect.tryPromise({ try: (signal) => run(ctx, signal), catch: (cause) => cause }))

/**
 * A hook that runs a side effect (logging, metrics) and returns its input unchanged.
 *
 * @since 0.1.0
 * @category constructors
 */
export const observe = (f: (ctx: HookContext) => void): Hook => (ctx) => {
  f(ctx)
  return ctx
}

/**
 * @since 0.1.0
 * @category guards
 */
export const isEffectHook = <E, R>(hook: AnyHook<E, R>): hook is EffectHook<E, R> =>
  typeof hook === "object" && hook !== null && hook._tag === "EffectHook"

/**
 * @since 0.1.0
 * @category guards
 */
export const isHook = (u: unknown): u is AnyHook<unknown, unknown> =>
  typeof u === "function" || (typeof u === "object" && u !== null && "_tag" in u && u._tag === "EffectHook")

/**
 * Runs `hook` only where `predicate` holds; elsewhere returns the input.
 *
 * @since 0.1.0
 * @category combinators
 */
export function when(predicate: (ctx: HookContext) => boolean, hook: Hook): Hook
export function when<E, R>(predicate: (ctx: HookContext) => boolean, hook: EffectHook<E, R>): EffectHook<E, R>
export function when<E, R>(predicate: (ctx: HookContext) => boolean, hook: AnyHook<E, R>): AnyHook<E, R> {
  if (isEffectHook(hook)) {
    return effect((ctx) => (predicate(ctx) ? hook.run(ctx) : Effect.succeed(ctx)))
  }
  return (ctx) => (predicate(ctx) ? hook(ctx) : ctx)
}

/**
 * Runs `hook` only for calls of the named tools (BeforeToolUse, AfterToolUse).
 *
 * @since 0.1.0
 * @category combinators
 */
export function forTools(names: ReadonlyArray<string>, hook: Hook): Hook
export function forTools<E, R>(names: ReadonlyArray<string>, hook: EffectHook<E, R>): EffectHook<E, R>
export function forTools<E, R>(names: ReadonlyArray<string>, hook: AnyHook<E, R>): AnyHook<E, R> {
  const set = new Set(names)
  const predicate = (ctx: HookContext) => ctx.toolCall !== undefined && set.has(ctx.toolCall.name)
  return isEffectHook(hook) ? when(predicate, hook) : when(predicate, hook)
}

/**
 * Pure hooks compose left to right: `concat(f, g)` runs `f`, then `g` on its output.
 *
 * @since 0.1.0
 * @category instances
 */
export const Monoid: M<Hook> = { concat: getMonoid<HookContext>().concat, empty: identity }

/**
 * One hook that runs the given hooks in order.
 *
 * @since 0.1.0
 * @category combinators
 */
export const sequence = (...hooks: ReadonlyArray<Hook>): Hook =>
  hooks.length === 0 ? identity : hooks.length === 1 ? hooks[0] as Hook : concatAll(Monoid)(hooks)
