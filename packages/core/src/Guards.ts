/**
 * Guard hooks: pure hooks that add a stop signal when a limit is reached, and keep
 * it once they have fired. They never stop the loop themselves; the loop decides.
 *
 * @since 0.1.0
 */
import { Duration } from "effect"
import * as t from "io-ts"
import * as AgentError from "./AgentError.js"
import * as AgentState from "./AgentState.js"
import type { Hook } from "./Hook.js"
import * as HookContext from "./HookContext.js"
import * as HookStack from "./HookStack.js"
import * as HookTrigger from "./HookTrigger.js"
import * as HookTriggers from "./HookTriggers.js"
import { finishReasons as knownFinishReasons, type FinishReason } from "./InferenceResponse.js"
import * as StopReason from "./StopReason.js"
import * as StopSignal from "./StopSignal.js"
import { decodeOptions } from "./codecs/decode.js"
import { finiteDuration } from "./internal/duration.js"
import { finite } from "./internal/finite.js"

/**
 * The guards' names (hook names and stop-signal sources).
 *
 * @since 0.1.0
 * @category constructors
 */
export const names = Object.freeze({
  steps: "guard:steps_limit",
  tokens: "guard:token_limit",
  time: "guard:time_limit",
  finishReason: "guard:finish_reason",
} as const)

/**
 * @since 0.1.0
 * @category constructors
 */
export const defaults = Object.freeze({
  maxSteps: 20,
  maxTokens: 32_768,
  maxExecutionTime: "300 seconds" as Duration.Input,
  finishReasons: Object.freeze([]) as ReadonlyArray<FinishReason>,
})

// A plain loop: the guards ask before every step, and `some` would make a closure each time.
const hasFired = (ctx: HookContext.HookContext, source: string): boolean => {
  const signals = ctx.state.execution.stopSignals
  for (let i = 0; i < signals.length; i++) if ((signals[i] as StopSignal.StopSignal).source === source) return true
  return false
}

const fire = (ctx: HookContext.HookContext, reason: StopReason.StopReason | StopReason.Custom, message: string, source: string) =>
  HookContext.withStopSignal(ctx, StopSignal.make(reason, message, source))

/**
 * Stops before a step once `maxSteps` steps have run.
 *
 * @since 0.1.0
 * @category constructors
 */
export const stepsLimit = (limit: number): Hook => {
  // NaN would make a guard that never fires: refused (`null` in useGuards turns it off).
  const maxSteps = finite("maxSteps", limit)
  const guard: Hook = (ctx) => {
    if (hasFired(ctx, names.steps)) return ctx
    const steps = AgentState.stepCount(ctx.state)
    return steps >= maxSteps
      ? fire(ctx, StopReason.StepsLimitReached, `Step limit reached: ${steps}/${maxSteps}`, names.steps)
      : ctx
  }
  return guard
}

/**
 * Stops once input plus output tokens of the run reach `maxTokens`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const tokenLimit = (limit: number): Hook => {
  const maxTokens = finite("maxTokens", limit)
  return (ctx) => {
    if (hasFired(ctx, names.tokens)) return ctx
    const tokens = AgentState.totalTokens(ctx.state)
    return tokens >= maxTokens
      ? fire(ctx, StopReason.TokenLimitReached, `Token limit reached: ${tokens}/${maxTokens}`, names.tokens)
      : ctx
  }
}

/**
 * Stops once the wall clock since this call of run or resume started reaches the limit
 * (a resumed run gets its whole budget again; a state from before `runningSince` counts
 * from `startedAt`). Pure: it reads `ctx.createdAt` (the loop's clock reading) against
 * `state.execution.runningSince`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const timeLimit = (maxExecutionTime: Duration.Input): Hook => {
  const limitMs = Duration.toMillis(maxExecutionTime)
  return (ctx) => {
    if (hasFired(ctx, names.time)) return ctx
    const startedAt = ctx.state.execution.runningSince ?? ctx.state.execution.startedAt
    if (startedAt === undefined) return ctx
    const elapsed = ctx.createdAt - startedAt
    return elapsed >= limitMs
      ? fire(ctx, StopReason.TimeLimitReached, `Time limit reached: ${elapsed} ms/${limitMs} ms`, names.time)
      : ctx
  }
}

/**
 * Stops after a step whose finish reason is one of `reasons` (off when empty).
 *
 * @since 0.1.0
 * @category constructors
 */
export const finishReason = (reasons: ReadonlyArray<FinishReason>): Hook => {
  const set = new Set(reasons)
  return (ctx) => {
    if (set.size === 0 || hasFired(ctx, names.finishReason)) return ctx
    const last = AgentState.lastStep(ctx.state)?.finishReason
    return last !== undefined && set.has(last)
      ? fire(ctx, StopReason.FinishReasonReceived, `Finish reason received: ${last}`, names.finishReason)
      : ctx
  }
}

/**
 * Options of `useGuards`; `null` turns a guard off, `undefined` keeps its default.
 * `maxExecutionTime` is an Effect duration (`"5 minutes"`, or a number of ms).
 *
 * @since 0.1.0
 * @category models
 */
export interface GuardOptions {
  readonly maxSteps?: number | null | undefined
  readonly maxTokens?: number | null | undefined
  readonly maxExecutionTime?: Duration.Input | null | undefined
  readonly finishReasons?: ReadonlyArray<FinishReason> | null | undefined
}

// A whole number: `null` turns a guard off, so Infinity, NaN and fractions are mistakes.
const Limit = t.union([t.undefined, t.null, t.refinement(t.number, (n) => Number.isSafeInteger(n) && n >= 0, "a whole number >= 0 (null turns the guard off)")])

const GuardOptionsCodec = t.type({
  maxSteps: Limit,
  maxTokens: Limit,
  maxExecutionTime: t.unknown,
  finishReasons: t.union([
    t.undefined,
    t.null,
    t.readonlyArray(t.keyof(Object.fromEntries(knownFinishReasons.map((r) => [r, null])) as Record<FinishReason, null>)),
  ]),
})

/**
 * The four guards with their names and priorities: steps, tokens and time on
 * BeforeStep at 200, finish reason on AfterStep at -200. Throws
 * `HooklineError(InvalidConfiguration)` naming a bad option.
 *
 * @since 0.1.0
 * @category constructors
 */
export const useGuards = (options: GuardOptions = {}): HookStack.HookStack => {
  const decoded = decodeOptions(GuardOptionsCodec, options)
  if (!decoded.ok) throw new AgentError.HooklineError(AgentError.invalidConfiguration(decoded.path, decoded.detail))
  const maxSteps = options.maxSteps === undefined ? defaults.maxSteps : options.maxSteps
  const maxTokens = options.maxTokens === undefined ? defaults.maxTokens : options.maxTokens
  const maxTime = options.maxExecutionTime === undefined ? defaults.maxExecutionTime : options.maxExecutionTime
  const reasons = options.finishReasons === undefined || options.finishReasons === null ? defaults.finishReasons : options.finishReasons
  const time = maxTime === null ? null : finiteDuration(maxTime)
  if (typeof time === "string") throw new AgentError.HooklineError(AgentError.invalidConfiguration("maxExecutionTime", time))
  let stack: HookStack.HookStack = HookStack.empty
  const add = (hook: Hook, name: string, triggers: HookTriggers.HookTriggers, priority: number) => {
    stack = HookStack.with(stack, hook, { triggers, priority, name })
  }
  if (maxSteps !== null) add(stepsLimit(maxSteps), names.steps, HookTriggers.beforeStep, 200)
  if (maxTokens !== null) add(tokenLimit(maxTokens), names.tokens, HookTriggers.beforeStep, 200)
  if (time !== null) add(timeLimit(time), names.time, HookTriggers.beforeStep, 200)
  if (reasons.length > 0) add(finishReason(reasons), names.finishReason, HookTriggers.afterStep, -200)
  return stack
}

/**
 * Options of `make`: a guard of your own.
 *
 * @since 0.1.0
 * @category models
 */
export interface MakeOptions<C = unknown> {
  /** The hook's name and the signal's source, `area:what` (`guard:tool_budget`). */
  readonly name: string
  /** Where it looks: one trigger or a set (`HookTriggers.of(...)`). */
  readonly trigger: HookTrigger.HookTrigger | HookTriggers.HookTriggers
  /** Whether to stop; pure, like any hook. */
  readonly when: (ctx: HookContext.HookContext<C>) => boolean
  /** A built-in reason, or a custom one (`StopReason.custom`). */
  readonly reason: StopReason.StopReason | StopReason.Custom
  /** The signal's message for people; default `"<name> fired"`. */
  readonly message?: string | ((ctx: HookContext.HookContext<C>) => string) | undefined
  /** The hook's priority; default 200, like the built-in guards on BeforeStep. */
  readonly priority?: number | undefined
}

const isFunction = (u: unknown): boolean => typeof u === "function"

const MakeOptionsCodec = t.type({
  name: t.refinement(t.string, (s) => s.length > 0, "a non-empty name"),
  trigger: t.unknown,
  when: t.refinement(t.unknown, isFunction, "a function (ctx) => boolean"),
  reason: t.unknown,
  message: t.union([t.undefined, t.string, t.refinement(t.unknown, isFunction, "a function (ctx) => string")]),
  priority: t.union([t.undefined, t.refinement(t.number, Number.isFinite, "a finite number")]),
})

/**
 * A guard of your own, as a one-hook stack (add it with `UseHooks` or
 * `HookStack.concat`): when `when` holds it adds a stop signal with `reason`, and,
 * like every guard, keeps it once it fired. With a custom reason the outcome reads
 * its name (`execution.stopReason`), not a borrowed `StopRequested`. Throws
 * `HooklineError(InvalidConfiguration)` naming a bad option (an unknown key too).
 *
 * @example
 * ```ts
 * import { AgentState, Guards, HookTrigger, StopReason } from "@hookline/core"
 * const ToolBudgetSpent = StopReason.custom({ name: "ToolBudgetSpent", priority: 550, kind: "hard" })
 * const toolBudget = Guards.make({
 *   name: "guard:tool_budget",
 *   trigger: HookTrigger.BeforeStep,
 *   when: (ctx) => AgentState.toolCallsInExecution(ctx.state) >= 10,
 *   reason: ToolBudgetSpent,
 *   message: "10 tool calls in this run",
 * })
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <C = unknown>(options: MakeOptions<C>): HookStack.HookStack => {
  const decoded = decodeOptions(MakeOptionsCodec, options)
  if (!decoded.ok) throw new AgentError.HooklineError(AgentError.invalidConfiguration(decoded.path, decoded.detail))
  const { name, trigger, when, reason, message, priority = 200 } = options
  if (!StopReason.isStopReason(reason) && !StopReason.isCustom(reason)) {
    throw new AgentError.HooklineError(
      AgentError.invalidConfiguration("reason", "expected a built-in reason (StopReason.StepsLimitReached, ...) or StopReason.custom({ name, priority, kind })"),
    )
  }
  const triggers = typeof trigger === "string"
    ? (HookTrigger.isHookTrigger(trigger) ? HookTriggers.of(trigger) : undefined)
    : Array.isArray(trigger) && trigger.length > 0 && trigger.every(HookTrigger.isHookTrigger) ? trigger : undefined
  if (triggers === undefined) {
    throw new AgentError.HooklineError(AgentError.invalidConfiguration("trigger", "expected a trigger (HookTrigger.BeforeStep, ...) or a set of them (HookTriggers.of(...))"))
  }
  const text = (ctx: HookContext.HookContext<C>): string =>
    message === undefined ? `${name} fired` : typeof message === "string" ? message : message(ctx)
  const guard = (ctx: HookContext.HookContext<C>): HookContext.HookContext =>
    hasFired(ctx, name) || !when(ctx) ? ctx : fire(ctx, reason, text(ctx), name)
  return HookStack.with(HookStack.empty, guard as (ctx: HookContext.HookContext) => HookContext.HookContext, { triggers, priority, name })
}
