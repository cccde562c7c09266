/**
 * Token usage of model calls; a monoid under addition.
 *
 * The details a provider may report (input tokens read from its prompt cache, output
 * tokens spent on reasoning) are parts of the input and output counts, not extra
 * tokens: `total` stays input plus output. A detail of zero is left out, so a usage
 * without details and one with zero details are the same value.
 *
 * @since 0.1.0
 */
import type { Monoid as M } from "fp-ts/lib/Monoid.js"
import { dual } from "effect/Function"
import { finite } from "./internal/finite.js"
import { seal } from "./internal/sealed.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Usage {
  readonly inputTokens: number
  readonly outputTokens: number
  /** Of the input tokens, those read from the provider's prompt cache (priced lower); absent: none reported. */
  readonly cachedInputTokens?: number | undefined
  /** Of the output tokens, those spent on reasoning; absent: none reported. */
  readonly reasoningTokens?: number | undefined
}

/**
 * The optional parts of a usage.
 *
 * @since 0.1.0
 * @category models
 */
export interface Details {
  readonly cachedInputTokens?: number | undefined
  readonly reasoningTokens?: number | undefined
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const empty: Usage = seal(Object.freeze({ inputTokens: 0, outputTokens: 0 }))

/**
 * A frozen usage; zero tokens (and no details) give `empty` itself. Details of zero
 * are left out. A count that is not a finite number (NaN, Infinity) is refused: throws
 * `HooklineError(InvalidConfiguration)` naming it.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (input: number, output: number, details?: Details): Usage => {
  // -0 is 0, as JSON carries it (the codecs and the driver boundary read it so).
  const inputTokens = finite("inputTokens", input)
  const outputTokens = finite("outputTokens", output)
  const cached = finite("cachedInputTokens", details?.cachedInputTokens ?? 0)
  const reasoning = finite("reasoningTokens", details?.reasoningTokens ?? 0)
  if (cached === 0 && reasoning === 0) {
    if (inputTokens === 0 && outputTokens === 0) return empty
    const usage = Object.freeze({ inputTokens, outputTokens })
    return isCount(inputTokens) && isCount(outputTokens) ? seal(usage) : usage
  }
  const out: { inputTokens: number; outputTokens: number; cachedInputTokens?: number; reasoningTokens?: number } = {
    inputTokens,
    outputTokens,
  }
  if (cached !== 0) out.cachedInputTokens = cached
  if (reasoning !== 0) out.reasoningTokens = reasoning
  const usage = Object.freeze(out)
  return isCount(inputTokens) && isCount(outputTokens) && isCount(cached) && isCount(reasoning) ? seal(usage) : usage
}

// What the driver boundary accepts as a token count: only such usage is sealed.
const isCount = (n: unknown): boolean => typeof n === "number" && Number.isFinite(n) && n >= 0

/**
 * Input plus output tokens (cached and reasoning tokens are parts of these).
 *
 * @since 0.1.0
 * @category getters
 */
export const total = (usage: Usage): number => usage.inputTokens + usage.outputTokens

const isZero = (u: Usage): boolean =>
  u.inputTokens === 0 && u.outputTokens === 0 && !u.cachedInputTokens && !u.reasoningTokens

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
  isZero(that)
    ? self
    : isZero(self)
      ? that
      : self.cachedInputTokens === undefined && self.reasoningTokens === undefined
          && that.cachedInputTokens === undefined && that.reasoningTokens === undefined
      ? make(self.inputTokens + that.inputTokens, self.outputTokens + that.outputTokens)
      : make(self.inputTokens + that.inputTokens, self.outputTokens + that.outputTokens, {
        cachedInputTokens: (self.cachedInputTokens ?? 0) + (that.cachedInputTokens ?? 0),
        reasoningTokens: (self.reasoningTokens ?? 0) + (that.reasoningTokens ?? 0),
      }))

/**
 * Usages add up: `empty` is the identity.
 *
 * @since 0.1.0
 * @category instances
 */
export const Monoid: M<Usage> = { concat: (x, y) => add(x, y), empty }
