// A rate limiter: on BeforeToolUse, at most `max` calls of `tool` per run. The count
// lives in the execution's metadata (`state.execution.metadata`): it persists across
// steps and checkpoints of one run, and starts at zero when a finished state runs
// again (the state's own `metadata` would carry it into the next run and block its
// first call). The calls past the limit are blocked with a reason the model reads.
import { AgentState, HookContext, HookTrigger, HookTriggers, type Hook, type HookStack } from "@hookline/core"

export interface RateLimit {
  readonly tool: string
  readonly max: number
}

/** Where the count of a tool's calls is kept in `state.execution.metadata`. */
export const counterKey = (tool: string): string => `rate_limit:${tool}`

/** The calls of `tool` counted so far in this run (0 when absent or not a count). */
export const callsOf = (state: AgentState, tool: string): number => {
  const value = state.execution.metadata[counterKey(tool)]
  return typeof value === "number" && Number.isInteger(value) && value >= 0 ? value : 0
}

/** The reason a call past the limit is blocked with. */
export const reasonFor = ({ tool, max }: RateLimit): string => `rate limit: at most ${max} call(s) of ${tool} per run`

/**
 * The hook. A call that an earlier hook blocked is not counted; give the limiter a
 * priority below your other policies so it counts only the calls that get through them.
 */
export const rateLimit = (limit: RateLimit): Hook => {
  const reason = reasonFor(limit)
  const key = counterKey(limit.tool)
  return (ctx) => {
    if (ctx.trigger !== HookTrigger.BeforeToolUse || ctx.toolCall?.name !== limit.tool || ctx.toolExecutionBlocked) return ctx
    const used = callsOf(ctx.state, limit.tool)
    return used >= limit.max
      ? HookContext.withToolExecutionBlocked(ctx, reason)
      : HookContext.withState(ctx, AgentState.withExecutionMetadata(ctx.state, { [key]: used + 1 }))
  }
}

/** How it is registered. */
export const rateLimitOptions = (limit: RateLimit) =>
  ({
    triggers: HookTriggers.of(HookTrigger.BeforeToolUse),
    priority: 10,
    name: `policy:rate_limit:${limit.tool}`,
  }) satisfies HookStack.HookOptions
