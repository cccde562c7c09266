// Runs the wrap hooks of one call, outermost first, down to the call itself.
//
// A wrap hook's own failure (a throw, a failure that is not the call's error, a bad
// return) is handled by its onError policy, once, where it happens: 'fail' turns it
// into HookFailed, which travels up through the outer hooks as a defect (so an outer
// retry, which retries failures only, never retries a hook's bug) and comes out of
// the chain as a typed failure; 'skip' reports it and goes on as if the hook were
// absent: with what its last `next` gave, or by calling `next` once itself.
import { Cause, Effect, Exit } from "effect"
import { HooklineError, hookFailed, messageOf, type HookFailed, type InferenceFailed } from "../AgentError.js"
import type { HookContext } from "../HookContext.js"
import { excerpt } from "../Json.js"
import type { InferenceResponse } from "../InferenceResponse.js"
import type { ToolExecution } from "../ToolExecution.js"
import type { CallOptions, WrapPoint } from "../WrapHook.js"
import { emit, settle, type DispatchEnv } from "./dispatch.js"

/** What the chain needs of a registration. */
export interface WrapEntry {
  readonly name: string
  readonly onError: "fail" | "skip"
  readonly wrap: { readonly run: (ctx: HookContext, next: any) => Effect.Effect<unknown, unknown, any> }
}

type Terminal<O, E> = (ctx: HookContext, options: CallOptions | undefined) => Effect.Effect<O, E>

const hookFailedIn = (cause: Cause.Cause<unknown>): HookFailed | undefined => {
  for (const reason of cause.reasons) {
    if (reason._tag === "Die" && reason.defect instanceof HooklineError && reason.defect.error._tag === "HookFailed") {
      return reason.defect.error
    }
  }
  return undefined
}

const isInferenceFailed = (u: unknown): u is InferenceFailed =>
  typeof u === "object" && u !== null && (u as { _tag?: unknown })._tag === "InferenceFailed"

const isResponse = (u: unknown): u is InferenceResponse =>
  typeof u === "object" && u !== null && typeof (u as InferenceResponse).text === "string"
  && Array.isArray((u as InferenceResponse).toolCalls) && typeof (u as InferenceResponse).modelId === "string"

const isExecution = (u: unknown): u is ToolExecution => {
  if (typeof u !== "object" || u === null) return false
  const status = (u as ToolExecution).status
  return (status === "success" || status === "failure" || status === "blocked") && typeof (u as ToolExecution).toolCall === "object"
}

const run = <O, E>(
  point: WrapPoint,
  entries: ReadonlyArray<WrapEntry>,
  input: HookContext,
  terminal: Terminal<O, E>,
  env: DispatchEnv,
  isCallError: (u: unknown) => u is E,
  isOutput: (u: unknown) => u is O,
  problemOf: (out: O, ctx: HookContext) => string | undefined = noProblem,
): Effect.Effect<O, E | HookFailed, any> => {
  const sink = env.sink
  const now = env.now ?? Date.now
  const level = (i: number, ctx: HookContext, options: CallOptions | undefined): Effect.Effect<O, E, any> => {
    if (i === entries.length) return terminal(ctx, options)
    const entry = entries[i] as WrapEntry
    return Effect.suspend(() => {
      const startedAt = sink === undefined ? 0 : now()
      let last: Exit.Exit<O, E> | undefined
      // This hook interrupted a `next` of its own (a timeout): how it then ends is why
      // the calls it cut ended, which the loop records on their attempts (env.onCut).
      let cut = false
      const ended = (exit: Exit.Exit<unknown, unknown>) => {
        if (!cut) return
        cut = false
        env.onCut?.(exit)
      }
      const next = (given: unknown, more?: CallOptions): Effect.Effect<O, E, any> => {
        const settled = settle(ctx, given)
        if (typeof settled === "string") return Effect.die(new Error(`called next with a context that ${settled.replace(/^returned /, "is ")}`))
        return Effect.onExit(level(i + 1, settled, more ?? options), (exit) =>
          Effect.sync(() => {
            if (!Exit.hasInterrupts(exit)) last = exit as Exit.Exit<O, E>
            else cut = true
          }))
      }
      const ownFailure = (detail: string): Effect.Effect<O, E, any> => {
        if (entry.onError === "skip") {
          if (sink !== undefined) emit(sink, point, entry, startedAt, now(), "skipped", detail, ctx)
          return last === undefined ? level(i + 1, ctx, options) : last
        }
        if (sink !== undefined) emit(sink, point, entry, startedAt, now(), "failed", detail, ctx)
        return Effect.die(new HooklineError(hookFailed(entry.name, point, detail)))
      }
      return Effect.matchCauseEffect(Effect.suspend(() => entry.wrap.run(ctx, next) as Effect.Effect<unknown, unknown, any>), {
        onSuccess: (out) => {
          if (!isOutput(out)) {
            return ownFailure(`returned ${out === undefined ? "undefined" : "something that is not a result of the call"}`)
          }
          const problem = problemOf(out, ctx)
          if (problem !== undefined) return ownFailure(problem)
          if (sink !== undefined) {
            const same = last !== undefined && Exit.isSuccess(last) && last.value === out
            emit(sink, point, entry, startedAt, now(), same ? "unchanged" : "changed", undefined, ctx)
          }
          ended(Exit.succeed(out))
          return Effect.succeed(out)
        },
        onFailure: (cause) => {
          // Interruption and an inner hook's failure pass through untouched.
          if (Cause.hasInterruptsOnly(cause) || hookFailedIn(cause) !== undefined) return Effect.failCause(cause as Cause.Cause<E>)
          const failure = cause.reasons.find(Cause.isFailReason)
          if (failure !== undefined && isCallError(failure.error)) {
            if (sink !== undefined) {
              const same = last !== undefined && Exit.isFailure(last) && Cause.squash(last.cause) === failure.error
              emit(sink, point, entry, startedAt, now(), same ? "unchanged" : "changed", messageOf(failure.error), ctx)
            }
            ended(Exit.fail(failure.error))
            return Effect.fail(failure.error)
          }
          return ownFailure(messageOf(Cause.squash(cause)))
        },
      })
    })
  }
  return Effect.catchCause(level(0, input, undefined), (cause): Effect.Effect<never, E | HookFailed> => {
    const failed = hookFailedIn(cause)
    return failed === undefined ? Effect.failCause(cause) : Effect.fail(failed)
  })
}

const never = (_: unknown): _ is never => false

const noProblem = (): undefined => undefined

// An execution answers the call it wraps, or the call it answers is left unanswered
// (and the wrong one answered twice): the loop commits it under its own call id.
const otherCall = (out: ToolExecution, ctx: HookContext): string | undefined => {
  const wrapped = ctx.toolCall?.id
  let id: unknown
  try {
    id = out.toolCall.id
  } catch {
    id = undefined
  }
  return wrapped === undefined || id === wrapped
    ? undefined
    : `returned the execution of call ${excerpt(id, 80)}, not of the call it wraps (${excerpt(wrapped, 80)})`
}

/** The wrap hooks around one model call. */
export const runInference = (
  entries: ReadonlyArray<WrapEntry>,
  input: HookContext,
  terminal: Terminal<InferenceResponse, InferenceFailed>,
  env: DispatchEnv,
): Effect.Effect<InferenceResponse, InferenceFailed | HookFailed, any> =>
  run("WrapInference", entries, input, terminal, env, isInferenceFailed, isResponse)

/** The wrap hooks around one tool execution. */
export const runToolUse = (
  entries: ReadonlyArray<WrapEntry>,
  input: HookContext,
  terminal: (ctx: HookContext) => Effect.Effect<ToolExecution>,
  env: DispatchEnv,
): Effect.Effect<ToolExecution, HookFailed, any> => run("WrapToolUse", entries, input, terminal, env, never, isExecution, otherCall)
