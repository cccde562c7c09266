// Runs a trigger's hooks and commits the state they returned, or, when one failed, the
// state the hooks before it reached. On the synchronous path (every hook pure) nothing
// is yielded: no Effect is built or run. A trigger with no hooks builds no context at
// all: its parts come back as they went in.
import { AgentError, AgentState, HookContext, HookStack } from "@hookline/core"
import { Effect } from "effect"
import { isEffect } from "../internal/isEffect.js"
import type { RunCell } from "./cell.js"
import type { DispatchInput, Dispatched, Phase, RunEnv } from "./types.js"

export function* dispatch<R>(env: RunEnv<R>, cell: RunCell, input: DispatchInput): Phase<Dispatched, AgentError.HookFailed, R> {
  const now = dispatchNow(env, cell, input)
  return isEffect(now) ? yield* now : now
}

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
  const ctx = HookContext.make(input)
  const sync = env.config.interceptor.interceptSync
  if (sync !== undefined) {
    let out: HookContext | undefined
    try {
      out = sync(ctx, env.interceptEnv)
    } catch (error) {
      if (error instanceof AgentError.HooklineError && error.error._tag === "HookFailed") {
        commitReached(cell, error.error)
        return Effect.fail(error.error)
      }
      return Effect.die(error)
    }
    if (out !== undefined) {
      cell.state = out.state
      return out
    }
  }
  return Effect.matchEffect(env.intercept(ctx), {
    onFailure: (error) => {
      cell.stale = true
      commitReached(cell, error)
      return Effect.fail(error)
    },
    onSuccess: (out) => {
      cell.stale = true
      cell.state = out.state
      return Effect.succeed(out)
    },
  })
}

// A failed dispatch keeps the state changes of the hooks before the failing one.
const commitReached = (cell: RunCell, error: AgentError.HookFailed): void => {
  const reached = HookStack.contextAtFailure(error)
  if (reached !== undefined) cell.state = reached.state
}

/** A hook failure that does not end the run (OnStop, OnError, AfterExecution): recorded and reported. */
export const reportHookFailure = <R>(env: RunEnv<R>, cell: RunCell, error: AgentError.HookFailed): void => {
  cell.state = AgentState.addError(cell.state, error)
  env.emit?.({ _tag: "HookFailed", error })
}
