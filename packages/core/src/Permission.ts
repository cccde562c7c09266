/**
 * A permission hook: asks whether a tool call may run, and denies unless the answer
 * is a clear yes. A decision that fails, times out or is interrupted denies
 * (fail-closed), so the tool never runs on a question nobody answered.
 *
 * @since 0.1.0
 */
import { Cause, Duration, Effect, Exit } from "effect"
import * as AgentError from "./AgentError.js"
import type * as Hook from "./Hook.js"
import * as HookContext from "./HookContext.js"
import { finiteDuration } from "./internal/duration.js"

/**
 * `true` allows the call; `false` or `{ allow: false, reason }` denies it.
 *
 * @since 0.1.0
 * @category models
 */
export type Decision = boolean | { readonly allow: boolean; readonly reason?: string | undefined }

/**
 * What a decision may be computed as: a value, a Promise (it gets an `AbortSignal`
 * that fires on timeout or interruption) or an Effect.
 *
 * @since 0.1.0
 * @category models
 */
export type Decide<E = unknown, R = never> = (
  ctx: HookContext.HookContext,
  signal: AbortSignal,
) => Decision | PromiseLike<Decision> | Effect.Effect<Decision, E, R>

/**
 * @since 0.1.0
 * @category models
 */
export interface Options<E = unknown, R = never> {
  readonly decide: Decide<E, R>
  /** Denies when no decision came within this time (an Effect duration: `"30 seconds"`, ms). */
  readonly timeout?: Duration.Input | undefined
}

/**
 * The reasons a call is denied with, as the model sees them.
 *
 * @since 0.1.0
 * @category reasons
 */
export const reasons = {
  denied: "permission denied",
  timedOut: (after: string) => `permission denied: no decision within ${after}`,
  interrupted: "permission denied: the permission check was interrupted",
  failed: (message: string) => `permission denied: the permission check failed (${message})`,
} as const

const invalid = (path: string, detail: string): never => {
  throw new AgentError.HooklineError(AgentError.invalidConfiguration(path, detail))
}

const decisionOf = (ctx: HookContext.HookContext, decide: Decide<unknown, unknown>) =>
  Effect.suspend(() => {
    const controller = new AbortController()
    const made = decide(ctx, controller.signal)
    const effect: Effect.Effect<Decision, unknown, unknown> = Effect.isEffect(made)
      ? made
      : Effect.tryPromise({ try: () => Promise.resolve(made), catch: (cause) => cause })
    return effect.pipe(Effect.onInterrupt(() => Effect.sync(() => controller.abort())))
  })

// The reason a decision denies with, or undefined when it allows. Anything but a
// boolean `true` or `{ allow: true }` denies.
const denial = (decision: unknown): string | undefined => {
  if (decision === true) return undefined
  if (typeof decision === "object" && decision !== null && "allow" in decision) {
    if (decision.allow === true) return undefined
    const reason = "reason" in decision ? decision.reason : undefined
    return typeof reason === "string" && reason.length > 0 ? `${reasons.denied}: ${reason}` : reasons.denied
  }
  return reasons.denied
}

/**
 * A BeforeToolUse hook that runs `decide` for every tool call not blocked already,
 * and blocks the call unless the decision allows it. Register it on BeforeToolUse
 * (elsewhere it returns its input). With `timeout`, a decision that takes longer
 * denies, and a Promise decision's signal fires.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <E = unknown, R = never>(options: Options<E, R>): Hook.EffectHook<never, R> => {
  if (typeof options !== "object" || options === null) invalid("permission", "expected { decide, timeout? }")
  if (typeof options.decide !== "function") invalid("permission.decide", `expected a function, got ${typeof options.decide}`)
  let timeout: Duration.Duration | undefined
  if (options.timeout !== undefined) {
    const parsed = finiteDuration(options.timeout)
    if (typeof parsed === "string") invalid("permission.timeout", parsed)
    else timeout = parsed
  }
  const decide = options.decide as Decide<unknown, unknown>
  const run = (ctx: HookContext.HookContext): Effect.Effect<HookContext.HookContext, never, R> => {
    if (ctx.trigger !== "BeforeToolUse" || ctx.toolCall === undefined || ctx.toolExecutionBlocked) return Effect.succeed(ctx)
    const decision = timeout === undefined ? decisionOf(ctx, decide) : decisionOf(ctx, decide).pipe(Effect.timeout(timeout))
    return Effect.map(Effect.exit(decision), (exit) => {
      const reason = Exit.isSuccess(exit) ? denial(exit.value) : failureReason(exit.cause, timeout)
      return reason === undefined ? ctx : HookContext.withToolExecutionBlocked(ctx, reason)
    }) as Effect.Effect<HookContext.HookContext, never, R>
  }
  return Object.freeze({ _tag: "EffectHook", run })
}

const failureReason = (cause: Cause.Cause<unknown>, timeout: Duration.Duration | undefined): string => {
  if (Cause.hasInterruptsOnly(cause)) return reasons.interrupted
  const error = Cause.squash(cause)
  if (timeout !== undefined && Cause.isTimeoutError(error)) return reasons.timedOut(Duration.format(timeout))
  return reasons.failed(AgentError.messageOf(error))
}
