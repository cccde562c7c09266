/**
 * An immutable, priority-sorted stack of hooks. Higher priority runs first; equal
 * priorities keep registration order. Each trigger's list is resolved when the stack
 * is built, so a dispatch is a plain loop. A stack is an `Interceptor`.
 *
 * @since 0.1.0
 */
import { Clock, Duration, Effect } from "effect"
import { dual } from "effect/Function"
import * as t from "io-ts"
import * as N from "fp-ts/lib/number.js"
import { concatAll } from "fp-ts/lib/Monoid.js"
import * as Ord from "fp-ts/lib/Ord.js"
import * as RA from "fp-ts/lib/ReadonlyArray.js"
import type { Monoid } from "fp-ts/lib/Monoid.js"
import * as AgentError from "./AgentError.js"
import * as Hook from "./Hook.js"
import { stampUpdatedAt, type HookContext } from "./HookContext.js"
import { CurrentEventSink, type EventSink } from "./HookExecuted.js"
import * as HookTrigger from "./HookTrigger.js"
import * as HookTriggers from "./HookTriggers.js"
import * as WrapHook from "./WrapHook.js"
import { decodeOptions } from "./codecs/decode.js"
import type { InferenceResponse } from "./InferenceResponse.js"
import type { ToolExecution } from "./ToolExecution.js"
import { runInference as runInferenceChain, runToolUse as runToolUseChain } from "./stack/wrapChain.js"
import { finiteDuration } from "./internal/duration.js"
import { withinMaxLength } from "./internal/stringBound.js"
import { LoopWraps, lostWraps } from "./stack/loopWraps.js"
import { contextAtFailure as contextAtFailure_, dispatchPure, failuresOf as failuresOf_, type DispatchEnv } from "./stack/dispatch.js"
import { isPending, runMixed, thrown } from "./stack/mixed.js"

/**
 * What to do when a hook throws: fail the dispatch with `HookFailed`, or report it
 * and pass its input on unchanged.
 *
 * @since 0.1.0
 * @category models
 */
export type OnError = "fail" | "skip"

/**
 * @since 0.1.0
 * @category models
 */
export interface HookOptions {
  /** One trigger or a set (`HookTriggers.of(...)`). */
  readonly triggers: HookTrigger.HookTrigger | HookTriggers.HookTriggers
  /** Higher runs first. Default 0. */
  readonly priority?: number | undefined
  /** `area:what`; defaults to the function's name, else `hook#<n>`. */
  readonly name?: string | undefined
  /** Default 'fail'. */
  readonly onError?: OnError | undefined
  /**
   * Effectful hooks only (`Hook.effect`, `Hook.promise`): the longest the hook may take,
   * on the Effect clock (`"5 seconds"`, a number of ms). A hook that takes longer is
   * interrupted (a `Hook.promise` sees its signal abort) and fails with `HookFailed`
   * naming the timeout, under its `onError`. Default: no timeout.
   */
  readonly timeout?: Duration.Input | undefined
}

/**
 * One hook with its place in the stack.
 *
 * @since 0.1.0
 * @category models
 */
export interface Registration<R = never> {
  readonly hook: Hook.AnyHook<unknown, R>
  readonly name: string
  readonly triggers: HookTriggers.HookTriggers
  readonly priority: number
  readonly onError: OnError
  /** Milliseconds, for an effectful hook with a timeout. */
  readonly timeout?: number | undefined
}

/**
 * The resolved hooks of one trigger, in the order they run.
 *
 * @since 0.1.0
 * @category models
 */
export interface Resolved<R = never> {
  readonly registrations: ReadonlyArray<Registration<R>>
  /** Set only when every hook is pure: the functions, ready for a plain loop. */
  readonly pure: ReadonlyArray<Hook.Hook> | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface HookStack<R = never> {
  readonly _tag: "HookStack"
  /** In registration order. */
  readonly registrations: ReadonlyArray<Registration<R>>
  readonly resolved: Readonly<Record<HookTrigger.HookTrigger, Resolved<R>>>
  /** The Effect form of dispatch: runs effectful hooks too. */
  readonly intercept: (ctx: HookContext) => Effect.Effect<HookContext, AgentError.HookFailed, R>
  /** The synchronous form, for triggers with pure hooks only; `undefined` for the others. */
  readonly interceptSync: (ctx: HookContext, env?: DispatchEnv) => HookContext | undefined
  /**
   * Any trigger, as far as it goes at once: the context when every hook answered at once
   * (a pure hook, or an effectful one whose Effect is an `Exit`, as `Effect.succeed(ctx)`
   * is), else an Effect to run (the hooks from the first that waits on, or the failure,
   * an `Exit` when it came at once). Events go to `env.sink`, times come from `env.now`;
   * without `env.now` an effectful trigger is `intercept`.
   */
  readonly interceptNow: (ctx: HookContext, env?: DispatchEnv) => HookContext | Effect.Effect<HookContext, AgentError.HookFailed, R>
  /** Wrap hooks, in registration order. */
  readonly wrapRegistrations: ReadonlyArray<WrapRegistration<R>>
  /** Wrap hooks per point, outermost first. */
  readonly wraps: Readonly<Record<WrapHook.WrapPoint, ReadonlyArray<WrapRegistration<R>>>>
}

export type { DispatchEnv }

/**
 * Options of a wrap hook: its point comes from the hook itself.
 *
 * @since 0.1.0
 * @category models
 */
export interface WrapOptions {
  /** Higher is outer. Default 0. */
  readonly priority?: number | undefined
  /** `area:what`; defaults to `wrap#<n>`. */
  readonly name?: string | undefined
  /** Default 'fail'. */
  readonly onError?: OnError | undefined
}

/**
 * One wrap hook with its place in the stack.
 *
 * @since 0.1.0
 * @category models
 */
export interface WrapRegistration<R = never> {
  readonly wrap: WrapHook.WrapHook<unknown, R>
  readonly name: string
  readonly point: WrapHook.WrapPoint
  readonly priority: number
  readonly onError: OnError
}

interface Indexed<R> {
  readonly registration: Registration<R>
  readonly index: number
}

/**
 * Priority descending, then registration order.
 *
 * @since 0.1.0
 * @category instances
 */
export const RegistrationOrder: Ord.Ord<{ readonly priority: number; readonly index: number }> = concatAll(
  Ord.getMonoid<{ readonly priority: number; readonly index: number }>(),
)([
  Ord.contramap((r: { readonly priority: number }) => r.priority)(Ord.reverse(N.Ord)),
  Ord.contramap((r: { readonly index: number }) => r.index)(N.Ord),
])

const resolveTrigger = <R>(registrations: ReadonlyArray<Registration<R>>, trigger: HookTrigger.HookTrigger): Resolved<R> => {
  const indexed: ReadonlyArray<Indexed<R> & { readonly priority: number }> = registrations.flatMap((registration, index) =>
    registration.triggers.includes(trigger) ? [{ registration, index, priority: registration.priority }] : []
  )
  const ordered = RA.sort(RegistrationOrder)(indexed).map((i) => i.registration)
  // Left unfrozen on purpose: V8 reads frozen arrays markedly slower in optimized loops
  // (about 2x dispatch cost at 5 hooks, docs/performance.md). It is never exposed mutable.
  const pure = ordered.every((r) => !Hook.isEffectHook(r.hook)) ? ordered.map((r) => r.hook as Hook.Hook) : undefined
  return Object.freeze({ registrations: Object.freeze(ordered), pure })
}

const noWraps: ReadonlyArray<never> = Object.freeze([])

const resolveWraps = <R>(wraps: ReadonlyArray<WrapRegistration<R>>): Record<WrapHook.WrapPoint, ReadonlyArray<WrapRegistration<R>>> =>
  Object.freeze(Object.fromEntries(WrapHook.points.map((point) => {
    const indexed = wraps.flatMap((registration, index) => registration.point === point ? [{ registration, index, priority: registration.priority }] : [])
    return [point, indexed.length === 0 ? noWraps : Object.freeze(RA.sort(RegistrationOrder)(indexed).map((i) => i.registration))]
  }))) as Record<WrapHook.WrapPoint, ReadonlyArray<WrapRegistration<R>>>

const fromRegistrations = <R>(
  registrations: ReadonlyArray<Registration<R>>,
  wrapRegistrations: ReadonlyArray<WrapRegistration<R>> = noWraps,
): HookStack<R> => {
  const frozen = Object.freeze([...registrations])
  const frozenWraps = wrapRegistrations.length === 0 ? noWraps : Object.freeze([...wrapRegistrations])
  const resolved = Object.freeze(
    Object.fromEntries(HookTrigger.all.map((trigger) => [trigger, resolveTrigger(frozen, trigger)])),
  ) as Record<HookTrigger.HookTrigger, Resolved<R>>
  const intercept = (ctx: HookContext) => interceptResolved(resolved[ctx.trigger], ctx)
  const interceptSync = (ctx: HookContext, env?: DispatchEnv) => {
    const r = resolved[ctx.trigger]
    return r.pure === undefined ? undefined : r.pure.length === 0 ? ctx : dispatchPure(ctx.trigger, r.pure, r.registrations, ctx, env)
  }
  const interceptNow = (ctx: HookContext, env?: DispatchEnv): HookContext | Effect.Effect<HookContext, AgentError.HookFailed, R> => {
    const r = resolved[ctx.trigger]
    if (r.pure !== undefined) {
      if (r.pure.length === 0) return ctx
      try {
        return dispatchPure(ctx.trigger, r.pure, r.registrations, ctx, env)
      } catch (error) {
        return thrown(error)
      }
    }
    return env?.now === undefined ? intercept(ctx) : runMixed(r.registrations, ctx, env)
  }
  // A stack with wrap hooks checks that a loop calling it through a custom interceptor
  // runs its wraps (stack/loopWraps.ts); a stack without them has nothing to lose.
  const names = frozenWraps.map((w) => w.name)
  const stack: HookStack<R> = Object.freeze({
    _tag: "HookStack",
    registrations: frozen,
    resolved,
    intercept: frozenWraps.length === 0
      ? intercept
      : (ctx: HookContext) =>
        Effect.flatMap(LoopWraps, (loop) => (loop === undefined || loop === stack ? intercept(ctx) : Effect.die(lostWraps(names)))),
    interceptSync: frozenWraps.length === 0
      ? interceptSync
      : (ctx: HookContext, env?: DispatchEnv) => {
        const loop = env?.loopWraps
        if (loop !== undefined && loop !== stack) throw lostWraps(names)
        return interceptSync(ctx, env)
      },
    interceptNow: frozenWraps.length === 0
      ? interceptNow
      : (ctx: HookContext, env?: DispatchEnv) => {
        const loop = env?.loopWraps
        return loop !== undefined && loop !== stack ? Effect.die(lostWraps(names)) : interceptNow(ctx, env)
      },
    wrapRegistrations: frozenWraps,
    wraps: resolveWraps(frozenWraps),
  })
  return stack
}

/**
 * The stack with no hooks; the identity of `concat`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const empty: HookStack<never> = fromRegistrations<never>([])

const OptionsCodec = t.type({
  triggers: t.union([t.string, t.readonlyArray(t.string)]),
  priority: t.union([t.undefined, t.number]),
  name: t.union([t.undefined, t.string]),
  onError: t.union([t.undefined, t.literal("fail"), t.literal("skip")]),
  timeout: t.unknown,
})

const invalid = (path: string, detail: string): never => {
  throw new AgentError.HooklineError(AgentError.invalidConfiguration(path, detail))
}

// A name reaches the state (a failing hook's HookFailed names it), events and traces: it
// is held to the bound of every string that enters.
const checkName = (name: string | undefined): void => {
  if (name === undefined) return
  if (name.trim() === "") invalid("name", "expected a non-empty name")
  withinMaxLength(name, (length, limit) => invalid("name", `expected at most ${limit} characters, got ${length}`))
}

// The function's own name when it is a usable one: read as data (a getter is not run), a
// non-empty string within the bound (`withinMaxLength`, as a given name is checked); else
// the position's.
const ownName = (hook: unknown, position: number): string => {
  let own: unknown
  try {
    own = typeof hook === "function" ? Object.getOwnPropertyDescriptor(hook, "name")?.value : undefined
  } catch {
    own = undefined
  }
  const byPosition = (): string => `hook#${position}`
  return typeof own === "string" && own.trim() !== "" ? withinMaxLength(own, byPosition) : byPosition()
}

/**
 * Validates options into a registration. Throws `HooklineError(InvalidConfiguration)`
 * naming the bad field: configuration mistakes are caught when the stack is built,
 * never when it runs.
 *
 * @since 0.1.0
 * @category constructors
 */
export const registration = <E, R>(hook: Hook.AnyHook<E, R>, options: HookOptions, position = 0): Registration<R> => {
  if (!Hook.isHook(hook)) invalid("hook", "expected a function or an effectful hook")
  const decoded = decodeOptions(OptionsCodec, options)
  if (!decoded.ok) return invalid(decoded.path, decoded.detail)
  const { triggers, priority, name, onError, timeout } = decoded.value
  const list = typeof triggers === "string" ? [triggers] : triggers
  list.forEach((trigger, i) => {
    if (!HookTrigger.isHookTrigger(trigger)) {
      invalid(typeof triggers === "string" ? "triggers" : `triggers[${i}]`, `unknown trigger ${JSON.stringify(trigger)}`)
    }
  })
  if (list.length === 0) invalid("triggers", "expected at least one trigger")
  if (priority !== undefined && !Number.isFinite(priority)) invalid("priority", `expected a finite number, got ${priority}`)
  checkName(name)
  let timeoutMs: number | undefined
  if (timeout !== undefined) {
    if (!Hook.isEffectHook(hook)) {
      invalid("timeout", "a timeout applies to effectful hooks (Hook.effect, Hook.promise): a pure hook runs synchronously")
    }
    const duration = finiteDuration(timeout)
    if (typeof duration === "string") return invalid("timeout", duration)
    timeoutMs = Duration.toMillis(duration)
  }
  return Object.freeze({
    hook: hook as Hook.AnyHook<unknown, R>,
    name: name ?? ownName(hook, position),
    triggers: HookTriggers.of(...(list as ReadonlyArray<HookTrigger.HookTrigger>)),
    priority: priority ?? 0,
    onError: onError ?? "fail",
    ...(timeoutMs === undefined ? {} : { timeout: timeoutMs }),
  })
}

/**
 * A stack of the given registrations, in that registration order.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <R = never>(...registrations: ReadonlyArray<Registration<R>>): HookStack<R> => fromRegistrations(registrations)

const with_: {
  <H extends Hook.AnyHook<any, any>>(hook: H, options: HookOptions): <R>(self: HookStack<R>) => HookStack<R | Hook.Requirements<H>>
  <R, H extends Hook.AnyHook<any, any>>(self: HookStack<R>, hook: H, options: HookOptions): HookStack<R | Hook.Requirements<H>>
} = dual(3, <R, H extends Hook.AnyHook<any, any>>(self: HookStack<R>, hook: H, options: HookOptions) =>
  fromRegistrations<R | Hook.Requirements<H>>([
    ...self.registrations,
    registration(hook as Hook.AnyHook<unknown, Hook.Requirements<H>>, options, self.registrations.length),
  ], self.wrapRegistrations))

export {
  /**
   * A new stack with one more hook (`self` is unchanged).
   *
   * @since 0.1.0
   * @category combinators
   */
  with_ as with,
}

const WrapOptionsCodec = t.type({
  priority: t.union([t.undefined, t.number]),
  name: t.union([t.undefined, t.string]),
  onError: t.union([t.undefined, t.literal("fail"), t.literal("skip")]),
})

/**
 * Validates a wrap hook and its options into a registration. Throws
 * `HooklineError(InvalidConfiguration)` naming the bad field.
 *
 * @since 0.1.0
 * @category constructors
 */
export const wrapRegistration = <E, R>(
  wrap: WrapHook.WrapHook<E, R>,
  options: WrapOptions = {},
  position = 0,
): WrapRegistration<R> => {
  if (!WrapHook.isWrapHook(wrap)) invalid("wrap", "expected a wrap hook (WrapHook.inference or WrapHook.toolUse)")
  const decoded = decodeOptions(WrapOptionsCodec, options)
  if (!decoded.ok) return invalid(decoded.path, decoded.detail)
  const { priority, name, onError } = decoded.value
  if (priority !== undefined && !Number.isFinite(priority)) invalid("priority", `expected a finite number, got ${priority}`)
  checkName(name)
  return Object.freeze({
    wrap: wrap as WrapHook.WrapHook<unknown, R>,
    name: name ?? `wrap#${position}`,
    point: wrap.point,
    priority: priority ?? 0,
    onError: onError ?? "fail",
  })
}

/**
 * A new stack with one more wrap hook, at the point the hook was made for
 * (`WrapHook.inference`, `WrapHook.toolUse`).
 *
 * @since 0.1.0
 * @category combinators
 */
export const withWrap: {
  <W extends WrapHook.WrapHook<any, any>>(wrap: W, options?: WrapOptions): <R>(self: HookStack<R>) => HookStack<R | WrapHook.Requirements<W>>
  <R, W extends WrapHook.WrapHook<any, any>>(self: HookStack<R>, wrap: W, options?: WrapOptions): HookStack<R | WrapHook.Requirements<W>>
} = dual(
  (args) => isHookStack(args[0]),
  <R, W extends WrapHook.WrapHook<any, any>>(self: HookStack<R>, wrap: W, options?: WrapOptions) =>
    fromRegistrations<R | WrapHook.Requirements<W>>(self.registrations, [
      ...self.wrapRegistrations,
      wrapRegistration(wrap as WrapHook.WrapHook<unknown, WrapHook.Requirements<W>>, options, self.wrapRegistrations.length),
    ]),
)

/**
 * Whether the stack has wrap hooks at that point.
 *
 * @since 0.1.0
 * @category getters
 */
export const hasWraps = <R>(self: HookStack<R>, point: WrapHook.WrapPoint): boolean => self.wraps[point].length > 0

/**
 * A new stack without the hooks of that name.
 *
 * @since 0.1.0
 * @category combinators
 */
export const without: {
  (name: string): <R>(self: HookStack<R>) => HookStack<R>
  <R>(self: HookStack<R>, name: string): HookStack<R>
} = dual(2, <R>(self: HookStack<R>, name: string): HookStack<R> => {
  const kept = self.registrations.filter((r) => r.name !== name)
  const keptWraps = self.wrapRegistrations.filter((r) => r.name !== name)
  return kept.length === self.registrations.length && keptWraps.length === self.wrapRegistrations.length
    ? self
    : fromRegistrations(kept, keptWraps)
})

/**
 * Both stacks' hooks; `that`'s registrations come after `self`'s.
 *
 * @since 0.1.0
 * @category combinators
 */
export const concat: {
  <R2>(that: HookStack<R2>): <R>(self: HookStack<R>) => HookStack<R | R2>
  <R, R2>(self: HookStack<R>, that: HookStack<R2>): HookStack<R | R2>
} = dual(2, <R, R2>(self: HookStack<R>, that: HookStack<R2>): HookStack<R | R2> =>
  that.registrations.length === 0 && that.wrapRegistrations.length === 0
    ? self
    : self.registrations.length === 0 && self.wrapRegistrations.length === 0
      ? that
      : fromRegistrations<R | R2>(
        [...self.registrations, ...that.registrations],
        [...self.wrapRegistrations, ...that.wrapRegistrations],
      ))

/**
 * Stacks form a monoid under `concat` with `empty`.
 *
 * @since 0.1.0
 * @category instances
 */
export const getMonoid = <R = never>(): Monoid<HookStack<R>> => ({ concat: (x, y) => concat(x, y), empty })

/**
 * How one trigger's hooks will run.
 *
 * @since 0.1.0
 * @category models
 */
export interface Explained {
  /** A trigger, or a wrap point (its hooks listed outermost first). */
  readonly trigger: HookTrigger.HookTrigger | WrapHook.WrapPoint
  readonly hooks: ReadonlyArray<{
    readonly name: string
    readonly priority: number
    readonly onError: OnError
    readonly effectful: boolean
    /** Made with `Hook.observe`: it cannot change the context (a stream keeps text live past it). */
    readonly observer: boolean
  }>
}

/**
 * The resolved order per trigger, for the triggers that have hooks, then the wrap
 * points that have wrap hooks (outermost first; wrap hooks are effectful).
 *
 * @since 0.1.0
 * @category getters
 */
export const explain = <R>(self: HookStack<R>): ReadonlyArray<Explained> => [
  ...HookTrigger.all.flatMap((trigger) => {
    const list = self.resolved[trigger].registrations
    return list.length === 0 ? [] : [{
      trigger,
      hooks: list.map((r) => ({ name: r.name, priority: r.priority, onError: r.onError, effectful: Hook.isEffectHook(r.hook), observer: Hook.isObserver(r.hook) })),
    }]
  }),
  ...WrapHook.points.flatMap((point) => {
    const list = self.wraps[point]
    return list.length === 0 ? [] : [{
      trigger: point,
      hooks: list.map((r) => ({ name: r.name, priority: r.priority, onError: r.onError, effectful: true, observer: false })),
    }]
  }),
]

/**
 * The names of a trigger's hooks in the order they run.
 *
 * @since 0.1.0
 * @category getters
 */
export const order = <R>(self: HookStack<R>, trigger: HookTrigger.HookTrigger): ReadonlyArray<string> =>
  self.resolved[trigger].registrations.map((r) => r.name)

/**
 * Whether a trigger has an effectful hook (and so needs `intercept`).
 *
 * @since 0.1.0
 * @category getters
 */
export const isEffectful = <R>(self: HookStack<R>, trigger: HookTrigger.HookTrigger): boolean =>
  self.resolved[trigger].pure === undefined

/**
 * @since 0.1.0
 * @category guards
 */
export const isHookStack = (u: unknown): u is HookStack<unknown> =>
  typeof u === "object" && u !== null && "_tag" in u && u._tag === "HookStack"

/**
 * The context the failing hook of a `HookFailed` was given: what the hooks before it
 * in the same dispatch returned. Their state changes persist (the loop commits this
 * state), so a stop signal a guard raised is not lost when a later hook fails.
 * `undefined` for an error that did not come from a stack's dispatch.
 *
 * @since 0.1.0
 * @category getters
 */
export const contextAtFailure = (error: AgentError.HookFailed): HookContext | undefined => contextAtFailure_(error)

/**
 * Every failure of the dispatch a `HookFailed` ended, that error first. Only
 * AfterExecution has more than one: it is the run's `finally`, so a hook that fails
 * under 'fail' does not stop the hooks after it; the dispatch fails after all of them
 * ran, with the first failure.
 *
 * @since 0.1.0
 * @category getters
 */
export const failuresOf = (error: AgentError.HookFailed): ReadonlyArray<AgentError.HookFailed> => failuresOf_(error)

/**
 * Options of the synchronous run: an event sink, and the clock (epoch ms) that times
 * hooks and stamps `updatedAt`.
 *
 * @since 0.1.0
 * @category models
 */
export interface RunOptions {
  readonly sink?: EventSink | undefined
  readonly now?: (() => number) | undefined
}

/**
 * Runs the context's trigger synchronously, without the Effect runtime. Pure hooks
 * only: throws `HooklineError(HookIsEffectful)` if an effectful hook sits on that
 * trigger, and `HooklineError(HookFailed)` when a hook under 'fail' throws.
 *
 * @since 0.1.0
 * @category running
 */
export const run = <R>(self: HookStack<R>, ctx: HookContext, options?: RunOptions): HookContext => {
  const resolved = self.resolved[ctx.trigger]
  if (resolved.pure === undefined) {
    const first = resolved.registrations.find((r) => Hook.isEffectHook(r.hook)) as Registration<R>
    throw new AgentError.HooklineError(AgentError.hookIsEffectful(first.name, ctx.trigger))
  }
  return resolved.pure.length === 0 ? ctx : dispatchPure(ctx.trigger, resolved.pure, resolved.registrations, ctx, options)
}

/**
 * Runs the context's trigger as an Effect, effectful hooks included; events go to
 * `HookExecuted.CurrentEventSink` and times come from the Effect `Clock`.
 *
 * @since 0.1.0
 * @category running
 */
export const intercept: {
  (ctx: HookContext): <R>(self: HookStack<R>) => Effect.Effect<HookContext, AgentError.HookFailed, R>
  <R>(self: HookStack<R>, ctx: HookContext): Effect.Effect<HookContext, AgentError.HookFailed, R>
} = dual(2, <R>(self: HookStack<R>, ctx: HookContext) => self.intercept(ctx))

const interceptResolved = <R>(
  resolved: Resolved<R>,
  input: HookContext,
): Effect.Effect<HookContext, AgentError.HookFailed, R> => {
  if (resolved.registrations.length === 0) return Effect.succeed(input)
  return Clock.clockWith((clock) =>
    Effect.flatMap(CurrentEventSink, (sink) => {
      const env: DispatchEnv = { sink, now: () => clock.currentTimeMillisUnsafe() }
      if (resolved.pure !== undefined) {
        try {
          return Effect.succeed(dispatchPure(input.trigger, resolved.pure, resolved.registrations, input, env))
        } catch (error) {
          return thrown(error)
        }
      }
      const out = runMixed(resolved.registrations, input, env)
      return isPending(out) ? out : Effect.succeed(out)
    })
  )
}

const wrapEnv = <A, E, R>(env: DispatchEnv | undefined, f: (env: DispatchEnv) => Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  env !== undefined
    ? f(env)
    : Clock.clockWith((clock) => Effect.flatMap(CurrentEventSink, (sink) => f({ sink, now: () => clock.currentTimeMillisUnsafe() })))

/**
 * Runs the `WrapInference` hooks around a model call: `call` is the call itself, which
 * the innermost `next` reaches. `ctx` is the BeforeInference context (with `request`).
 * Events go to `env.sink` (else `HookExecuted.CurrentEventSink`).
 *
 * @since 0.1.0
 * @category running
 */
export const wrapInference = <R>(
  self: HookStack<R>,
  ctx: HookContext,
  call: (ctx: HookContext, options: WrapHook.CallOptions | undefined) => Effect.Effect<InferenceResponse, AgentError.InferenceFailed>,
  env?: DispatchEnv,
): Effect.Effect<InferenceResponse, AgentError.InferenceFailed | AgentError.HookFailed, R> => {
  const entries = self.wraps.WrapInference
  return entries.length === 0 ? call(ctx, undefined) : wrapEnv(env, (e) => runInferenceChain(entries, ctx, call, e))
}

/**
 * Runs the `WrapToolUse` hooks around a tool execution: `call` runs the tool. `ctx` is
 * the BeforeToolUse context (with `toolCall`).
 *
 * @since 0.1.0
 * @category running
 */
export const wrapToolUse = <R>(
  self: HookStack<R>,
  ctx: HookContext,
  call: (ctx: HookContext) => Effect.Effect<ToolExecution>,
  env?: DispatchEnv,
): Effect.Effect<ToolExecution, AgentError.HookFailed, R> => {
  const entries = self.wraps.WrapToolUse
  return entries.length === 0 ? call(ctx) : wrapEnv(env, (e) => runToolUseChain(entries, ctx, call, e))
}
