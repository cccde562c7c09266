/**
 * A budget in money: before each step, the cost of the run so far is worked out from
 * the usage of each step and the prices the user gives (a table by model id, where a
 * dated id such as `gpt-4o-mini-2024-07-18` finds its undated entry, or a function of
 * the model id), and when it
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
 * Prices by model id (as the driver reports it in `response.modelId`), or a function
 * from the model id to its price (`undefined`: no price). A table entry also prices
 * the dated ids of that model: `"gpt-4o-mini"` prices `gpt-4o-mini-2024-07-18`,
 * `"claude-3-5-sonnet"` prices `claude-3-5-sonnet-20241022` and `…@20240620` (see
 * `priceOf`).
 *
 * @since 0.1.0
 * @category models
 */
export type Prices = Readonly<Record<string, Price>> | ((modelId: string) => Price | undefined)

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The budget, in the money of the prices. */
  readonly maxCost: number
  /** Prices by model id, or a function of the model id. */
  readonly prices: Prices
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

// A release date at the end of a model id: -2024-07-18 (OpenAI), -20241022 (Anthropic),
// @20240620 (Anthropic on Vertex). The month and day must be a date.
const datedSuffix = /(?:-(\d{4})-(\d{2})-(\d{2})|[-@](\d{4})(\d{2})(\d{2}))$/

/**
 * The model id without its release date (`gpt-4o-mini-2024-07-18` → `gpt-4o-mini`), or
 * `undefined` when it does not end with one.
 *
 * @since 0.1.0
 * @category getters
 */
export const undated = (modelId: string): string | undefined => {
  const m = datedSuffix.exec(modelId)
  if (m === null) return undefined
  const month = Number(m[2] ?? m[5])
  const day = Number(m[3] ?? m[6])
  return month >= 1 && month <= 12 && day >= 1 && day <= 31 && m.index > 0 ? modelId.slice(0, m.index) : undefined
}

const lookupOf = (table: ReadonlyMap<string, Price>) => (modelId: string): Price | undefined => {
  const exact = table.get(modelId)
  if (exact !== undefined) return exact
  const base = undated(modelId)
  return base === undefined ? undefined : table.get(base)
}

/**
 * The price of a model: from a function, what it gives; from a table, the entry of the
 * exact id, else the entry of the id without its release date (`undated`). Never the
 * entry of another model that merely shares a prefix (`gpt-4o` does not price
 * `gpt-4o-mini-…`): an unpriced model stops the budget rather than being mispriced.
 *
 * @since 0.1.0
 * @category getters
 */
export const priceOf = (prices: Prices | ReadonlyMap<string, Price>, modelId: string): Price | undefined =>
  typeof prices === "function"
    ? prices(modelId)
    : lookupOf(prices instanceof Map ? prices : new Map(Object.entries(prices as Readonly<Record<string, Price>>)))(modelId)

// A price function is the user's code: what it gives is checked each time, naming the model.
const checkedFunction = (f: (modelId: string) => Price | undefined) => (modelId: string): Price | undefined => {
  const price: unknown = f(modelId)
  return price === undefined ? undefined : checkPrice(`options.prices(${JSON.stringify(modelId)})`, price)
}

const check = (options: unknown) => {
  const o = O.record("options", options, ["maxCost", "prices", "unknownModel", "currency"])
  const maxCost = O.amount("options.maxCost", o["maxCost"])
  const given = o["prices"]
  let lookup: (modelId: string) => Price | undefined
  if (typeof given === "function") {
    lookup = checkedFunction(given as (modelId: string) => Price | undefined)
  } else {
    const table = O.table("options.prices", given)
    lookup = lookupOf(new Map(Object.entries(table).map(([model, price]) => [model, checkPrice(`options.prices.${model}`, price)])))
  }
  return {
    maxCost,
    lookup,
    unknownModel: o["unknownModel"] === undefined ? "stop" : O.oneOf("options.unknownModel", o["unknownModel"], ["stop", "free"] as const),
    currency: o["currency"] === undefined ? "" : ` ${O.text("options.currency", o["currency"])}`,
  }
}

// Cached tokens are a part of the input tokens; a driver that reports more cached
// than input tokens is not trusted beyond the input count.
const cachedOf = (usage: Usage): number => Math.max(0, Math.min(usage.cachedInputTokens ?? 0, usage.inputTokens))

/**
 * The cost of one step, or the model id that has no price (prices as in `priceOf`).
 *
 * @since 0.1.0
 * @category getters
 */
export const stepCost = (
  step: Step.Step,
  prices: Prices | ReadonlyMap<string, Price>,
): { readonly cost: number } | { readonly unpriced: string } => {
  const usage = step.usage
  if (usage.inputTokens === 0 && usage.outputTokens === 0) return { cost: 0 }
  const model = step.response?.modelId ?? "unknown"
  const price = priceOf(prices, model)
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
export const cost = (state: AgentState.AgentState, prices: Prices): number => {
  const table = typeof prices === "function" ? prices : new Map(Object.entries(prices))
  let total = 0
  for (const step of state.execution.steps) {
    const c = stepCost(step, table)
    if ("cost" in c) total += c.cost
  }
  return total
}

/**
 * The guard, for BeforeStep. Throws `InvalidConfiguration` for bad options; a price
 * function that gives a bad price fails the step with `InvalidConfiguration` naming
 * the model (`options.prices("gpt-x").input`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options): Hook => {
  const { maxCost, lookup, unknownModel, currency } = check(options)
  return (ctx) => {
    if (ctx.trigger !== HookTrigger.BeforeStep) return ctx
    if (ctx.state.execution.stopSignals.some((s) => s.source === name)) return ctx
    let total = 0
    for (const step of ctx.state.execution.steps) {
      const c = stepCost(step, lookup)
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
 * // also prices the dated ids the provider answers with (gpt-4o-mini-2024-07-18)
 * UseCostBudget({ maxCost: 0.5, currency: "USD", prices: { "gpt-4o-mini": { input: 0.15, output: 0.6, cachedInput: 0.075 } } })
 * ```
 *
 * @since 0.1.0
 * @category capabilities
 */
export const UseCostBudget = (options: Options): AgentBuilder.Capability =>
  UseHook(make(options), { triggers: HookTrigger.BeforeStep, priority, name })
