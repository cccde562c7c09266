/**
 * A budget in money: before each step, the cost of the run so far is worked out from
 * the usage of each step and a price table the user gives per model id, and when it
 * reaches the budget the guard raises a stop signal (a hard stop: a continuation
 * cannot lift it). Like every guard, it only adds the signal; the loop stops.
 *
 * Its signal has its own reason, `CostBudgetReached` (hard, ranked between the token
 * limit, 400, and the steps limit, 500).
 *
 * @since 0.1.0
 */
import { UseHook, type AgentBuilder } from "@hookline/agent"
import { AgentState, HookContext, HookTrigger, StopReason, StopSignal, type Hook, type Step, type Usage } from "@hookline/core"
import * as O from "./internal/builtinOptions.js"

/**
 * Prices of one model, in money per million tokens.
 *
 * @since 0.1.0
 * @category models
 */
export interface Price {
  readonly input: number
  readonly output: number
  /** Input tokens read from the provider's cache; default the input price. */
  readonly cachedInput?: number | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The budget, in the money of the price table. */
  readonly maxCost: number
  /** Prices by model id, as the driver reports it in `response.modelId`. */
  readonly prices: Readonly<Record<string, Price>>
  /** A step of a model with no price: `"stop"` (default: the budget cannot be kept) or `"free"`. */
  readonly unknownModel?: "stop" | "free" | undefined
  /** For messages only: `"USD"`. */
  readonly currency?: string | undefined
}

/** @since 0.1.0 @category constants */
export const name = "guard:cost_budget"

/** With the other guards. @since 0.1.0 @category constants */
export const priority = 200

/** The reason of its signal. @since 0.1.0 @category constants */
export const stopReason: StopReason.Custom = StopReason.custom({ name: "CostBudgetReached", priority: 450, kind: "hard" })

const checkPrice = (path: string, u: unknown): Price => {
  const p = O.record(path, u, ["input", "output", "cachedInput"])
  return Object.freeze({
    input: O.amount(`${path}.input`, p["input"]),
    output: O.amount(`${path}.output`, p["output"]),
    cachedInput: p["cachedInput"] === undefined ? undefined : O.amount(`${path}.cachedInput`, p["cachedInput"]),
  })
}

const check = (options: unknown) => {
  const o = O.record("options", options, ["maxCost", "prices", "unknownModel", "currency"])
  const maxCost = O.amount("options.maxCost", o["maxCost"])
  const table = O.record("options.prices", o["prices"], Object.keys((o["prices"] ?? {}) as object))
  const prices = new Map(Object.entries(table).map(([model, price]) => [model, checkPrice(`options.prices.${model}`, price)]))
  return {
    maxCost,
    prices,
    unknownModel: o["unknownModel"] === undefined ? "stop" : O.oneOf("options.unknownModel", o["unknownModel"], ["stop", "free"] as const),
    currency: o["currency"] === undefined ? "" : ` ${O.text("options.currency", o["currency"])}`,
  }
}

// Cached tokens are a part of the input tokens; a driver that reports more cached
// than input tokens is not trusted beyond the input count.
const cachedOf = (usage: Usage): number => Math.max(0, Math.min(usage.cachedInputTokens ?? 0, usage.inputTokens))

/**
 * The cost of one step, or the model id that has no price.
 *
 * @since 0.1.0
 * @category getters
 */
export const stepCost = (
  step: Step.Step,
  prices: ReadonlyMap<string, Price>,
): { readonly cost: number } | { readonly unpriced: string } => {
  const usage = step.usage
  if (usage.inputTokens === 0 && usage.outputTokens === 0) return { cost: 0 }
  const model = step.response?.modelId ?? "unknown"
  const price = prices.get(model)
  if (price === undefined) return { unpriced: model }
  const cached = cachedOf(usage)
  const cost = ((usage.inputTokens - cached) * price.input + cached * (price.cachedInput ?? price.input) + usage.outputTokens * price.output)
    / 1_000_000
  return { cost }
}

/**
 * The cost of a run so far: the sum of its steps' costs, skipping unpriced models.
 *
 * @since 0.1.0
 * @category getters
 */
export const cost = (state: AgentState.AgentState, prices: Readonly<Record<string, Price>>): number => {
  const table = new Map(Object.entries(prices))
  let total = 0
  for (const step of state.execution.steps) {
    const c = stepCost(step, table)
    if ("cost" in c) total += c.cost
  }
  return total
}

/**
 * The guard, for BeforeStep. Throws `InvalidConfiguration` for bad options.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options): Hook => {
  const { maxCost, prices, unknownModel, currency } = check(options)
  return (ctx) => {
    if (ctx.trigger !== HookTrigger.BeforeStep) return ctx
    if (ctx.state.execution.stopSignals.some((s) => s.source === name)) return ctx
    let total = 0
    for (const step of ctx.state.execution.steps) {
      const c = stepCost(step, prices)
      if ("cost" in c) {
        total += c.cost
      } else if (unknownModel === "stop") {
        return HookContext.withStopSignal(
          ctx,
          StopSignal.make(stopReason, `Cost budget cannot be kept: no price for the model ${JSON.stringify(c.unpriced)}`, name),
        )
      }
    }
    return total >= maxCost
      ? HookContext.withStopSignal(
        ctx,
        StopSignal.make(stopReason, `Cost budget reached: ${round(total)}/${maxCost}${currency}`, name),
      )
      : ctx
  }
}

const round = (n: number): string => Number(n.toPrecision(6)).toString()

/**
 * As a capability: `UseHook(make(options), { triggers: BeforeStep, priority: 200,
 * name: "guard:cost_budget" })`.
 *
 * @example
 * ```ts
 * UseCostBudget({ maxCost: 0.5, currency: "USD", prices: { "gpt-4o-mini": { input: 0.15, output: 0.6, cachedInput: 0.075 } } })
 * ```
 *
 * @since 0.1.0
 * @category capabilities
 */
export const UseCostBudget = (options: Options): AgentBuilder.Capability =>
  UseHook(make(options), { triggers: HookTrigger.BeforeStep, priority, name })
