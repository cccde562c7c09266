// Hooks for the kit's own tests: well-behaved ones, and one deliberate violator per law.
import {
  AgentState,
  Guards,
  HookContext,
  Message,
  StopReason,
  StopSignal,
  ToolExecution,
  type Hook,
} from "@hookline/core"
import { HookLaws } from "@hookline/testing"
import fc from "fast-check"
import { expect } from "vitest"

// ----- well-behaved --------------------------------------------------------------

export const denyShell: Hook = (ctx) =>
  ctx.toolCall?.name === "shell" ? HookContext.withToolExecutionBlocked(ctx, "shell is not allowed") : ctx

export const tagTenant: Hook = (ctx) => HookContext.withMetadata(ctx, { tenant: "acme" })

/** A caller's run context, and its generator. */
export interface Caller {
  readonly role: "admin" | "viewer"
}
export const callers = fc.record({ role: fc.constantFrom<Caller["role"]>("admin", "viewer") })

/** Reads the typed run context (no undefined check): viewers may not run the shell. */
export const viewersNoShell: Hook<Caller> = (ctx) =>
  ctx.toolCall?.name === "shell" && ctx.runContext.role === "viewer"
    ? HookContext.withToolExecutionBlocked(ctx, "viewers may not run the shell")
    : ctx

export const lastTwo: Hook = (ctx) =>
  ctx.request === undefined ? ctx : HookContext.withRequest(ctx, { ...ctx.request, messages: ctx.request.messages.slice(-2) })

export const redactOutput: Hook = (ctx) =>
  ctx.toolExecution?.status === "success" && typeof ctx.toolExecution.output === "string" && ctx.toolExecution.output.includes("x")
    ? HookContext.withToolResult(ctx, ctx.toolExecution.output.replaceAll("x", "*"))
    : ctx

// ----- violators -----------------------------------------------------------------

/** Writes into its input (cast away readonly). */
export const mutatesMetadata: Hook = (ctx) => {
  ;(ctx.metadata as { touched?: boolean }).touched = true
  return ctx
}

/** Pushes into the state's stop signals in place. */
export const mutatesSignals: Hook = (ctx) => {
  ;(ctx.state.execution.stopSignals as Array<StopSignal>).push(StopSignal.make(StopReason.StopRequested, "stop", "mut"))
  return ctx
}

/** Writes, but swallows the TypeError a frozen input throws. */
export const mutatesQuietly: Hook = (ctx) => {
  try {
    ;(ctx.state as { id: string }).id = "changed"
  } catch {
    // ignored on purpose: the law must see the write anyway
  }
  return ctx
}

/** Reads the clock into metadata. */
export const readsClock: Hook = (ctx) => HookContext.withMetadata(ctx, { at: Date.now() })

/** Reads `new Date()`. */
export const readsDate: Hook = (ctx) => HookContext.withMetadata(ctx, { day: new Date().toISOString().slice(0, 13) })

/** Reads the monotonic clock. */
export const readsUptime: Hook = (ctx) => HookContext.withMetadata(ctx, { uptime: performance.now() })

/** Times itself: two clock readings a tick apart. */
export const timesItself: Hook = (ctx) => {
  const start = performance.now()
  const out = HookContext.withMetadata(ctx, { seen: true })
  return HookContext.withMetadata(out, { tookMs: performance.now() - start })
}

/** Draws an id. */
export const drawsId: Hook = (ctx) => HookContext.withMetadata(ctx, { requestId: crypto.randomUUID() })

/** Draws randomness. */
export const drawsRandom: Hook = (ctx) => (Math.random() < 0.5 ? HookContext.withMetadata(ctx, { lucky: true }) : ctx)

/** Keeps state between calls. */
export const counts = (): Hook => {
  let calls = 0
  return (ctx) => HookContext.withMetadata(ctx, { calls: ++calls })
}

/** Spreads the block away. */
export const liftsBlock: Hook = (ctx) => Object.freeze({ ...ctx, toolExecutionBlocked: false })

/** Keeps the flag but rewrites the blocked execution's reason. */
export const rewordsBlock: Hook = (ctx) =>
  ctx.toolCall !== undefined && ctx.toolExecutionBlocked
    ? Object.freeze({ ...ctx, toolExecution: ToolExecution.blocked(ctx.toolCall, "reworded", ctx.createdAt) })
    : ctx

/** Sets the trigger to undefined. */
export const dropsTrigger: Hook = (ctx) => Object.freeze({ ...ctx, trigger: undefined }) as unknown as HookContext

/** Moves the context to another trigger. */
export const changesTrigger: Hook = (ctx) => Object.freeze({ ...ctx, trigger: "AfterStep" as const })

/** Returns nothing. */
export const returnsNothing: Hook = () => undefined as unknown as HookContext

/** Returns a hand-spread, unfrozen context. */
export const spreadsUnfrozen: Hook = (ctx) => ({ ...ctx, metadata: { ...ctx.metadata, seen: true } })

/** Appends a message every time: not idempotent. */
export const appendsNote: Hook = (ctx) => HookContext.withState(ctx, AgentState.appendMessage(ctx.state, Message.user("note")))

/** Two hooks that append: their order shows in the history. */
export const appendsA: Hook = (ctx) => HookContext.withState(ctx, AgentState.appendMessage(ctx.state, Message.user("a")))
export const appendsB: Hook = (ctx) => HookContext.withState(ctx, AgentState.appendMessage(ctx.state, Message.user("b")))

const removeSignals = (ctx: HookContext, source: string): HookContext =>
  HookContext.updateState(ctx, (draft) => {
    draft.execution.stopSignals = draft.execution.stopSignals.filter((s) => s.source !== source)
  })

/** A "guard" that removes its own signal when it runs again. */
export const togglingGuard: Hook = (ctx) =>
  ctx.state.execution.stopSignals.some((s) => s.source === "guard:toggle")
    ? removeSignals(ctx, "guard:toggle")
    : AgentState.stepCount(ctx.state) >= 2
      ? HookContext.withStopSignal(ctx, StopSignal.make(StopReason.StepsLimitReached, "two steps", "guard:toggle"))
      : ctx

/** A "guard" that re-judges every time: it drops its signal once the last step no longer ended with "length". */
export const forgetfulGuard: Hook = (ctx) =>
  AgentState.lastStep(ctx.state)?.finishReason === "length"
    ? HookContext.withStopSignal(ctx, StopSignal.make(StopReason.FinishReasonReceived, "length", "guard:forgetful"))
    : removeSignals(ctx, "guard:forgetful")

/** Throws on an expected condition instead of returning a block. */
export const throwsOnShell: Hook = (ctx) => {
  if (ctx.toolCall?.name === "shell") throw new Error("shell is not allowed")
  return ctx
}

export const steps = Guards.stepsLimit

// ----- helpers -------------------------------------------------------------------

/** The LawFailed `f` throws; fails the test when it throws nothing or something else. */
export const failureOf = (f: () => unknown): HookLaws.LawFailed => {
  try {
    f()
  } catch (error) {
    if (error instanceof HookLaws.LawFailed) return error
    throw error
  }
  expect.unreachable("expected a HookLaws.LawFailed")
  throw new Error("unreachable")
}

/**
 * A response cache keeping a Map in a closure across triggers (issue 15): filled at
 * AfterInference, read at BeforeInference. Each trigger alone gives equal outputs for
 * equal inputs; the same context gives another result once AfterInference ran.
 */
export const closureCache = (): Hook => {
  const cache = new Map<string, NonNullable<HookContext["response"]>>()
  const keyOf = (ctx: HookContext) => JSON.stringify([...(ctx.request?.messages ?? [])])
  return (ctx) => {
    if (ctx.trigger === "AfterInference" && ctx.response !== undefined) {
      cache.set(keyOf(ctx), ctx.response)
      return ctx
    }
    const hit = ctx.trigger === "BeforeInference" ? cache.get(keyOf(ctx)) : undefined
    return hit === undefined ? ctx : HookContext.withResponse(ctx, hit)
  }
}

