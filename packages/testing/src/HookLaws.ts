/**
 * Checks a pure hook (or a whole stack) against the laws of hooks, over generated
 * contexts, with fast-check: shrinking finds a small counterexample, and a failure
 * throws a `LawFailed` whose message starts with `HookLaws.<law> failed`, then says
 * what went wrong, the shrunk context, and the seed and path that replay it.
 *
 * ```ts
 * it("denyShell obeys the laws", () => {
 *   HookLaws.check(denyShell, { triggers: "BeforeToolUse", idempotent: true })
 * })
 * ```
 *
 * @since 0.1.0
 */
import { HookStack, HookTrigger, type Hook, type HookContext } from "@hookline/core"
import { isDeepFrozen as isDeepFrozen_ } from "./internal/inspect.js"
import {
  deterministic as deterministic_,
  immutable as immutable_,
  keepsTrigger as keepsTrigger_,
  noHiddenState as noHiddenState_,
  returnsFrozen as returnsFrozen_,
} from "./laws/basic.js"
import {
  blockStaysBlocked as blockStaysBlocked_,
  commutes as commutes_,
  guardStaysFired as guardStaysFired_,
  idempotent as idempotent_,
  progress as progress_,
  type GuardDeclaration,
  type GuardRun,
  type Progress,
} from "./laws/declared.js"
import { verifyEffect, type EffectfulHook } from "./laws/effect.js"
import type { Law, LawName } from "./laws/Law.js"
import { LawFailed, neverExercised, runLaw, triggersOf, verify, type Options, type RunContextGiven } from "./laws/run.js"

export type { EffectfulHook, GuardDeclaration, GuardRun, Law, LawName, Options, Progress, RunContextGiven }
export { LawFailed, verify }
export { checkWrap } from "./laws/wrap.js"

/**
 * The laws as data, to run one case inside any test:
 * `expect(HookLaws.laws.keepsTrigger.check(hook, ctx)).toBeUndefined()`.
 *
 * @since 0.1.0
 * @category laws
 */
export const laws = Object.freeze({
  immutable: immutable_,
  keepsTrigger: keepsTrigger_,
  returnsFrozen: returnsFrozen_,
  deterministic: deterministic_,
  noHiddenState: noHiddenState_,
  blockStaysBlocked: blockStaysBlocked_,
  idempotent: idempotent_,
  guardStaysFired: guardStaysFired_,
  commutes: commutes_,
})

/**
 * The laws every pure hook obeys, in the order `check` runs them.
 *
 * @since 0.1.0
 * @category laws
 */
export const universal: ReadonlyArray<Law<any>> = Object.freeze([immutable_, keepsTrigger_, returnsFrozen_, deterministic_, noHiddenState_, blockStaysBlocked_])

/**
 * Whether a value and everything reachable from it (AppendLog items included) is frozen.
 *
 * @since 0.1.0
 * @category guards
 */
export const isDeepFrozen: (value: unknown) => boolean = isDeepFrozen_

/**
 * The context a run reaches after more steps, tokens and time (what `guardStaysFired` uses).
 *
 * @since 0.1.0
 * @category combinators
 */
export const progress: (ctx: HookContext, hop: Progress) => HookContext = progress_

/**
 * What `check` verifies beyond the universal laws, as the hook declares it.
 *
 * @since 0.1.0
 * @category models
 */
export interface CheckOptions<C = unknown> extends Options<C> {
  /** The hook is a guard: its stop signal (of this source and reason, if given) stays raised. */
  readonly guard?: boolean | GuardDeclaration | undefined
  /** The hook is idempotent: `h(h(x))` equals `h(x)`. */
  readonly idempotent?: boolean | undefined
  /** Hooks this one is independent of: it commutes with each. */
  readonly independentOf?: Hook<C> | ReadonlyArray<Hook<C>> | undefined
}

/**
 * A law's checker. A hook of any run context (`Hook`) is checked under a generated one
 * (absent or a frozen JSON value); a hook that reads a typed one (`Hook<C>`) needs its
 * generator, `arbitraries: { runContext }` (or `contexts`), and is then called only with
 * run contexts of type `C`: no cast, and no need to accept `undefined`.
 *
 * ```ts
 * const runContext = fc.record({ role: fc.constantFrom("admin", "viewer") })
 * HookLaws.immutable(viewersNoShell, { arbitraries: { runContext } }) // viewersNoShell: Hook<Caller>
 * ```
 *
 * @since 0.1.0
 * @category models
 */
export interface Checker<Extra = {}> {
  <C>(hook: Hook<C>, options: Options<C> & Extra & RunContextGiven<C>): void
  (hook: Hook, options?: Options & Extra): void
}

/**
 * What a passing check covered.
 *
 * @since 0.1.0
 * @category models
 */
export interface Report {
  readonly laws: ReadonlyArray<{ readonly law: LawName; readonly triggers: ReadonlyArray<HookTrigger> }>
}

const assertLaw = <X>(law: Law<X>, hook: Hook, options: Options): void => {
  const failure = verify(law, hook, options)
  if (failure !== undefined) throw failure
}

/**
 * Same input, equal output (no clock, no randomness, no state between calls), also
 * after the hook ran on other contexts (no state hidden in a closure).
 *
 * @since 0.1.0
 * @category laws
 */
export const deterministic: Checker = (hook: Hook, options: Options = {}): void => {
  assertLaw(deterministic_, hook, options)
  assertLaw(noHiddenState_, hook, options)
}

/**
 * The same context gives the same result after the hook ran on other contexts of its
 * triggers: no cache or counter hidden in a closure. Part of `deterministic` and `check`.
 *
 * @since 0.1.0
 * @category laws
 */
export const noHiddenState: Checker = (hook: Hook, options: Options = {}): void => assertLaw(noHiddenState_, hook, options)

/**
 * Never mutates its input.
 *
 * @since 0.1.0
 * @category laws
 */
export const immutable: Checker = (hook: Hook, options: Options = {}): void => assertLaw(immutable_, hook, options)

/**
 * Returns a HookContext of the trigger it was given.
 *
 * @since 0.1.0
 * @category laws
 */
export const keepsTrigger: Checker = (hook: Hook, options: Options = {}): void => assertLaw(keepsTrigger_, hook, options)

/**
 * Returns deeply frozen data.
 *
 * @since 0.1.0
 * @category laws
 */
export const returnsFrozen: Checker = (hook: Hook, options: Options = {}): void => assertLaw(returnsFrozen_, hook, options)

/**
 * A guard that fired stays fired (now and later in the run). Fails too when the guard
 * never fires on the generated runs: a law that never applied proves nothing.
 *
 * @since 0.1.0
 * @category laws
 */
export const guardStaysFired: Checker<GuardDeclaration> = (hook: Hook, options: Options & GuardDeclaration = {}): void =>
  assertLaw(guardStaysFired_({ source: options.source, reason: options.reason }), hook, options)

/**
 * A blocked tool call stays blocked with the same reason (BeforeToolUse, AfterToolUse).
 *
 * @since 0.1.0
 * @category laws
 */
export const blockStaysBlocked: Checker = (hook: Hook, options: Options = {}): void => assertLaw(blockStaysBlocked_, hook, options)

type OtherName = { readonly otherName?: string | undefined }

/**
 * Two hooks declared independent commute: `b(a(x))` equals `a(b(x))`.
 *
 * @since 0.1.0
 * @category laws
 */
export const commutes: {
  <C>(hook: Hook<C>, other: Hook<C>, options: Options<C> & OtherName & RunContextGiven<C>): void
  (hook: Hook, other: Hook, options?: Options & OtherName): void
} = (hook: Hook, other: Hook, options: Options & OtherName = {}): void =>
  assertLaw(commutes_(other, options.otherName), hook, options)

/**
 * `h(h(x))` equals `h(x)`.
 *
 * @since 0.1.0
 * @category laws
 */
export const idempotent: Checker = (hook: Hook, options: Options = {}): void => assertLaw(idempotent_, hook, options)

const declaredLaws = (options: CheckOptions): ReadonlyArray<Law<any>> => {
  const guard = options.guard === undefined || options.guard === false
    ? []
    : [guardStaysFired_(options.guard === true ? {} : options.guard)]
  const others = options.independentOf === undefined
    ? []
    : typeof options.independentOf === "function"
      ? [options.independentOf]
      : options.independentOf
  return [
    ...universal,
    ...guard,
    ...(options.idempotent === true ? [idempotent_] : []),
    ...others.map((other, i) => commutes_(other, other.name || `independentOf[${i}]`)),
  ]
}

/**
 * Checks every law that applies: the universal ones (immutable, keepsTrigger,
 * returnsFrozen, deterministic, and blockStaysBlocked on tool triggers), then the
 * declared ones (guard, idempotent, independentOf). Throws the first `LawFailed`.
 * A hook that reads a typed run context (`Hook<C>`) is checked with its generator,
 * `arbitraries: { runContext }`, and needs no cast (see `Checker`).
 *
 * @since 0.1.0
 * @category running
 */
export const check: {
  <C>(hook: Hook<C>, options: CheckOptions<C> & RunContextGiven<C>): Report
  (hook: Hook, options?: CheckOptions): Report
} = (hook: Hook, options: CheckOptions = {}): Report => {
  const covered: Array<{ law: LawName; triggers: ReadonlyArray<HookTrigger> }> = []
  for (const law of declaredLaws(options)) {
    const triggers = triggersOf(options).filter(law.appliesTo)
    if (triggers.length === 0) continue
    assertLaw(law, hook, options)
    covered.push({ law: law.name, triggers })
  }
  return { laws: covered }
}

/**
 * What `checkStack` covered, and the triggers it skipped (with why).
 *
 * @since 0.1.0
 * @category models
 */
export interface StackReport {
  readonly checked: ReadonlyArray<{ readonly trigger: HookTrigger; readonly hooks: ReadonlyArray<string>; readonly laws: ReadonlyArray<LawName> }>
  readonly skipped: ReadonlyArray<{ readonly trigger: HookTrigger; readonly reason: string }>
}

/**
 * Checks a whole stack: for every trigger that has hooks, `HookStack.run` over
 * generated contexts of that trigger must obey the laws (the universal ones, and the
 * declared ones: `guard`, `idempotent`, `independentOf`). Throws the first
 * `LawFailed`, naming the trigger; triggers with an effectful hook are skipped (the
 * laws are about pure hooks) and listed in the report.
 *
 * @since 0.1.0
 * @category running
 */
export const checkStack = <R>(stack: HookStack.HookStack<R>, options: CheckOptions = {}): StackReport => {
  const wanted = new Set(triggersOf(options))
  const checked: Array<StackReport["checked"][number]> = []
  const skipped: Array<StackReport["skipped"][number]> = []
  let guardRuns = 0
  let guardExercised = false
  let guardSeed = 0
  for (const trigger of HookTrigger.all) {
    const hooks = HookStack.order(stack, trigger)
    if (hooks.length === 0 || !wanted.has(trigger)) continue
    if (HookStack.isEffectful(stack, trigger)) {
      const effectful = HookStack.explain(stack).find((e) => e.trigger === trigger)?.hooks.find((h) => h.effectful)?.name
      skipped.push({ trigger, reason: `effectful hook "${effectful}": the laws are checked on pure hooks (HookStack.run)` })
      continue
    }
    const run: Hook = (ctx) => HookStack.run(stack, ctx)
    const scoped: CheckOptions = { ...options, triggers: [trigger], name: options.name ?? `stack [${hooks.join(", ")}]` }
    const names: Array<LawName> = []
    for (const law of declaredLaws(options)) {
      if (!law.appliesTo(trigger)) continue
      const result = runLaw(law, run, scoped)
      if (result.failure !== undefined) throw result.failure
      if (law.exercised !== undefined) {
        guardRuns += result.numRuns
        guardSeed = result.seed
        guardExercised ||= result.exercised
      }
      names.push(law.name)
    }
    checked.push({ trigger, hooks, laws: names })
  }
  // A guard declared for the stack must fire on some trigger, not on each.
  const guardLaw = declaredLaws(options).find((law) => law.exercised !== undefined)
  if (guardLaw !== undefined && guardRuns > 0 && !guardExercised) {
    throw neverExercised(guardLaw.name, options.name ?? "stack", checked.map((c) => c.trigger), guardRuns, guardSeed)
  }
  return { checked, skipped }
}

/**
 * `check` for an effectful hook (`Hook.promise`, `Hook.effect`): the same laws, each
 * case running the real hook (awaited) once per call a law makes, in order. A
 * rejected promise or a failed Effect counts as a throw. Resolves with the report,
 * rejects with the first `LawFailed`. The clock and random source are not controlled
 * while the hook runs (use Effect's `Clock` with `TestClock` for time); `Hook.effect`
 * hooks that need services get them with `Effect.provide` before the check.
 *
 * ```ts
 * await HookLaws.checkEffect(Hook.promise(async (ctx) => ctx), { triggers: "BeforeToolUse", idempotent: true })
 * ```
 *
 * @since 0.1.0
 * @category running
 */
export const checkEffect: {
  <C>(hook: Hook.EffectHook<unknown, never, C>, options: CheckOptions<C> & RunContextGiven<C>): Promise<Report>
  (hook: EffectfulHook, options?: CheckOptions): Promise<Report>
} = async (hook: EffectfulHook, options: CheckOptions = {}): Promise<Report> => {
  const covered: Array<{ law: LawName; triggers: ReadonlyArray<HookTrigger> }> = []
  for (const law of declaredLaws(options)) {
    const triggers = triggersOf(options).filter(law.appliesTo)
    if (triggers.length === 0) continue
    const failure = await verifyEffect(law, hook, options)
    if (failure !== undefined) throw failure
    covered.push({ law: law.name, triggers })
  }
  return { laws: covered }
}
