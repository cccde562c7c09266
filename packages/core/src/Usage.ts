/**
 * Token usage of model calls; a monoid under addition.
 *
 * @since 0.1.0
 */
import type { Monoid as M } from "fp-ts/lib/Monoid.js"
import { dual } from "effect/Function"
import { seal } from "./internal/sealed.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Usage {
  readonly inputTokens: number
  readonly outputTokens: number
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const empty: Usage = seal(Object.freeze({ inputTokens: 0, outputTokens: 0 }))

/**
 * @since 0.1.0
 * @category constructors
 */
export const make = (inputTokens: number, outputTokens: number): Usage =>
  inputTokens === 0 && outputTokens === 0
    ? empty
    : isCount(inputTokens) && isCount(outputTokens)
      ? seal(Object.freeze({ inputTokens, outputTokens }))
      : Object.freeze({ inputTokens, outputTokens })

// What the driver boundary accepts as a token count: only such usage is sealed.
const isCount = (n: unknown): boolean => typeof n === "number" && Number.isFinite(n) && n >= 0

/**
 * Input plus output tokens.
 *
 * @since 0.1.0
 * @category getters
 */
export const total = (usage: Usage): number => usage.inputTokens + usage.outputTokens

/**
 * The sum of two usages; adding `empty` returns the other argument itself.
 *
 * @since 0.1.0
 * @category combinators
 */
export const add: {
  (that: Usage): (self: Usage) => Usage
  (self: Usage, that: Usage): Usage
} = dual(2, (self: Usage, that: Usage): Usage =>
  that.inputTokens === 0 && that.outputTokens === 0
    ? self
    : self.inputTokens === 0 && self.outputTokens === 0
      ? that
      : make(self.inputTokens + that.inputTokens, self.outputTokens + that.outputTokens))

/**
 * Usages add up: `empty` is the identity.
 *
 * @since 0.1.0
 * @category instances
 */
export const Monoid: M<Usage> = { concat: (x, y) => add(x, y), empty }
