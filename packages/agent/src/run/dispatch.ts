// Runs a trigger's hooks and commits the state they returned, or, when one failed, the
// state the hooks before it reached. On the synchronous path (every hook pure, or an
// effectful hook answering at once with an `Exit`, as `Effect.succeed(ctx)` is) nothing
// is yielded: no Effect is built or run. A trigger with no hooks builds no context at
// all: its parts come back as they went in.
import { AgentError, AgentState, HookContext, HookStack, Interceptor, type InferenceRequest, type InferenceResponse, type ToolCall, type ToolExecution } from "@hookline/core"
import { Cause, Effect, Exit } from "effect"
import { isEffect } from "../internal/isEffect.js"
import type { RunCell } from "./cell.js"
import type { DispatchInput, Dispatched, Phase, RunEnv, StepDispatched } from "./types.js"
import { point } from "./records.js"

export function* dispatch<R>(env: RunEnv<R>, cell: RunCell, input: DispatchInput): Phase<Dispatched, AgentError.HookFailed, R> {
  const now = dispatchNow(env, cell, input)
  return isEffect(now) ? yield* now : now
}

// What a trigger with no hooks gives back: no part changed (each caller falls back on
// its own). Shared, so a silent trigger builds nothing.
const unchanged: StepDispatched = Object.freeze({})

/**
 * `dispatchNow` at one of the step's triggers, from the parts of its context: a trigger
 * with no hooks builds no input and no context (at K = 0 four of a tool step's six
 * dispatches), and gives back `unchanged`.
 */
export const dispatchAt = <R>(
  env: RunEnv<R>,
  cell: RunCell,
  trigger: StepTrigger,
  createdAt: number,
  request?: InferenceRequest,
  response?: InferenceResponse,
  toolCall?: ToolCall,
  toolExecution?: ToolExecution,
): StepDispatched | Effect.Effect<StepDispatched, AgentError.HookFailed, R> => {
  if (env.config.silent[trigger]) return unchanged
  // The parts go to the context through the cell's one input, filled and emptied here
  // (the context copies them): no input object per dispatch. They are the loop's own,
  // frozen all through (the state checked where it entered and at every hook's or
  // interceptor's return), so nothing is walked (HookContext.fromFrozenParts).
  const input = (cell.input ??= point(trigger, cell.state, createdAt)) as Writable<DispatchInput>
  input.trigger = trigger
  input.state = cell.state
  input.createdAt = createdAt
  input.request = request
  input.response = response
  input.toolCall = toolCall
  input.toolExecution = toolExecution
  input.runContext = env.runContext
  const ctx = HookContext.fromFrozenParts(input)
  // Nothing of this dispatch stays reachable from the cell.
  input.request = input.response = input.toolCall = input.toolExecution = input.runContext = undefined
  return intercepted(env, cell, ctx)
}

type Writable<A> = { -readonly [K in keyof A]: A[K] }

/** The triggers of a step, whose callers read only the parts a dispatch gives back. */
export type StepTrigger = "BeforeStep" | "BeforeInference" | "AfterInference" | "BeforeToolUse" | "AfterToolUse" | "AfterStep"

/**
 * The dispatch of the hot path: the hooks' result at once when every hook ran
 * synchronously, else an Effect to yield. The caller writes
 * `const d = dispatchNow(…); const out = isEffect(d) ? yield* d : d`, and so
 * makes no generator per dispatch (six per tool step) when the hooks are pure.
 */
export const dispatchNow = <R>(
  env: RunEnv<R>,
  cell: RunCell,
  input: DispatchInput,
): Dispatched | Effect.Effect<Dispatched, AgentError.HookFailed, R> => {
  if (env.config.silent[input.trigger]) return input as Dispatched
  // Every input has the field (one shape); it is filled here, not by each caller.
  if (env.runContext !== undefined) (input as { runContext: unknown }).runContext = env.runContext
  return intercepted(env, cell, HookContext.make(input))
}

// The hooks on a context, and their state committed (`dispatchNow`).
const intercepted = <R>(
  env: RunEnv<R>,
  cell: RunCell,
  ctx: HookContext,
): HookContext | Effect.Effect<HookContext, AgentError.HookFailed, R> => {
  const interceptor = env.config.interceptor
  if (HookStack.isHookStack(interceptor)) {
    // A stack checked every hook's return: what it gives back is committed as it is.
    const out = (interceptor as HookStack.HookStack<R>).interceptNow(ctx, env.interceptEnv)
    if (!isEffect(out)) {
      cell.state = out.state
      return out
    }
    // Failed at once: as a pure hook's failure (no time passed, the clock stays read).
    if (Exit.isExit(out)) return atOnce(cell, out as Exit.Exit<HookContext, AgentError.HookFailed>)
    return settled(cell, out)
  }
  // A custom interceptor is user code: its return gets the check a hook's return gets.
  const sync = interceptor.interceptSync
  if (sync !== undefined) {
    let out: HookContext | undefined
    try {
      out = sync(ctx, env.interceptEnv)
    } catch (error) {
      // Whatever it threw is its failure, as a hook's throw is (but a programmer error
      // core raised: a stack whose wrap hooks the loop cannot see).
      if (Interceptor.isDefect(error)) return Effect.die(error)
      const failed = Interceptor.failureOf(ctx, error)
      commitReached(cell, failed, ctx)
      return Effect.fail(failed)
    }
    if (out !== undefined) {
      const checked = Interceptor.checkReturn(ctx, out)
      if (Interceptor.isFailure(checked)) return Effect.fail(checked)
      cell.state = checked.state
      return checked
    }
  }
  return settledCustom(cell, env.intercept(ctx), ctx)
}

// Commits what a stack's dispatch that waited reached.
const settled = <R>(cell: RunCell, dispatched: Effect.Effect<HookContext, AgentError.HookFailed, R>) =>
  Effect.matchEffect(dispatched, {
    onFailure: (error) => {
      cell.stale = true
      commitReached(cell, error, undefined)
      return Effect.fail(error)
    },
    onSuccess: (out) => {
      cell.stale = true
      cell.state = out.state
      return Effect.succeed(out)
    },
  })

// Commits what a custom interceptor's Effect reached, its return checked against `input`
// (the context it was given). An interruption stays one, so does a programmer error
// core raised (`Interceptor.isDefect`); anything else it failed or died with fails the
// dispatch as a hook's would (`Interceptor.failureOf`).
const settledCustom = <R>(cell: RunCell, dispatched: Effect.Effect<HookContext, AgentError.HookFailed, R>, input: HookContext) =>
  Effect.matchCauseEffect(dispatched, {
    onFailure: (cause) => {
      cell.stale = true
      if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause)
      const squashed = Cause.squash(cause)
      if (Interceptor.isDefect(squashed)) return Effect.failCause(cause)
      const error = Interceptor.failureOf(input, squashed)
      commitReached(cell, error, input)
      return Effect.fail(error)
    },
    onSuccess: (out) => {
      cell.stale = true
      const checked = Interceptor.checkReturn(input, out)
      if (Interceptor.isFailure(checked)) return Effect.fail(checked)
      cell.state = checked.state
      return Effect.succeed(checked)
    },
  })

const atOnce = (cell: RunCell, exit: Exit.Exit<HookContext, AgentError.HookFailed>): HookContext | Exit.Exit<HookContext, AgentError.HookFailed> => {
  if (exit._tag === "Success") {
    cell.state = exit.value.state
    return exit.value
  }
  for (const reason of exit.cause.reasons) if (reason._tag === "Fail") commitReached(cell, reason.error, undefined)
  return exit
}

// A failed dispatch keeps the state changes of the hooks before the failing one: for a
// custom interceptor (`input` given) only a reached context that passes its check.
const commitReached = (cell: RunCell, error: AgentError.HookFailed, input: HookContext | undefined): void => {
  const reached = input === undefined ? HookStack.contextAtFailure(error) : Interceptor.reachedOf(input, error)
  if (reached !== undefined) cell.state = reached.state
}

/** A hook failure that does not end the run (OnStop, OnError, AfterExecution): recorded and reported. */
export const reportHookFailure = <R>(env: RunEnv<R>, cell: RunCell, error: AgentError.HookFailed): void => {
  cell.state = AgentState.addError(cell.state, error)
  env.emit?.({ _tag: "HookFailed", error })
}
