/**
 * Sets of triggers a hook is registered on.
 *
 * @since 0.1.0
 */
import * as HookTrigger from "./HookTrigger.js"

/**
 * A frozen, duplicate-free list of triggers in the loop's order.
 *
 * @since 0.1.0
 * @category models
 */
export type HookTriggers = ReadonlyArray<HookTrigger.HookTrigger>

/**
 * The given triggers, deduplicated, in the loop's order.
 *
 * @since 0.1.0
 * @category constructors
 */
export const of = (...triggers: ReadonlyArray<HookTrigger.HookTrigger>): HookTriggers =>
  Object.freeze(HookTrigger.all.filter((t) => triggers.includes(t)))

/**
 * @since 0.1.0
 * @category constructors
 */
export const all: HookTriggers = HookTrigger.all

/**
 * @since 0.1.0
 * @category constructors
 */
export const none: HookTriggers = Object.freeze([])

/** @since 0.1.0 @category constructors */
export const beforeExecution: HookTriggers = of("BeforeExecution")
/** @since 0.1.0 @category constructors */
export const beforeStep: HookTriggers = of("BeforeStep")
/** @since 0.1.0 @category constructors */
export const beforeInference: HookTriggers = of("BeforeInference")
/** @since 0.1.0 @category constructors */
export const afterInference: HookTriggers = of("AfterInference")
/** @since 0.1.0 @category constructors */
export const beforeToolUse: HookTriggers = of("BeforeToolUse")
/** @since 0.1.0 @category constructors */
export const afterToolUse: HookTriggers = of("AfterToolUse")
/** @since 0.1.0 @category constructors */
export const afterStep: HookTriggers = of("AfterStep")
/** @since 0.1.0 @category constructors */
export const onStop: HookTriggers = of("OnStop")
/** @since 0.1.0 @category constructors */
export const afterExecution: HookTriggers = of("AfterExecution")
/** @since 0.1.0 @category constructors */
export const onError: HookTriggers = of("OnError")

/**
 * Both sets together.
 *
 * @since 0.1.0
 * @category combinators
 */
export const union = (self: HookTriggers, that: HookTriggers): HookTriggers => of(...self, ...that)

/**
 * @since 0.1.0
 * @category guards
 */
export const has = (self: HookTriggers, trigger: HookTrigger.HookTrigger): boolean => self.includes(trigger)
