/**
 * Hooks: pure `(ctx) => ctx` functions, and effectful hooks lifted from Effects or
 * Promises. Pure hooks form a monoid (the Endomorphism monoid): `sequence` composes
 * them, `identity` is the unit.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { getMonoid } from "fp-ts/lib/Endomorphism.js"
import type { Monoid as M } from "fp-ts/lib/Monoid.js"
import { concatAll } from "fp-ts/lib/Monoid.js"
import type { HookContext } from "./HookContext.js"

/**
 * A pure hook: no I/O, no clock, no randomness; expected conditions are returned as
 * data (a block, a stop signal), never thrown. `C` is the type of the per-run context
 * it reads (`ctx.runContext`, given with `agent.run(input, { context })`); an agent
 * built with the hook infers it.
 *
 * @since 0.1.0
 * @category models
 */
export type Hook<C = unknown> = (ctx: HookContext<C>) => HookContext

/**
 * A hook that needs an effect (I/O, time, a service). It runs only under
 * `HookStack.intercept`.
 *
 * @since 0.1.0
 * @category models
 */
export interface EffectHook<E = unknown, R = never, C = unknown> {
  readonly _tag: "EffectHook"
  readonly run: (ctx: HookContext<C>) => Effect.Effect<HookContext, E, R>
}

/**
 * Either kind of hook.
 *
 * @since 0.1.0
 * @category models
 */
export type AnyHook<E = unknown, R = never, C = any> = Hook<C> | EffectHook<E, R, C>

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
export const effect = <E, R, C = unknown>(
  run: (ctx: HookContext<C>) => Effect.Effect<HookContext, E, R>,
): EffectHook<E, R, C> => Object.freeze({ _tag: "EffectHook", run })

/**
 * Lifts an async function; it gets an `AbortSignal` that fires when the run is
 * interrupted (a permission hook that is interrupted never allows the call).
 *
 * @since 0.1.0
 * @category constructors
 */
export const promise = <C = unknown>(
  run: (ctx: HookContext<C>, signal: AbortSignal) => Promise<HookContext>,
): EffectHook<unknown, never, C> =>
  effect((ctx: HookContext<C>) => Effect.tryPromise({ try: (signal) => run(ctx, signal), catch: (cause) => cause }))

const ObserverTypeId: unique symbol = Symbol.for("@hookline/core/Hook/Observer") as never

// Marked so the stack knows the hook cannot change what it sees (a stream keeps the
// model's text live past an AfterInference observer; `HookStack.explain` says so).
const markObserver = <C>(hook: Hook<C>): Hook<C> => Object.freeze(Object.assign(hook, { [ObserverTypeId]: true as const }))

/**
 * A hook that runs a side effect (logging, metrics) and returns its input unchanged.
 * It is marked as an observer (`isObserver`): the loop relies on it never changing
 * the context, so an AfterInference observer keeps `textDeltas: "auto"` live.
 *
 * @since 0.1.0
 * @category constructors
 */
export const observe = <C = unknown>(f: (ctx: HookContext<C>) => void): Hook<C> =>
  markObserver((ctx: HookContext<C>) => {
    f(ctx)
    return ctx
  })

/**
 * Whether a hook was made with `observe` (or from observers only, with `when`,
 * `forTools` or `sequence`): it returns every context unchanged.
 *
 * @since 0.1.0
 * @category guards
 */
export const isObserver = (hook: unknown): boolean =>
  typeof hook === "function" && (hook as { readonly [ObserverTypeId]?: unknown })[ObserverTypeId] === true

/**
 * @since 0.1.0
 * @category guards
 */
export const isEffectHook = <E, R, C = any>(hook: AnyHook<E, R, C>): hook is EffectHook<E, R, C> =>
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
export function when<C = unknown>(predicate: (ctx: HookContext<C>) => boolean, hook: Hook<C>): Hook<C>
export function when<E, R, C = unknown>(
  predicate: (ctx: HookContext<C>) => boolean,
  hook: EffectHook<E, R, C>,
): EffectHook<E, R, C>
export function when<E, R, C>(predicate: (ctx: HookContext<C>) => boolean, hook: AnyHook<E, R, C>): AnyHook<E, R, C> {
  if (isEffectHook(hook)) {
    return effect((ctx: HookContext<C>) => (predicate(ctx) ? hook.run(ctx) : Effect.succeed(ctx)))
  }
  const guarded: Hook<C> = (ctx) => (predicate(ctx) ? hook(ctx) : ctx)
  return isObserver(hook) ? markObserver(guarded) : guarded
}

/**
 * Runs `hook` only for calls of the named tools (BeforeToolUse, AfterToolUse).
 *
 * @since 0.1.0
 * @category combinators
 */
export function forTools<C = unknown>(names: ReadonlyArray<string>, hook: Hook<C>): Hook<C>
export function forTools<E, R, C = unknown>(names: ReadonlyArray<string>, hook: EffectHook<E, R, C>): EffectHook<E, R, C>
export function forTools<E, R, C>(names: ReadonlyArray<string>, hook: AnyHook<E, R, C>): AnyHook<E, R, C> {
  const set = new Set(names)
  const predicate = (ctx: HookContext<C>) => ctx.toolCall !== undefined && set.has(ctx.toolCall.name)
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
export const sequence = <C = unknown>(...hooks: ReadonlyArray<Hook<C>>): Hook<C> => {
  if (hooks.length === 0) return identity as Hook<C>
  if (hooks.length === 1) return hooks[0] as Hook<C>
  const composed = concatAll(Monoid)(hooks as ReadonlyArray<Hook>) as Hook<C>
  return hooks.every(isObserver) ? markObserver(composed) : composed
}
