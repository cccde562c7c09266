/**
 * Why a run stops, in priority order: the highest reason among the signals decides
 * the outcome.
 *
 * @since 0.1.0
 */
import type { Ord } from "fp-ts/lib/Ord.js"
import * as AgentError from "./AgentError.js"
import { excerpt } from "./Json.js"

/** @since 0.1.0 @category constructors */
export const ErrorForbade = "ErrorForbade" as const
/** @since 0.1.0 @category constructors */
export const StopRequested = "StopRequested" as const
/** @since 0.1.0 @category constructors */
export const UserRequested = "UserRequested" as const
/** @since 0.1.0 @category constructors */
export const StepsLimitReached = "StepsLimitReached" as const
/** @since 0.1.0 @category constructors */
export const TokenLimitReached = "TokenLimitReached" as const
/** @since 0.1.0 @category constructors */
export const TimeLimitReached = "TimeLimitReached" as const
/** @since 0.1.0 @category constructors */
export const FinishReasonReceived = "FinishReasonReceived" as const
/** @since 0.1.0 @category constructors */
export const Completed = "Completed" as const

/**
 * @since 0.1.0
 * @category models
 */
export type StopReason =
  | typeof ErrorForbade
  | typeof StopRequested
  | typeof UserRequested
  | typeof StepsLimitReached
  | typeof TokenLimitReached
  | typeof TimeLimitReached
  | typeof FinishReasonReceived
  | typeof Completed

/**
 * Every reason, highest priority first.
 *
 * @since 0.1.0
 * @category constructors
 */
export const all: ReadonlyArray<StopReason> = Object.freeze([
  ErrorForbade, StopRequested, UserRequested, StepsLimitReached, TokenLimitReached, TimeLimitReached, FinishReasonReceived, Completed,
])

// Spaced by 100 so a custom reason can rank between two built-in ones.
const rank: Readonly<Record<StopReason, number>> = Object.freeze(
  Object.fromEntries(all.map((reason, i) => [reason, (all.length - i) * 100])) as Record<StopReason, number>,
)

/**
 * The priority of a built-in reason: higher wins. ErrorForbade 800, StopRequested 700,
 * UserRequested 600, StepsLimitReached 500, TokenLimitReached 400, TimeLimitReached
 * 300, FinishReasonReceived 200, Completed 100.
 *
 * @since 0.1.0
 * @category getters
 */
export const priority = (reason: StopReason): number => rank[reason]

const soft: ReadonlySet<StopReason> = new Set([Completed, FinishReasonReceived, StopRequested])

/**
 * Hard stops (errors, limits, a user's abort) cannot be overridden by a continuation.
 *
 * @since 0.1.0
 * @category guards
 */
export const isHard = (reason: StopReason): boolean => !soft.has(reason)

/**
 * @since 0.1.0
 * @category guards
 */
export const isStopReason = (u: unknown): u is StopReason => typeof u === "string" && Object.hasOwn(rank, u)

/**
 * Orders reasons by priority, lowest first.
 *
 * @since 0.1.0
 * @category instances
 */
export const Order: Ord<StopReason> = {
  equals: (x, y) => x === y,
  compare: (x, y) => (rank[x] < rank[y] ? -1 : rank[x] > rank[y] ? 1 : 0),
}

/**
 * Whether a stop can be overridden by a continuation (`"soft"`) or not (`"hard"`).
 *
 * @since 0.1.0
 * @category models
 */
export type Kind = "hard" | "soft"

/**
 * A reason a user declares (a tool-call budget, a policy): its name, its priority
 * among all reasons (the built-in ones are 100 to 800, see `priority`) and whether a
 * continuation may override it. Made with `custom`; a signal with it carries the
 * priority and kind, so they survive encoding.
 *
 * @since 0.1.0
 * @category models
 */
export interface Custom {
  readonly _tag: "CustomStopReason"
  readonly name: string
  readonly priority: number
  readonly kind: Kind
}

/**
 * The name a stop signal carries: a built-in reason, or a custom reason's name.
 *
 * @since 0.1.0
 * @category models
 */
export type Name = StopReason | (string & {})

/** The longest name a custom reason may have. */
const maxNameLength = 100

const invalid = (path: string, detail: string): never => {
  throw new AgentError.HooklineError(AgentError.invalidConfiguration(path, detail))
}

/**
 * Why a custom reason's parts are not valid, naming the part; `undefined` when they are.
 *
 * @internal
 */
export const customProblem = (name: unknown, priority: unknown, kind: unknown): { readonly path: string; readonly detail: string } | undefined => {
  if (typeof name !== "string" || name.length === 0 || name.length > maxNameLength) {
    return { path: "name", detail: `expected a name of 1 to ${maxNameLength} characters, got ${excerpt(name, 60)}` }
  }
  if (isStopReason(name)) return { path: "name", detail: `"${name}" is a built-in reason: use StopReason.${name}` }
  if (typeof priority !== "number" || !Number.isFinite(priority)) {
    return { path: "priority", detail: `expected a finite number (built-in reasons are 100 to 800), got ${excerpt(priority, 60)}` }
  }
  if (kind !== "hard" && kind !== "soft") return { path: "kind", detail: `expected "hard" or "soft", got ${excerpt(kind, 60)}` }
  return undefined
}

/**
 * Declares a custom reason. Throws `HooklineError(InvalidConfiguration)` naming the bad
 * option: a name that is empty, longer than 100 characters or a built-in reason's, a
 * priority that is not a finite number, a kind that is not "hard" or "soft".
 *
 * @example
 * ```ts
 * import { StopReason } from "@hookline/core"
 * // Ranks above the step limit (500), below a user's abort (600); no continuation lifts it.
 * const ToolBudgetSpent = StopReason.custom({ name: "ToolBudgetSpent", priority: 550, kind: "hard" })
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const custom = (options: { readonly name: string; readonly priority: number; readonly kind: Kind }): Custom => {
  if (typeof options !== "object" || options === null) return invalid("", "expected { name, priority, kind }")
  for (const key of Object.keys(options)) {
    if (key !== "name" && key !== "priority" && key !== "kind") invalid(key, `unknown option ${excerpt(key, 60)}: expected one of name, priority, kind`)
  }
  const problem = customProblem(options.name, options.priority, options.kind)
  if (problem !== undefined) return invalid(problem.path, problem.detail)
  return Object.freeze({ _tag: "CustomStopReason", name: options.name, priority: options.priority, kind: options.kind })
}

/**
 * @since 0.1.0
 * @category guards
 */
export const isCustom = (u: unknown): u is Custom =>
  typeof u === "object" && u !== null && (u as { readonly _tag?: unknown })._tag === "CustomStopReason"
