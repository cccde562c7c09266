/**
 * A limit on the tool calls of a run, in total and per tool. A call over the limit is
 * blocked with a reason the model reads (`onLimit: "block"`, the default: the model
 * can answer with what it has) or blocked and the run stopped (`onLimit: "stop"`).
 * The counts are kept in the state's metadata under `limit:tool_calls` and start
 * again at each run. Calls another hook blocked first are not counted: register your
 * permission hooks at a higher priority than this one (-100).
 *
 * @since 0.1.0
 */
import { UseHook, type AgentBuilder } from "@hookline/agent"
import { AgentState, HookContext, HookTrigger, HookTriggers, StopReason, StopSignal, type Hook } from "@hookline/core"
import * as O from "./internal/builtinOptions.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The most tool calls in a run, whatever the tool. */
  readonly total?: number | undefined
  /** The most calls of each named tool in a run. */
  readonly perTool?: Readonly<Record<string, number>> | undefined
  /** `"block"` (default): the call is refused and the run goes on; `"stop"`: refused, and the run stops. */
  readonly onLimit?: "block" | "stop" | undefined
}

/** The hook's name, and its key in the state's metadata. @since 0.1.0 @category constants */
export const name = "limit:tool_calls"

/** Low, so permission hooks (usually positive) decide first. @since 0.1.0 @category constants */
export const priority = -100

/**
 * The stop reason of `onLimit: "stop"`: hard (a continuation cannot lift it), ranked
 * just above the steps limit (500).
 *
 * @since 0.1.0
 * @category constants
 */
export const stopReason: StopReason.Custom = StopReason.custom({ name: "ToolCallLimitReached", priority: 510, kind: "hard" })

// A type alias, so it is JSON for the metadata.
type Counts = {
  readonly total: number
  readonly byTool: Readonly<Record<string, number>>
}

const none: Counts = Object.freeze({ total: 0, byTool: Object.freeze({}) })

// The counts as stored; anything else (a state from elsewhere) counts from zero.
const countsOf = (u: unknown): Counts => {
  if (typeof u !== "object" || u === null) return none
  const { total, byTool } = u as Partial<Counts>
  return typeof total === "number" && Number.isSafeInteger(total) && typeof byTool === "object" && byTool !== null && !Array.isArray(byTool)
    ? { total, byTool }
    : none
}

const check = (options: unknown) => {
  const o = O.record("options", options, ["total", "perTool", "onLimit"])
  const total = o["total"] === undefined ? undefined : O.count("options.total", o["total"])
  // A Map: a tool may be named `__proto__`, which a plain object's assignment drops.
  const perTool = new Map<string, number>()
  if (o["perTool"] !== undefined) {
    for (const [tool, max] of Object.entries(O.table("options.perTool", o["perTool"]))) {
      perTool.set(tool, O.count(`options.perTool.${tool}`, max))
    }
  }
  if (total === undefined && perTool.size === 0) O.invalid("options", "expected total, perTool or both")
  const onLimit = o["onLimit"] === undefined ? "block" : O.oneOf("options.onLimit", o["onLimit"], ["block", "stop"] as const)
  return { total, perTool, onLimit }
}

/**
 * The hook (for BeforeExecution, to reset the counts, and BeforeToolUse). Throws
 * `InvalidConfiguration` for bad options.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options): Hook => {
  const { total, perTool, onLimit } = check(options)
  return (ctx) => {
    if (ctx.trigger === HookTrigger.BeforeExecution) {
      return ctx.state.metadata[name] === undefined ? ctx : HookContext.withState(ctx, AgentState.withMetadata(ctx.state, { [name]: none }))
    }
    if (ctx.trigger !== HookTrigger.BeforeToolUse || ctx.toolCall === undefined || ctx.toolExecutionBlocked) return ctx
    const counts = countsOf(ctx.state.metadata[name])
    const tool = ctx.toolCall.name
    const stored: unknown = Object.hasOwn(counts.byTool, tool) ? counts.byTool[tool] : 0
    const used = typeof stored === "number" && Number.isSafeInteger(stored) ? stored : 0
    const max = perTool.get(tool)
    const reason = total !== undefined && counts.total >= total
      ? `Tool call limit reached: ${counts.total}/${total} calls in this run`
      : max !== undefined && used >= max
      ? `Tool call limit reached: ${used}/${max} calls of ${tool} in this run`
      : undefined
    if (reason === undefined) {
      const next = { total: counts.total + 1, byTool: { ...counts.byTool, [tool]: used + 1 } }
      return HookContext.withState(ctx, AgentState.withMetadata(ctx.state, { [name]: next }))
    }
    const blocked = HookContext.withToolExecutionBlocked(ctx, reason)
    return onLimit === "stop" ? HookContext.withStopSignal(blocked, StopSignal.make(stopReason, reason, name)) : blocked
  }
}

/**
 * The limit as a capability: `UseHook(make(options), { triggers: BeforeExecution and
 * BeforeToolUse, priority: -100, name: "limit:tool_calls" })`.
 *
 * @example
 * ```ts
 * UseToolCallLimit({ total: 20, perTool: { search: 5 }, onLimit: "block" })
 * ```
 *
 * @since 0.1.0
 * @category capabilities
 */
export const UseToolCallLimit = (options: Options): AgentBuilder.Capability =>
  UseHook(make(options), {
    triggers: HookTriggers.of(HookTrigger.BeforeExecution, HookTrigger.BeforeToolUse),
    priority,
    name,
  })
