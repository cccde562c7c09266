/**
 * Retry of model calls and of tool calls, as wrap hooks: each attempt runs inside one
 * step (no step is spent), waits on the Effect clock (so `TestClock` drives it), and
 * ends with the run (an abort interrupts a wait).
 *
 * @since 0.1.0
 */
import { UseWrap, type AgentBuilder } from "@hookline/agent"
import { AgentError, WrapHook, type ToolExecution } from "@hookline/core"
import { Duration, Effect, Random } from "effect"
import * as O from "./internal/options.js"

/**
 * When and how often to call again.
 *
 * @since 0.1.0
 * @category models
 */
export interface Backoff {
  /** Calls in all, the first included. Default 3. */
  readonly maxAttempts?: number | undefined
  /** The wait before the second call, in ms. Default 500. */
  readonly initialDelayMs?: number | undefined
  /** Each wait is the last times this. Default 2. */
  readonly factor?: number | undefined
  /** No wait is longer (Retry-After aside). Default 30,000 ms. */
  readonly maxDelayMs?: number | undefined
  /** Each wait is spread by up to this fraction either way, at random. Default 0.2; 0 turns it off. */
  readonly jitter?: number | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ModelRetryOptions extends Backoff {
  /** Decides alone which failures are retried, in place of `retryable` and `statuses`. */
  readonly when?: ((error: AgentError.InferenceFailed) => boolean) | undefined
  /** Retry a failure the driver marked retryable. Default true. */
  readonly retryable?: boolean | undefined
  /** Retry a failure with one of these HTTP statuses. Default 408, 409, 429, 500, 502, 503, 504. */
  readonly statuses?: ReadonlyArray<number> | undefined
  /** Wait what the provider's `Retry-After` asks, when it asks for more than the backoff. Default true. */
  readonly honorRetryAfter?: boolean | undefined
  /** A `Retry-After` longer than this ends the retries at once. Default 60,000 ms. */
  readonly maxRetryAfterMs?: number | undefined
  /** Default "retry:model". */
  readonly name?: string | undefined
  /** Default 200 (inside a fallback at 300, outside a timeout at 100). */
  readonly priority?: number | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ToolRetryOptions extends Backoff {
  /** The tools whose failed executions are retried. */
  readonly tools: ReadonlyArray<string>
  /** Also retry a tool that timed out. Default true. */
  readonly timeouts?: boolean | undefined
  /** Default "retry:tools". */
  readonly name?: string | undefined
  /** Default 200. */
  readonly priority?: number | undefined
}

const backoffKeys = ["maxAttempts", "initialDelayMs", "factor", "maxDelayMs", "jitter"]
const modelKeys = [...backoffKeys, "when", "retryable", "statuses", "honorRetryAfter", "maxRetryAfterMs", "name", "priority"]
const toolKeys = [...backoffKeys, "tools", "timeouts", "name", "priority"]

/**
 * The statuses retried by default: timeouts, conflicts, rate limits, server errors.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultStatuses: ReadonlyArray<number> = Object.freeze([408, 409, 429, 500, 502, 503, 504])

interface Schedule {
  readonly maxAttempts: number
  readonly initialDelayMs: number
  readonly factor: number
  readonly maxDelayMs: number
  readonly jitter: number
}

const scheduleOf = (at: string, o: Readonly<Record<string, unknown>>): Schedule => ({
  maxAttempts: O.integer(`${at}.maxAttempts`, o["maxAttempts"], 3, 1),
  initialDelayMs: O.number(`${at}.initialDelayMs`, o["initialDelayMs"], 500, 0),
  factor: O.number(`${at}.factor`, o["factor"], 2, 1),
  maxDelayMs: O.number(`${at}.maxDelayMs`, o["maxDelayMs"], 30_000, 0),
  jitter: O.number(`${at}.jitter`, o["jitter"], 0.2, 0, 1),
})

/**
 * The wait before attempt `attempt + 1` (after `attempt` calls), before jitter.
 *
 * @since 0.1.0
 * @category getters
 */
export const delayMs = (schedule: Pick<Schedule, "initialDelayMs" | "factor" | "maxDelayMs">, attempt: number): number =>
  Math.min(schedule.maxDelayMs, schedule.initialDelayMs * schedule.factor ** (attempt - 1))

// The wait, spread by the jitter with the Effect Random (seedable in tests).
const wait = (schedule: Schedule, attempt: number, atLeast = 0): Effect.Effect<void> =>
  Effect.flatMap(schedule.jitter === 0 ? Effect.succeed(0.5) : Random.next, (r) => {
    const base = delayMs(schedule, attempt)
    const spread = base * (1 + schedule.jitter * (2 * r - 1))
    return Effect.sleep(Duration.millis(Math.max(atLeast, Math.round(spread))))
  })

/**
 * A wrap hook that calls the model again after a failure worth retrying, with
 * exponential backoff and jitter, honouring a provider's `Retry-After`. Throws
 * `HooklineError(InvalidConfiguration)` for a bad option.
 *
 * @since 0.1.0
 * @category constructors
 */
export const modelRetry = (options: ModelRetryOptions = {}): WrapHook.InferenceWrap => modelRetryOf(options).wrap

// The wrap and its place, from one reading of the caller's options (a getter may answer
// otherwise the second time): the capability registers the `name`/`priority` checked here.
const modelRetryOf = (options: ModelRetryOptions): O.Placed<WrapHook.InferenceWrap> => {
  const at = "modelRetry"
  const o = O.record(at, options, modelKeys)
  const schedule = scheduleOf(at, o)
  const retryable = O.boolean(`${at}.retryable`, o["retryable"], true)
  const statuses = new Set(O.integers(`${at}.statuses`, o["statuses"], defaultStatuses))
  const honor = O.boolean(`${at}.honorRetryAfter`, o["honorRetryAfter"], true)
  const maxRetryAfterMs = O.number(`${at}.maxRetryAfterMs`, o["maxRetryAfterMs"], 60_000, 0)
  const placement = O.placement(at, o, "retry:model", 200)
  const when = o["when"]
  if (when !== undefined && typeof when !== "function") O.invalid(`${at}.when`, "expected a function from the error to a boolean")
  const worthRetrying = (when as ModelRetryOptions["when"]) ??
    ((e: AgentError.InferenceFailed) => (retryable && e.retryable) || (e.status !== undefined && statuses.has(e.status)))
  const wrap = WrapHook.inference<never>((ctx, next) => {
    const attempt = (n: number): ReturnType<typeof next> =>
      Effect.catch(next(ctx), (error) => {
        if (n >= schedule.maxAttempts || !worthRetrying(error)) return Effect.fail(error)
        const asked = honor ? error.retryAfterMs : undefined
        if (asked !== undefined && asked > maxRetryAfterMs) return Effect.fail(error)
        return Effect.andThen(wait(schedule, n, asked ?? 0), attempt(n + 1))
      })
    return attempt(1)
  })
  return { wrap, placement }
}

/**
 * Model retry as a capability: `UseModelRetry({ maxAttempts: 4 })`.
 *
 * @since 0.1.0
 * @category capabilities
 */
export const UseModelRetry = (options: ModelRetryOptions = {}): AgentBuilder.Capability => {
  const { wrap, placement } = modelRetryOf(options)
  return UseWrap(wrap, placement)
}

const retriedTags = (timeouts: boolean): ReadonlySet<string> => new Set(timeouts ? ["ToolFailed", "ToolTimedOut"] : ["ToolFailed"])

/**
 * A wrap hook that runs a failed tool call again, for the tools named. Only a tool's
 * own failure (a throw, and a timeout unless `timeouts: false`) is retried: invalid
 * arguments or an unknown tool would fail the same way again.
 *
 * @since 0.1.0
 * @category constructors
 */
export const toolRetry = (options: ToolRetryOptions): WrapHook.ToolWrap => toolRetryOf(options).wrap

const toolRetryOf = (options: ToolRetryOptions): O.Placed<WrapHook.ToolWrap> => {
  const at = "toolRetry"
  const o = O.record(at, options, toolKeys)
  if (options === undefined) O.invalid(`${at}.tools`, "expected the names of the tools to retry")
  const tools = O.strings(`${at}.tools`, o["tools"])
  const schedule = scheduleOf(at, o)
  const tags = retriedTags(O.boolean(`${at}.timeouts`, o["timeouts"], true))
  const placement = O.placement(at, o, "retry:tools", 200)
  const wrap = WrapHook.forTools(
    tools,
    WrapHook.toolUse((ctx, next) => {
      const attempt = (n: number): Effect.Effect<ToolExecution> =>
        Effect.flatMap(next(ctx), (execution) =>
          execution.status !== "failure" || !tags.has(execution.error._tag) || n >= schedule.maxAttempts
            ? Effect.succeed(execution)
            : Effect.andThen(wait(schedule, n), attempt(n + 1)))
      return attempt(1)
    }),
  )
  return { wrap, placement }
}

/**
 * Tool retry as a capability: `UseToolRetry({ tools: ["search"], maxAttempts: 3 })`.
 *
 * @since 0.1.0
 * @category capabilities
 */
export const UseToolRetry = (options: ToolRetryOptions): AgentBuilder.Capability => {
  const { wrap, placement } = toolRetryOf(options)
  return UseWrap(wrap, placement)
}
