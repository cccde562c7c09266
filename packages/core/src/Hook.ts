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
import { HooklineError, invalidConfiguration } from "./AgentError.js"
import type { HookContext } from "./HookContext.js"
import { disarm } from "./internal/thenable.js"

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
 * The errors a hook may fail with: `never` for a pure hook.
 *
 * @since 0.1.0
 * @category models
 */
export type Errors<H> = H extends EffectHook<infer E, any> ? E : never

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

// An async function is only known as one when it was written `async`; any other
// function that returns a Promise is found when it returns (`settled`).
const isAsyncFunction = (f: unknown): boolean => {
  const tag = Object.prototype.toString.call(f)
  return tag === "[object AsyncFunction]" || tag === "[object AsyncGeneratorFunction]"
}

const refuse = (i: number, detail: string): never => {
  throw new HooklineError(invalidConfiguration(`hooks[${i}]`, detail))
}

// A pure hook inside a sequence whose return goes on to the next hook: a Promise it
// returns must not reach that hook (which would read a Promise as a context, and drop
// the hook's work and its rejection). The dispatcher checks the sequence's own return.
const settled = (hook: Hook, i: number): Hook => (ctx) => {
  const out = hook(ctx)
  if (out !== ctx && disarm(out)) {
    throw new Error(
      `hooks[${i}] of Hook.sequence returned a Promise (or another thenable): a pure hook returns a HookContext at once; lift an async function with Hook.promise`,
    )
  }
  return out
}

/**
 * One hook that runs the given hooks in order, each on what the previous returned.
 * Pure hooks give a pure hook (their `Monoid` fold); with any effectful hook
 * (`Hook.effect`, `Hook.promise`) among them, the sequence is an effectful hook that
 * fails with the first failure. An `async` function given as a pure hook is refused
 * here (`InvalidConfiguration` at `hooks[i]`: lift it with `Hook.promise`); a pure hook
 * that returns a Promise anyway fails the sequence when it does.
 *
 * @since 0.1.0
 * @category combinators
 */
export function sequence<C = unknown>(...hooks: ReadonlyArray<Hook<C>>): Hook<C>
export function sequence<const H extends ReadonlyArray<AnyHook<any, any, any>>>(
  ...hooks: H
): EffectHook<Errors<H[number]>, Requirements<H[number]>, any>
export function sequence(...hooks: ReadonlyArray<AnyHook<unknown, unknown>>): AnyHook<unknown, unknown> {
  hooks.forEach((hook, i) => {
    if (!isHook(hook)) refuse(i, "expected a function or an effectful hook (Hook.effect, Hook.promise)")
    if (isAsyncFunction(hook)) refuse(i, "an async function is not a pure hook: lift it with Hook.promise")
  })
  if (hooks.some(isEffectHook)) {
    const steps = hooks.map((hook, i) => isEffectHook(hook) ? hook.run : (ctx: HookContext) => Effect.sync(() => settled(hook, i)(ctx)))
    return effect((ctx: HookContext) => steps.reduce((acc: Effect.Effect<HookContext, unknown, unknown>, run) => Effect.flatMap(acc, run), Effect.succeed(ctx)))
  }
  const pure = hooks as ReadonlyArray<Hook>
  if (pure.length === 0) return identity
  if (pure.length === 1) return pure[0] as Hook
  // The last hook's return goes to the dispatcher, which checks it.
  const composed = concatAll(Monoid)(pure.map((hook, i) => (i === pure.length - 1 ? hook : settled(hook, i))))
  return pure.every(isObserver) ? markObserver(composed) : composed
}
