import type { Exit } from "effect"
import { HooklineError, hookFailed, messageOf, type HookFailed } from "../AgentError.js"
import type { Hook } from "../Hook.js"
import * as HookContext from "../HookContext.js"
import * as HookExecuted from "../HookExecuted.js"
import type { HookTrigger } from "../HookTrigger.js"
import type { WrapPoint } from "../internal/wrapPoint.js"
import { problemOf } from "./contextCheck.js"
import { deepFreeze } from "../internal/immer.js"
import { freezeChanged } from "./freezeChanged.js"
import { disarm } from "../internal/thenable.js"

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

// AfterExecution is the run's `finally`: a hook that fails under 'fail' does not stop
// the hooks after it. The dispatch fails at the end with the first failure; the others
// are kept beside it, and the context "at failure" is the one the last hook returned.
const others = new WeakMap<HookFailed, ReadonlyArray<HookFailed>>()

/** Every failure of the dispatch `error` ended, `error` first. */
export const failuresOf = (error: HookFailed): ReadonlyArray<HookFailed> => others.get(error) ?? [error]

/** Whether a hook failing under 'fail' lets the hooks after it run (AfterExecution). */
export const runsToTheEnd = (trigger: HookTrigger): boolean => trigger === "AfterExecution"

/** The error that ends a dispatch whose hooks all ran despite `failures`, reached at `ctx`. */
export const endedWith = (failures: ReadonlyArray<HookFailed>, ctx: HookContext.HookContext): HookFailed => {
  const first = failures[0] as HookFailed
  if (failures.length > 1) others.set(first, Object.freeze([...failures]))
  return failedAt(first, ctx)
}

/** What the dispatcher needs of its surroundings: where events go and a clock. */
export interface DispatchEnv {
  readonly sink?: HookExecuted.EventSink | undefined
  /** Epoch milliseconds; used for events and to stamp `updatedAt`. */
  readonly now?: (() => number) | undefined
  /**
   * Set by the loop when it calls a custom interceptor: the stack whose wrap hooks it
   * runs (`null`: none). A stack with other wrap hooks refuses to run (loopWraps.ts).
   */
  readonly loopWraps?: object | null | undefined
  /**
   * Set by the loop around a call wrap hooks hold: hears how a wrap hook whose `next` was
   * interrupted (it cut the call short: a timeout) ended, with a result or the call's
   * error, so the attempts it cut record why they ended (wrapChain.ts).
   */
  readonly onCut?: ((ended: Exit.Exit<unknown, unknown>) => void) | undefined
}

export interface Entry {
  readonly name: string
  readonly onError: "fail" | "skip"
}

/**
 * Checks what a hook returned: a valid context of the same trigger (its changed parts
 * are checked, `contextCheck.ts`), deeply frozen (a context spread by hand is frozen
 * here, and what differs from the input is frozen through, a frozen shell's parts
 * included: `freezeChanged.ts`), with any block of the input kept. Returns
 * the error text for a return that is not one.
 */
export const settle = (input: HookContext.HookContext, output: unknown): HookContext.HookContext | string => {
  if (!HookContext.isHookContext(output)) {
    if (disarm(output)) return "returned a Promise (or another thenable): a pure hook returns a HookContext at once; register an async function with Hook.promise"
    return `returned ${output === undefined ? "undefined" : "something that is not a HookContext"}`
  }
  const frozen = Object.isFrozen(output) ? output : deepFreeze(output)
  // A block is final: what a later hook did to the blocked call is undone, not checked.
  const kept = input.toolExecutionBlocked && Object.getPrototypeOf(frozen) === Object.prototype
    ? HookContext.keepBlock(input, frozen)
    : frozen
  const problem = problemOf(input, kept)
  if (problem !== undefined) return problem
  // Frozen through where it differs from the input, a frozen shell's parts included;
  // plain data there (no Proxy, accessor, hidden property or odd prototype).
  const notPlain = freezeChanged(input, kept)
  return notPlain === undefined ? kept : `returned an invalid context at ${notPlain}`
}

// What a hook did beyond its outcome, read from the context it was given and the one
// it returned: a block it added, else a stop signal it raised.
const effectOf = (before: HookContext.HookContext, after: HookContext.HookContext | undefined): HookExecuted.HookEffect | undefined => {
  if (after === undefined || after === before) return undefined
  if (after.toolExecutionBlocked && !before.toolExecutionBlocked) return "blocked"
  return after.state.execution.stopSignals.length > before.state.execution.stopSignals.length ? "stopped" : undefined
}

/**
 * Sends one hook execution to `sink`: `before` is the context the hook was given (its
 * run and tool call), `after` the one it returned, when it returned one.
 */
const emit = (
  sink: HookExecuted.EventSink,
  trigger: HookTrigger | WrapPoint,
  entry: Entry,
  startedAt: number,
  endedAt: number,
  outcome: HookExecuted.Outcome,
  error: string | undefined,
  before: HookContext.HookContext,
  after?: HookContext.HookContext,
): void => {
  try {
    sink(HookExecuted.make({
      trigger,
      hook: entry.name,
      startedAt,
      durationMs: endedAt - startedAt,
      outcome,
      error,
      runId: before.state.id,
      toolCallId: before.toolCall?.id,
      effect: effectOf(before, after),
    }))
  } catch {
    // A sink is an observer: its failure must not change the run.
  }
}

const defaultNow = (): number => performance.timeOrigin + performance.now()

/**
 * Runs pure hooks in order, each on what the previous returned. Throws a
 * `HooklineError(HookFailed)` when a hook under 'fail' throws or returns garbage; on
 * AfterExecution only after every hook ran (`runsToTheEnd`).
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
  let failures: Array<HookFailed> | undefined
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
        const failed = hookFailed(entry.name, trigger, out)
        if (!runsToTheEnd(trigger)) throw new HooklineError(failedAt(failed, ctx))
        ;(failures ??= []).push(failed)
        continue
      }
      ctx = out
    }
  } else {
    const now = env?.now ?? defaultNow
    // One clock reading between two hooks: the end of one is the start of the next.
    let reading = now()
    for (let i = 0; i < hooks.length; i++) {
      const entry = entries[i] as Entry
      const startedAt = reading
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
        reading = now()
        emit(sink, trigger, entry, startedAt, reading, outcome, out, ctx)
        if (outcome === "skipped") continue
        const failed = hookFailed(entry.name, trigger, out)
        if (!runsToTheEnd(trigger)) throw new HooklineError(failedAt(failed, ctx))
        ;(failures ??= []).push(failed)
        continue
      }
      reading = now()
      emit(sink, trigger, entry, startedAt, reading, out === ctx ? "unchanged" : "changed", undefined, ctx, out)
      ctx = out
    }
    // The last reading is when the last hook ended: the time of the change.
    if (ctx !== input && env?.now !== undefined) ctx = HookContext.stampUpdatedAt(ctx, reading)
    if (failures !== undefined) throw new HooklineError(endedWith(failures, ctx))
    return ctx
  }
  if (ctx !== input && env?.now !== undefined) ctx = HookContext.stampUpdatedAt(ctx, env.now())
  if (failures !== undefined) throw new HooklineError(endedWith(failures, ctx))
  return ctx
}

export { emit }
