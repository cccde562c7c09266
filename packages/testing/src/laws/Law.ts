/**
 * What a law is: a name, the triggers where it says something, the extra input each
 * case needs besides the context, and a check of one case. Laws are plain data, so a
 * user can run one inside any test: `expect(law.check(hook, ctx)).toBeUndefined()`.
 *
 * @since 0.1.0
 */
import { HookContext, type Hook, type HookTrigger } from "@hookline/core"
import type fc from "fast-check"
import type * as Arbitraries from "../Arbitraries.js"
import { structuralDifference } from "../internal/inspect.js"

/**
 * The laws' names; an error from a failing law starts with `HookLaws.<name> failed`.
 *
 * @since 0.1.0
 * @category models
 */
export type LawName =
  | "deterministic"
  | "noHiddenState"
  | "immutable"
  | "keepsTrigger"
  | "returnsFrozen"
  | "guardStaysFired"
  | "blockStaysBlocked"
  | "commutes"
  | "idempotent"
  /** A wrap hook pure apart from `next` (`HookLaws.checkWrap`). */
  | "wrapPure"

/**
 * What a law is checked on: the hook's triggers and the sizes of generated values.
 *
 * @since 0.1.0
 * @category models
 */
export interface Scope {
  readonly triggers: ReadonlyArray<HookTrigger>
  readonly arbitraries?: Arbitraries.Options | undefined
  /** The contexts the options give instead of generated ones: a law draws its other contexts from them too. */
  readonly contexts?: fc.Arbitrary<HookContext> | undefined
}

/**
 * A law of pure hooks.
 *
 * @since 0.1.0
 * @category models
 */
export interface Law<X = undefined> {
  readonly name: LawName
  /** What the law says, in one sentence. */
  readonly description: string
  /** Whether the law says anything about contexts of this trigger. */
  readonly appliesTo: (trigger: HookTrigger) => boolean
  /**
   * The extra input of a case besides the context (a block reason, how a run goes
   * on), or how to make it from the triggers and sizes being checked (other contexts
   * of those triggers, for `deterministic`).
   */
  readonly extra: fc.Arbitrary<X> | ((scope: Scope) => fc.Arbitrary<X>)
  /**
   * Turns a generated context into the one the law is about (blockStaysBlocked blocks
   * it); the report shows the prepared context. Default: the context as generated.
   */
  readonly prepare?: ((ctx: HookContext, extra: X) => HookContext) | undefined
  /** Cases when the options give none (default: fast-check's); each case of a costly law runs the hook many times. */
  readonly defaultNumRuns?: number | undefined
  /** Whether a failure is shrunk (default true); false for laws whose cases are not independent. */
  readonly shrinks?: boolean | undefined
  /** What went wrong on this case, or `undefined` when the law holds. */
  readonly check: (hook: Hook, ctx: HookContext, extra?: X) => string | undefined
  /**
   * For laws that hold vacuously on most inputs (a guard that never fires): whether
   * this case exercised the law. A run where no case did is reported as a failure.
   */
  readonly exercised?: ((hook: Hook, ctx: HookContext, extra?: X) => boolean) | undefined
}

/** @internal what calling a hook gave. */
export type Outcome =
  | { readonly _tag: "Returned"; readonly value: unknown }
  | { readonly _tag: "Threw"; readonly error: unknown }

/** @internal calls a hook, catching what it throws. */
export const apply = (hook: Hook, ctx: HookContext): Outcome => {
  try {
    return { _tag: "Returned", value: hook(ctx) }
  } catch (error) {
    return { _tag: "Threw", error }
  }
}

const mutationMessage =
  /read[ -]only|not extensible|Cannot (assign|add|delete|define|redefine)|object is frozen|Cannot set property/i

/** @internal whether a thrown error is a write to frozen data (strict mode). */
export const isMutationError = (error: unknown): boolean => error instanceof TypeError && mutationMessage.test(error.message)

/** @internal the text of a thrown value. */
export const errorText = (error: unknown): string =>
  error instanceof Error ? `${error.name}: ${error.message}` : typeof error === "string" ? error : String(error)

/** @internal how a throw reads in a law's report. */
export const describeThrow = (error: unknown): string =>
  isMutationError(error)
    ? `it tried to mutate its frozen input (${errorText(error)})`
    : `it threw ${errorText(error)} (a pure hook returns data for expected conditions: a block, a stop signal)`

/** @internal how a returned value that is not a context reads. */
export const describeValue = (value: unknown): string =>
  value === undefined ? "undefined" : value === null ? "null" : typeof value === "object" ? "an object that is not a HookContext" : `a ${typeof value}`

/**
 * @internal the context a hook returned, or the violation (a throw, not a context).
 */
export const output = (hook: Hook, ctx: HookContext): HookContext | { readonly violation: string } => {
  const outcome = apply(hook, ctx)
  if (outcome._tag === "Threw") return { violation: describeThrow(outcome.error) }
  if (!HookContext.isHookContext(outcome.value)) return { violation: `it returned ${describeValue(outcome.value)}, not a HookContext` }
  return outcome.value
}

/** @internal whether `output` gave a violation. */
export const isViolation = (u: HookContext | { readonly violation: string }): u is { readonly violation: string } =>
  "violation" in u && !HookContext.isHookContext(u)

/** @internal the first difference of two results, as a sentence. */
export const differs = (a: unknown, b: unknown, first: string, second: string): string | undefined => {
  const d = structuralDifference(a, b)
  return d === undefined ? undefined : `${d.path} is ${d.first} ${first} but ${d.second} ${second}`
}
