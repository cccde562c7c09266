/**
 * Why a run stops, in priority order: the highest reason among the signals decides
 * the outcome.
 *
 * @since 0.1.0
 */
import type { Ord } from "fp-ts/lib/Ord.js"

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

const rank: Readonly<Record<StopReason, number>> = Object.freeze(
  Object.fromEntries(all.map((reason, i) => [reason, all.length - i])) as Record<StopReason, number>,
)

/**
 * The priority of a reason: higher wins.
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
