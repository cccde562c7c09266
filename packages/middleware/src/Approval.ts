/**
 * Human approval that suspends the run: a BeforeToolUse hook that, for the calls that
 * need a person's decision (named tools, or a predicate), suspends the run instead of
 * waiting in memory. The run ends `suspended` with the calls, a reason and a payload in
 * `state.execution.pendingCalls`; `agent.resume(runIdOrState, decisions)` goes on.
 * A call another hook blocked stays blocked (fail-closed).
 *
 * @since 0.1.0
 */
import { AgentError, HookContext, HookTrigger, HookTriggers, type AgentState, type Hook, type Json, type ToolCall } from "@hookline/core"
import { UseHook, type AgentBuilder } from "@hookline/agent"
import { Duration } from "effect"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The tools whose every call needs approval. */
  readonly tools?: ReadonlyArray<string> | undefined
  /** Or: which calls need approval. */
  readonly when?: ((toolCall: ToolCall, state: AgentState) => boolean) | undefined
  /** Why (shown to the person); default "needs approval". */
  readonly reason?: ((toolCall: ToolCall) => string) | string | undefined
  /** What to show the person; default the call's arguments. */
  readonly payload?: ((toolCall: ToolCall) => Json.JsonValue) | undefined
  /**
   * How long an approval holds (`"2 hours"`, a number of ms), from when the run
   * suspends; the next resume after it rejects the call ("the approval expired at …").
   * Default: it never expires.
   */
  readonly expiresIn?: Duration.Input | undefined
  /** Registration priority; default `defaultPriority`. */
  readonly priority?: number | undefined
  /** Registration name; default `defaultName`. */
  readonly name?: string | undefined
}

/**
 * After permission hooks (which block: a blocked call is not asked about).
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultPriority = -10

/**
 * @since 0.1.0
 * @category constants
 */
export const defaultName = "approval:suspend"

const invalid = (path: string, detail: string): never => {
  throw new AgentError.HooklineError(AgentError.invalidConfiguration(path, detail))
}

/**
 * The hook.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options): Hook => {
  const { tools, when, reason, payload } = options
  if (tools === undefined && when === undefined) invalid("", "expected tools or when")
  if (tools !== undefined && (!Array.isArray(tools) || tools.some((n) => typeof n !== "string"))) invalid("tools", "expected tool names")
  if (when !== undefined && typeof when !== "function") invalid("when", "expected a function")
  const expiry = options.expiresIn === undefined ? undefined : { expiresIn: durationOf(options.expiresIn) }
  const names = new Set(tools ?? [])
  return (ctx) => {
    const call = ctx.toolCall
    if (call === undefined) return ctx
    const needs = names.has(call.name) || (when !== undefined && when(call, ctx.state))
    if (!needs) return ctx
    const why = typeof reason === "function" ? reason(call) : reason ?? "needs approval"
    return HookContext.suspend(ctx, why, payload === undefined ? call.arguments : payload(call), expiry)
  }
}

// A finite duration >= 0, checked when the hook is made.
const durationOf = (input: Duration.Input): Duration.Duration => {
  const parsed = typeof input === "number" && !(input >= 0) ? undefined : Duration.fromInput(input)
  const ms = parsed === undefined || parsed._tag === "None" ? NaN : Duration.toMillis(parsed.value)
  return Number.isFinite(ms) && ms >= 0 ? Duration.millis(ms) : invalid("expiresIn", `expected a finite duration >= 0 ("2 hours", a number of ms), got ${String(input)}`)
}

/**
 * The hook as a capability, at BeforeToolUse.
 *
 * @since 0.1.0
 * @category capabilities
 */
export const UseApproval = (options: Options): AgentBuilder.Capability =>
  UseHook(make(options), {
    triggers: HookTriggers.of(HookTrigger.BeforeToolUse),
    priority: options.priority ?? defaultPriority,
    name: options.name ?? defaultName,
  })
