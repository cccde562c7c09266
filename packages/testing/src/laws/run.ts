/**
 * Runs a law as a fast-check property over generated contexts and turns a failure
 * into a `LawFailed` whose message names the law, the hook, the trigger, what went
 * wrong, the shrunk counterexample and the seed and path that replay it.
 *
 * @since 0.1.0
 */
import { Codecs, HookContext, HookTrigger, type Hook } from "@hookline/core"
import fc from "fast-check"
import * as Arbitraries from "../Arbitraries.js"
import { canonical } from "../internal/inspect.js"
import type { Law, LawName } from "./Law.js"

/**
 * Where and how hard the laws are checked. The options a hook is registered with
 * (`{ triggers, name, ... }`) fit here as they are. `C` is the type of the run context
 * the hook reads (`ctx.runContext`).
 *
 * @since 0.1.0
 * @category models
 */
export interface Options<C = unknown> {
  /** The triggers the hook runs on; contexts of these are generated. Default: every trigger. */
  readonly triggers?: HookTrigger | ReadonlyArray<HookTrigger> | undefined
  /** The hook's name in reports. Default: the function's name. */
  readonly name?: string | undefined
  /** Sizes and aims of the generated contexts. */
  readonly arbitraries?: Arbitraries.Options<C> | undefined
  /** Contexts to check on instead of the generated ones (e.g. `Arbitraries.hookContext(t, { toolNames })` filtered). */
  readonly contexts?: fc.Arbitrary<HookContext<C>> | undefined
  /** Cases per law. Default fast-check's (100, or `fc.configureGlobal`'s). */
  readonly numRuns?: number | undefined
  /** Replays a failure: the seed and path its report gave. */
  readonly seed?: number | undefined
  readonly path?: string | undefined
}

/**
 * What checking a hook that reads a typed run context (`Hook<C>`) needs besides the
 * other options: the generator of that context (`arbitraries.runContext`), or the
 * contexts themselves. Without it the laws would call the hook with a run context
 * that is absent or any JSON value, which a `Hook<C>` does not accept.
 *
 * @since 0.1.0
 * @category models
 */
export type RunContextGiven<C> =
  | { readonly arbitraries: Arbitraries.WithRunContext<C> }
  | { readonly contexts: fc.Arbitrary<HookContext<C>> }

/**
 * A law that does not hold: thrown by `check` and the law functions.
 *
 * @since 0.1.0
 * @category errors
 */
export class LawFailed extends Error {
  override readonly name = "LawFailed"
  constructor(
    readonly law: LawName,
    /** What went wrong on the shrunk counterexample. */
    readonly reason: string,
    /** The trigger of the counterexample. */
    readonly trigger: HookTrigger | undefined,
    /** The shrunk counterexample: the context and the law's extra input. */
    readonly counterexample: { readonly context: HookContext; readonly extra: unknown } | undefined,
    readonly seed: number,
    readonly path: string | undefined,
    message: string,
  ) {
    super(message)
  }
}

/** @internal */
export const triggersOf = (options: Options): ReadonlyArray<HookTrigger> => {
  const t = options.triggers
  return t === undefined ? HookTrigger.all : typeof t === "string" ? [t] : t.length === 0 ? HookTrigger.all : t
}

const encodeForReport = (ctx: unknown): string => {
  if (HookContext.isHookContext(ctx)) {
    try {
      // The codec never encodes the run's context (it is never stored): shown beside.
      const encoded = Codecs.encode(Codecs.HookContext, ctx)
      return JSON.stringify(ctx.runContext === undefined ? encoded : { ...encoded, runContext: ctx.runContext }, null, 2)
    } catch {
      // Not encodable (a hand-made context): fall through to the canonical text.
    }
  }
  return canonical(ctx)
}

const indent = (text: string) => text.replace(/\n/g, "\n  ")

/** @internal what a failing case throws inside the property. */
export class Violation extends Error {}

/** @internal */
export interface Run {
  readonly failure: LawFailed | undefined
  /** Whether some case exercised the law (always true for laws that cannot hold vacuously). */
  readonly exercised: boolean
  readonly numRuns: number
  readonly seed: number
}

/** @internal */
export const labelOf = (hook: Hook, options: Options) => options.name ?? (hook.name === "" ? "hook" : hook.name)

/**
 * @internal the laws check a hook under a run's context too (absent or a JSON value),
 * unless the options give the context's own shape.
 */
export const withRunContext = (arbitraries: Arbitraries.Options | undefined): Arbitraries.Options =>
  arbitraries?.runContext !== undefined
    ? arbitraries
    : { ...arbitraries, runContext: fc.option(Arbitraries.json(arbitraries), { nil: undefined }) }

/** @internal runs a law; vacuity is left to the caller. */
export const runLaw = <X>(law: Law<X>, hook: Hook, options: Options): Run => {
  const triggers = triggersOf(options).filter(law.appliesTo)
  if (triggers.length === 0) return { failure: undefined, exercised: law.exercised === undefined, numRuns: 0, seed: options.seed ?? 0 }
  const label = labelOf(hook, options)
  const contexts = options.contexts ?? Arbitraries.hookContextOf(triggers, withRunContext(options.arbitraries))
  let exercised = law.exercised === undefined
  const prepare = (ctx: HookContext, extra: X) => (law.prepare === undefined ? ctx : law.prepare(ctx, extra))
  const extras = typeof law.extra === "function" ? law.extra({ triggers, arbitraries: options.arbitraries, contexts: options.contexts }) : law.extra
  const property = fc.property(contexts, extras, (generated, extra) => {
    if (!law.appliesTo(generated.trigger)) return
    const ctx = prepare(generated, extra)
    const violation = law.check(hook, ctx, extra)
    if (violation !== undefined) throw new Violation(violation)
    if (!exercised && law.exercised?.(hook, ctx, extra) === true) exercised = true
  })
  const details = fc.check(property, {
    ...(options.numRuns !== undefined ? { numRuns: options.numRuns } : law.defaultNumRuns !== undefined ? { numRuns: law.defaultNumRuns } : {}),
    ...(options.seed === undefined ? {} : { seed: options.seed }),
    ...(options.path === undefined ? {} : { path: options.path }),
    ...(options.path !== undefined || law.shrinks === false ? { endOnFailure: true } : {}),
  })
  if (!details.failed) {
    return { failure: undefined, exercised: exercised || options.path !== undefined, numRuns: details.numRuns, seed: details.seed }
  }
  const failure = failureOf(law, label, details, prepare)
  return { failure, exercised, numRuns: details.numRuns, seed: details.seed }
}

/** @internal the `LawFailed` of a failed fast-check run of a law. */
export const failureOf = <X>(
  law: Law<X>,
  label: string,
  details: fc.RunDetails<[HookContext, X]>,
  prepare: (ctx: HookContext, extra: X) => HookContext,
  replay: string = law.name === "commutes" ? "HookLaws.commutes(hook, other, { %s })" : `HookLaws.${law.name}(hook, { %s })`,
): LawFailed => {
  const [generated, extra] = (details.counterexample ?? [undefined, undefined]) as [HookContext | undefined, X]
  const context = generated === undefined ? undefined : prepare(generated, extra)
  const error = details.errorInstance
  const reason = error instanceof Violation
    ? error.message
    : `the check itself threw: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`
  const trigger = context?.trigger
  const seedAndPath = `seed: ${details.seed}, path: ${JSON.stringify(details.counterexamplePath)}`
  const call = replay.replace("%s", seedAndPath)
  const lines = [
    `HookLaws.${law.name} failed for ${JSON.stringify(label)}${trigger === undefined ? "" : ` on ${trigger}`}: ${reason}`,
    `Property failed after ${details.numRuns} test(s), shrunk ${details.numShrinks} time(s).`,
    `Replay: ${call}, or fast-check's { ${seedAndPath}, endOnFailure: true }`,
    "Counterexample:",
    `  context: ${indent(encodeForReport(context))}`,
    ...(extra === undefined || law.prepare !== undefined ? [] : [`  extra: ${indent(fc.stringify(extra))}`]),
  ]
  return new LawFailed(
    law.name,
    reason,
    trigger,
    context === undefined ? undefined : { context, extra },
    details.seed,
    details.counterexamplePath ?? undefined,
    lines.join("\n"),
  )
}

/** @internal the failure of a law that no case exercised (a guard that never fired). */
export const neverExercised = (
  law: LawName,
  label: string,
  triggers: ReadonlyArray<HookTrigger>,
  runs: number,
  seed: number,
): LawFailed => {
  const reason = `it was never exercised: the guard never raised a signal of the declared source and reason on ${runs} `
    + `generated contexts of ${triggers.join(", ")}, even as each run went on (up to 60 more steps, 300k tokens, 20 minutes)`
  return new LawFailed(
    law,
    reason,
    undefined,
    undefined,
    seed,
    undefined,
    `HookLaws.${law} failed for ${JSON.stringify(label)}: ${reason}. A law that never applied proves nothing: `
      + "check the declaration (source, reason), or give contexts where the guard fires (options.contexts).",
  )
}

/**
 * Runs one law over generated contexts: `undefined` when it holds, the failure
 * otherwise (nothing is thrown). The law functions and `check` throw it.
 *
 * @since 0.1.0
 * @category running
 */
export const verify: {
  <X, C>(law: Law<X>, hook: Hook<C>, options: Options<C> & RunContextGiven<C>): LawFailed | undefined
  <X>(law: Law<X>, hook: Hook, options?: Options): LawFailed | undefined
} = <X>(law: Law<X>, hook: Hook, options: Options = {}): LawFailed | undefined => {
  const run = runLaw(law, hook, options)
  if (run.failure !== undefined) return run.failure
  if (run.exercised || run.numRuns === 0) return undefined
  return neverExercised(law.name, labelOf(hook, options), triggersOf(options).filter(law.appliesTo), run.numRuns, run.seed)
}
