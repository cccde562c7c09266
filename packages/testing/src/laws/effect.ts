/**
 * The laws for effectful hooks (`Hook.promise`, `Hook.effect`). Each law's check is
 * the pure one, run against a synchronous stand-in that replays what the effect gave:
 * the check runs, the first call the stand-in cannot answer yet runs the real hook
 * (awaited), and the check runs again, until every call it makes has its answer. So
 * each call of the check is one real run of the hook, in the check's order, and a
 * rejected promise or a failed effect is a throw.
 *
 * What the effect world cannot give: the clock and random source are not swapped
 * during the awaited run (use Effect's `Clock` and `TestClock` for time), and a write
 * to the input shows when it hits the frozen input (a `TypeError`), not on a copy.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import type { Hook, HookContext } from "@hookline/core"
import fc from "fast-check"
import * as Arbitraries from "../Arbitraries.js"
import type { Law } from "./Law.js"
import { failureOf, triggersOf, Violation, withRunContext, type LawFailed, type Options } from "./run.js"

/** A hook whose Effect needs no service: provide them (`Effect.provide`) before checking. */
export type EffectfulHook = Hook.EffectHook<unknown, never>

class Pending {}

type Answer = { readonly _tag: "Returned"; readonly value: HookContext } | { readonly _tag: "Threw"; readonly error: unknown }

const runOnce = async (hook: EffectfulHook, input: HookContext): Promise<Answer> => {
  try {
    return { _tag: "Returned", value: await Effect.runPromise(hook.run(input)) }
  } catch (error) {
    return { _tag: "Threw", error }
  }
}

// Calls beyond this in one check would mean the check does not settle: a bug.
const maxCalls = 64

/**
 * Runs one law's check on one case against the effectful hook; what the check says.
 *
 * @internal
 */
export const checkCase = async <X>(law: Law<X>, hook: EffectfulHook, ctx: HookContext, extra: X): Promise<string | undefined> => {
  const answers: Array<Answer> = []
  for (;;) {
    let calls = 0
    let pending: HookContext | undefined
    const standIn: Hook = (input) => {
      const answer = answers[calls++]
      if (answer === undefined) {
        pending ??= input
        throw new Pending()
      }
      if (answer._tag === "Threw") throw answer.error
      return answer.value
    }
    let verdict: string | undefined
    try {
      verdict = law.check(standIn, ctx, extra)
    } catch (error) {
      if (pending === undefined) throw error
    }
    if (pending === undefined) return verdict
    if (answers.length >= maxCalls) return `the check called the hook more than ${maxCalls} times`
    answers.push(await runOnce(hook, pending))
  }
}

/**
 * Runs a law over generated contexts against an effectful hook.
 *
 * @internal
 */
export const verifyEffect = async <X>(law: Law<X>, hook: EffectfulHook, options: Options): Promise<LawFailed | undefined> => {
  const triggers = triggersOf(options).filter(law.appliesTo)
  if (triggers.length === 0) return undefined
  const contexts = options.contexts ?? Arbitraries.hookContextOf(triggers, withRunContext(options.arbitraries))
  const prepare = (ctx: HookContext, extra: X) => (law.prepare === undefined ? ctx : law.prepare(ctx, extra))
  const extras = typeof law.extra === "function" ? law.extra({ triggers, arbitraries: options.arbitraries, contexts: options.contexts }) : law.extra
  const property = fc.asyncProperty(contexts, extras, async (generated, extra) => {
    if (!law.appliesTo(generated.trigger)) return
    const violation = await checkCase(law, hook, prepare(generated, extra), extra)
    if (violation !== undefined) throw new Violation(violation)
  })
  const details = await fc.check(property, {
    ...(options.numRuns !== undefined ? { numRuns: options.numRuns } : law.defaultNumRuns !== undefined ? { numRuns: law.defaultNumRuns } : {}),
    ...(options.seed === undefined ? {} : { seed: options.seed }),
    ...(options.path === undefined ? {} : { path: options.path }),
    ...(options.path !== undefined || law.shrinks === false ? { endOnFailure: true } : {}),
  })
  return details.failed ? failureOf(law, options.name ?? "effect hook", details, prepare, "HookLaws.checkEffect(hook, { %s })") : undefined
}
