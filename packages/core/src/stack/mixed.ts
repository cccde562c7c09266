// Runs a trigger's hooks when some are effectful. In effect 4 an `Effect.succeed` or
// `Effect.fail` is an `Exit`: an Effect hook that returns one has nothing to wait for,
// so its answer is read here at once, as a pure hook's is (no fiber, no yield, no
// closure). A trigger whose hooks all answer at once gives its context back at once; at
// the first hook that waits, that hook and the rest go on in the fiber, through the
// runtime as before. Both ways an answer is settled by the same methods: same checks,
// errors, events and clock readings.
import { Cause, Effect, Exit, Fiber } from "effect"
import { HooklineError, hookFailed, messageOf, type HookFailed } from "../AgentError.js"
import { isEffectHook, type AnyHook } from "../Hook.js"
import { stampUpdatedAt, type HookContext } from "../HookContext.js"
import { disarm } from "../internal/thenable.js"
import { contextAtFailure, dispatchPure, emit, endedWith, failedAt, runsToTheEnd, settle, type DispatchEnv, type Entry } from "./dispatch.js"

/** A registration as the runner reads it (HookStack's `Registration` is one). */
export interface MixedEntry<R> extends Entry {
  readonly hook: AnyHook<unknown, R>
  /** Milliseconds. */
  readonly timeout?: number | undefined
}

/**
 * The context, when every hook answered at once; else an Effect: the rest of the hooks,
 * or the failure (an `Exit`, itself read at once by a caller that checks for one).
 */
export type Answer<R> = HookContext | Effect.Effect<HookContext, HookFailed, R>

// The failure of an effectful hook that ran past its timeout (compared by reference).
const timedOut: unique symbol = Symbol("@hookline/core/HookStack/timedOut")

const TypeId: string = Effect.TypeId

/** Whether an answer is an Effect (a HookContext never is). */
export const isPending = <R>(answer: Answer<R>): answer is Effect.Effect<HookContext, HookFailed, R> =>
  (answer as unknown as Record<string, unknown>)[TypeId] !== undefined

// Whether the running fiber was asked to stop while a hook was called (the hook aborted
// its own run, say): its answer then goes through the runtime, which stops the dispatch
// at that hook, as it did before Exits were read at once. Effect 4.1 keeps the request
// on the fiber until its next step (`_deferredInterrupt`, not public): the core test
// "stops at a hook that interrupts its own fiber" fails if a later effect moves it.
const interruptAsked = (): boolean => (Fiber.getCurrent() as { readonly _deferredInterrupt?: boolean } | undefined)?._deferredInterrupt === true

const hookFailedOf = (error: unknown): HookFailed | undefined =>
  error instanceof HooklineError && error.error._tag === "HookFailed" ? error.error : undefined

/** A throw out of a synchronous dispatch, as the Effect the caller yields. */
export const thrown = (error: unknown): Effect.Effect<never, HookFailed> => {
  const failed = hookFailedOf(error)
  return failed === undefined ? Effect.die(error) : Effect.fail(failed)
}

// What an effectful hook returned, checked; a check that throws (a hostile Proxy) is
// that hook's failure, not the dispatch's crash.
const settleGuarded = (before: HookContext, output: unknown): HookContext | string => {
  try {
    return settle(before, output)
  } catch (cause) {
    return `returned a context that cannot be read: ${messageOf(cause)}`
  }
}

// One dispatch: an object, not closures per dispatch. Interruption is never turned into
// a skip: it propagates.
class MixedRun<R> {
  // AfterExecution: failures under 'fail' are collected and every hook runs.
  failures: Array<HookFailed> | undefined = undefined
  // A hook waited: the dispatch runs in its fiber from there on.
  waited = false

  constructor(
    readonly registrations: ReadonlyArray<MixedEntry<R>>,
    readonly input: HookContext,
    readonly env: DispatchEnv,
    readonly now: () => number,
  ) {}

  from(i: number, ctx: HookContext): Answer<R> {
    const registrations = this.registrations
    const trigger = this.input.trigger
    while (i < registrations.length) {
      const registration = registrations[i] as MixedEntry<R>
      const hook = registration.hook
      if (!isEffectHook(hook)) {
        try {
          ctx = dispatchPure(trigger, [hook], [registration], ctx, this.env)
        } catch (error) {
          const failed = hookFailedOf(error)
          if (failed === undefined || !runsToTheEnd(trigger)) return thrown(error)
          ;(this.failures ??= []).push(failed)
          ctx = contextAtFailure(failed) ?? ctx
        }
        i++
        continue
      }
      const startedAt = this.env.sink === undefined ? 0 : this.now()
      // Built in the caller's fiber (the hook's turn); a throw while building is the
      // hook's defect, as in a suspend.
      let run: Effect.Effect<HookContext, unknown, R>
      try {
        run = hook.run(ctx)
      } catch (error) {
        run = Effect.die(error)
      }
      // An Exit is read here: it won any race with a timeout, having nothing to wait for.
      // Once a hook waited, the rest runs in the fiber as before: an interruption that
      // landed while a hook was called stops the dispatch there, its result uncommitted.
      if (this.waited || !Exit.isExit(run) || interruptAsked()) return this.wait(i, ctx, startedAt, run)
      const out = run._tag === "Success"
        ? this.succeeded(registration, startedAt, ctx, run.value)
        : this.failed(registration, startedAt, ctx, run.cause)
      if (Exit.isExit(out)) return out
      ctx = out
      i++
    }
    const out = ctx === this.input ? ctx : stampUpdatedAt(ctx, this.now())
    return this.failures === undefined ? out : Effect.fail(endedWith(this.failures, out))
  }

  // The hook at `i` waits: the fiber runs it, then the rest.
  wait(i: number, before: HookContext, startedAt: number, run: Effect.Effect<HookContext, unknown, R>): Effect.Effect<HookContext, HookFailed, R> {
    this.waited = true
    const registration = this.registrations[i] as MixedEntry<R>
    const timeout = registration.timeout
    const timed = timeout === undefined ? run : Effect.timeoutOrElse(run, { duration: timeout, orElse: () => Effect.fail(timedOut) })
    return Effect.matchCauseEffect(timed, {
      onFailure: (cause) => this.next(i, this.failed(registration, startedAt, before, cause)),
      onSuccess: (output) => this.next(i, this.succeeded(registration, startedAt, before, output)),
    })
  }

  next(i: number, out: HookContext | Exit.Exit<never, HookFailed>): Effect.Effect<HookContext, HookFailed, R> {
    if (Exit.isExit(out)) return out
    const rest = this.from(i + 1, out)
    return isPending(rest) ? rest : Effect.succeed(rest)
  }

  // The context to go on with, or the Exit that ends the dispatch.
  failed(registration: MixedEntry<R>, startedAt: number, before: HookContext, cause: Cause.Cause<unknown>): HookContext | Exit.Exit<never, HookFailed> {
    if (Cause.hasInterruptsOnly(cause)) return Exit.failCause(cause as Cause.Cause<never>)
    const squashed = Cause.squash(cause)
    disarm(squashed)
    const detail = squashed === timedOut ? `timed out after ${registration.timeout} ms (its timeout option)` : messageOf(squashed)
    return this.refused(registration, startedAt, before, detail)
  }

  succeeded(registration: MixedEntry<R>, startedAt: number, before: HookContext, output: unknown): HookContext | Exit.Exit<never, HookFailed> {
    const settled = output === before ? before : settleGuarded(before, output)
    if (typeof settled === "string") return this.refused(registration, startedAt, before, settled)
    const sink = this.env.sink
    if (sink !== undefined) emit(sink, this.input.trigger, registration, startedAt, this.now(), settled === before ? "unchanged" : "changed", undefined, before, settled)
    return settled
  }

  refused(registration: MixedEntry<R>, startedAt: number, before: HookContext, detail: string): HookContext | Exit.Exit<never, HookFailed> {
    const trigger = this.input.trigger
    const outcome = registration.onError === "skip" ? "skipped" : "failed"
    const sink = this.env.sink
    if (sink !== undefined) emit(sink, trigger, registration, startedAt, this.now(), outcome, detail, before)
    if (outcome === "skipped") return before
    const failed = failedAt(hookFailed(registration.name, trigger, detail), before)
    if (!runsToTheEnd(trigger)) return Exit.fail(failed)
    ;(this.failures ??= []).push(failed)
    return before
  }
}

/**
 * Runs a list with effectful hooks from its start, with `env` giving the sink and the
 * clock (`env.now` is required).
 */
export const runMixed = <R>(registrations: ReadonlyArray<MixedEntry<R>>, input: HookContext, env: DispatchEnv): Answer<R> =>
  new MixedRun(registrations, input, env, env.now as () => number).from(0, input)
