import { HooklineError, hookFailed, messageOf, type HookFailed } from "../AgentError.js"
import type { Hook } from "../Hook.js"
import * as HookContext from "../HookContext.js"
import * as HookExecuted from "../HookExecuted.js"
import type { HookTrigger } from "../HookTrigger.js"
import type { WrapPoint } from "../WrapHook.js"
import { deepFreeze } from "./immer.js"

// The context a failing hook was given (what the hooks before it returned), by failure:
// their state changes persist (DESIGN.md), so the loop commits it. Kept beside the
// error, not in it: errors are plain, codec-able records.
const reached = new WeakMap<HookFailed, HookContext.HookContext>()

/** `error`, remembering the context the failing hook was given. */
export const failedAt = (error: HookFailed, ctx: HookContext.HookContext): HookFailed => {
  reached.set(error, ctx)
  return error
}

/** The context the failing hook of `error` was given, if a stack dispatch failed. */
export const contextAtFailure = (error: HookFailed): HookContext.HookContext | undefined => reached.get(error)

/** What the dispatcher needs of its surroundings: where events go and a clock. */
export interface DispatchEnv {
  readonly sink?: HookExecuted.EventSink | undefined
  /** Epoch milliseconds; used for events and to stamp `updatedAt`. */
  readonly now?: (() => number) | undefined
}

export interface Entry {
  readonly name: string
  readonly onError: "fail" | "skip"
}

/**
 * Checks what a hook returned: a context of the same trigger, deeply frozen (a context
 * spread by hand is frozen here; frozen parts are not walked again), with any block
 * of the input kept. Returns the error text for a return that is not a context.
 */
export const settle = (input: HookContext.HookContext, output: unknown): HookContext.HookContext | string => {
  if (!HookContext.isHookContext(output)) {
    if (disarm(output)) return "returned a Promise (or another thenable): a pure hook returns a HookContext at once; register an async function with Hook.promise"
    return `returned ${output === undefined ? "undefined" : "something that is not a HookContext"}`
  }
  if (output.trigger !== input.trigger) return `changed the trigger from ${input.trigger} to ${String(output.trigger)}`
  const frozen = Object.isFrozen(output) ? output : deepFreeze(output)
  return input.toolExecutionBlocked ? HookContext.keepBlock(input, frozen) : frozen
}

const ignore = (): void => {}

/**
 * Handles the rejection of a thenable a pure hook returned or threw (an async function
 * registered as a pure hook): nobody awaits it, and an unhandled rejection kills a Node
 * process in its default mode. True when `value` was a thenable.
 */
export const disarm = (value: unknown): boolean => {
  if ((typeof value !== "object" || value === null) && typeof value !== "function") return false
  try {
    const then = (value as { readonly then?: unknown }).then
    if (typeof then !== "function") return false
    then.call(value, undefined, ignore)
    return true
  } catch {
    // A throwing `then` getter or call: nothing was left pending by us.
    return false
  }
}

const emit = (
  sink: HookExecuted.EventSink,
  trigger: HookTrigger | WrapPoint,
  entry: Entry,
  startedAt: number,
  endedAt: number,
  outcome: HookExecuted.Outcome,
  error?: string,
): void => {
  try {
    sink(HookExecuted.make({ trigger, hook: entry.name, startedAt, durationMs: endedAt - startedAt, outcome, error }))
  } catch {
    // A sink is an observer: its failure must not change the run.
  }
}

const defaultNow = (): number => performance.timeOrigin + performance.now()

/**
 * Runs pure hooks in order, each on what the previous returned. Throws a
 * `HooklineError(HookFailed)` when a hook under 'fail' throws or returns garbage.
 */
export const dispatchPure = (
  trigger: HookTrigger,
  hooks: ReadonlyArray<Hook>,
  entries: ReadonlyArray<Entry>,
  input: HookContext.HookContext,
  env: DispatchEnv | undefined,
): HookContext.HookContext => {
  const sink = env?.sink
  let ctx = input
  if (sink === undefined) {
    // The hot path: no clock readings, no events, no allocation when hooks return their input.
    for (let i = 0; i < hooks.length; i++) {
      let out: HookContext.HookContext | string
      try {
        out = (hooks[i] as Hook)(ctx)
        if (out !== ctx) out = settle(ctx, out)
      } catch (cause) {
        disarm(cause)
        out = messageOf(cause)
      }
      if (typeof out === "string") {
        const entry = entries[i] as Entry
        if (entry.onError === "skip") continue
        throw new HooklineError(failedAt(hookFailed(entry.name, trigger, out), ctx))
      }
      ctx = out
    }
  } else {
    const now = env?.now ?? defaultNow
    for (let i = 0; i < hooks.length; i++) {
      const entry = entries[i] as Entry
      const startedAt = now()
      let out: HookContext.HookContext | string
      try {
        out = (hooks[i] as Hook)(ctx)
        if (out !== ctx) out = settle(ctx, out)
      } catch (cause) {
        disarm(cause)
        out = messageOf(cause)
      }
      if (typeof out === "string") {
        const outcome = entry.onError === "skip" ? "skipped" : "failed"
        emit(sink, trigger, entry, startedAt, now(), outcome, out)
        if (outcome === "skipped") continue
        throw new HooklineError(failedAt(hookFailed(entry.name, trigger, out), ctx))
      }
      emit(sink, trigger, entry, startedAt, now(), out === ctx ? "unchanged" : "changed")
      ctx = out
    }
  }
  return ctx !== input && env?.now !== undefined ? HookContext.stampUpdatedAt(ctx, env.now()) : ctx
}

export { emit }
