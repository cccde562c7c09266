// The agent loop: one run, from BeforeExecution to AfterExecution. DESIGN.md "The
// loop" is the specification; docs/loop.md explains it for users; docs/architecture.md
// maps the modules of run/.
//
// Hot-path rules (DESIGN.md "The hot path"): a trigger whose hooks are all pure runs
// through the interceptor's synchronous path, without entering the Effect runtime;
// the loop's own transitions copy only the changed path (AgentState functions, no
// immer); the history is an AppendLog, so nothing here walks it. The phases are
// module-level generator functions, each wrapped in an Effect once per run.
import { AgentError, AgentState, HookExecuted, HookStack, Interceptor } from "@hookline/core"
import { Cause, Clock, Context, Effect, Exit, Result } from "effect"
import { Driver } from "../Driver.js"
import { RunCallOptions } from "../internal/callSignal.js"
import * as HookListeners from "../internal/hookListeners.js"
import * as InputState from "../internal/inputState.js"
import type { Observer } from "../internal/observer.js"
import * as Subagent from "../subagent/host.js"
import { abortSeen, RunCell } from "./cell.js"
import * as Conclude from "./conclude.js"
import { dispatch, reportHookFailure } from "./dispatch.js"
import * as KeptDecisions from "./keptDecisions.js"
import * as Race from "./race.js"
import * as Records from "./records.js"
import { decidedStep, shouldStop, step, stepsLimitReached } from "./step.js"
import * as Stop from "./stop.js"
import type { EngineConfig, OpenStep, Outcome, RunEnv, RunOptions } from "./types.js"

export { startingState } from "./conclude.js"

// The run's services are read once from the context and its setup is a plain function,
// not a generator: a generator stays alive, with every local of the setup, until the
// run ends (about 0.4 KB per run in flight, issue 27).
export const runEngine = <R>(
  config: EngineConfig<R>,
  input: AgentState | string,
  options: RunOptions = {},
  observer?: Observer,
): Effect.Effect<AgentState, never, R | Driver> => {
  const run = Effect.flatMap(Effect.context<Driver>(), (context) => {
    // The caller's state, checked and copied where it enters (internal/inputState.ts):
    // a bad one starts no run (no hook, no model call), and is the caller's error.
    const entered = typeof input === "string" ? InputState.fromPrompt(input) : InputState.check(input)
    if (Result.isResult(entered)) return Effect.die(new AgentError.HooklineError(entered.failure))
    const initial = entered
    // The run context the agent declares, decoded before any hook reads it.
    const check = config.checkContext
    return check === undefined
      ? engine(config, initial, options, observer, context, undefined)
      : Effect.flatMap(Effect.result(check(options.context)), (checked) => engine(config, initial, options, observer, context, checked))
  })
  // A capability's wrap (AgentBuilder.UseAroundRun) holds the whole run, its last log included.
  return config.aroundRun === undefined ? run : config.aroundRun(run)
}

const engine = <R>(
  config: EngineConfig<R>,
  initial: AgentState,
  options: RunOptions,
  observer: Observer | undefined,
  context: Context.Context<Driver>,
  checked: Result.Result<unknown, AgentError.InvalidConfiguration> | undefined,
): Effect.Effect<AgentState, never, R> => {
  const driver = Context.get(context, Driver)
  const clock = Context.get(context, Clock.Clock)
  const contextSink = Context.get(context, HookExecuted.CurrentEventSink)
  // Bound, not an arrow: no closure over this function's scope.
  const now: () => number = clock.currentTimeMillisUnsafe.bind(clock)
  // A subagent's run (Tool.fromAgent) reports its events to its parent's stream, and
  // its hook executions to its parent's listeners.
  const current = Context.get(context, Subagent.Current)
  const link = current instanceof Subagent.Link ? current : undefined
  if (observer === undefined && link !== undefined) observer = link.observer
  else if (observer !== undefined && options.hookEvents === true && observer.hookEvents !== true) observer = { ...observer, hookEvents: true }
  const emit = observer?.emit
  // The loop's listeners and its parent's: what this run's subagents inherit.
  const listener = link?.listener === undefined ? config.listener : HookListeners.combine([config.listener, link.listener])
  // Events are built only when something takes them (no sink: no clock readings either).
  const sink = contextSink === undefined && options.sink === undefined && observer?.hookEvents !== true
    ? listener
    : HookListeners.combine([
      contextSink,
      options.sink,
      listener,
      emit === undefined || observer?.hookEvents !== true ? undefined : (event) => emit({ _tag: "HookExecuted", event }),
    ])
  const started = Conclude.startingState(initial)
  // Decisions for calls a subagent waits on resume that subagent's call (see Subagent.route).
  const routed = Subagent.route(started, KeptDecisions.wellFormed(options.decisions))
  // Kept in the state from the first hook on (see keptDecisions.ts).
  const state = KeptDecisions.record(started, routed.decisions, routed.resumptions === undefined ? undefined : new Set(routed.resumptions.keys()))
  const host = new Subagent.Host(observer, routed.resumptions, listener)
  const hooks = { sink, now }
  const interceptor = config.interceptor
  const stack = HookStack.isHookStack(interceptor)
  const env: RunEnv<R> = {
    config,
    driver,
    now,
    hooks,
    interceptEnv: stack ? hooks : { sink, now, loopWraps: interceptor.wrapsFrom ?? null },
    intercept: stack ? interceptor.intercept : (ctx) => Interceptor.runUnderLoop(interceptor, ctx),
    emit,
    streaming: observer?.streaming ?? false,
    runContext: checked?._tag === "Success" ? checked.success : options.context,
    decisions: routed.decisions,
    host,
    callOptions: new RunCallOptions(),
    settled: observer?.settled,
  }
  const cell = new RunCell(state, now)
  const run = execute(env, cell, clock, options.signal, checked?._tag === "Failure" ? checked.failure : undefined, options.interruption)
  // Effect hooks and `intercept` read the sink from the context (unchanged: not provided again).
  const sunk = sink === contextSink ? run : Effect.provideService(run, HookExecuted.CurrentEventSink, sink)
  // The tools of this run (a subagent's tool) read the host; a link was for this run only.
  return Effect.provideService(sunk, Subagent.Current, host)
}

// How a handed-over run ends (`RunOptions.interruption`): not an Outcome, it does not end.
const handedOver = Symbol("handedOver")

/**
 * The run's last committed step boundary: after BeforeExecution, and after each step
 * (or handled failure) the loop goes on from. A hand-over ends the run there, so the
 * state it leaves is one a resume can go on from (never half a step).
 */
interface Boundary {
  state: AgentState
}

// AfterExecution runs exactly once, whatever happened: the run's one ending. An object,
// not a closure over `execute`'s scope, so a waiting run holds little for it; it keeps
// the run's last step boundary too (a hand-over ends there).
class Ending<R> implements Boundary {
  finished = false
  state: AgentState

  constructor(readonly env: RunEnv<R>, readonly cell: RunCell, readonly signal: AbortSignal | undefined) {
    this.state = cell.state
  }

  finish(outcome: Outcome | typeof handedOver): Effect.Effect<AgentState, never, R> {
    if (this.finished) return Effect.succeed(this.cell.state)
    this.finished = true
    const ending = outcome === handedOver ? handOverGen(this.env, this.cell, this) : finishGen(this.env, this.cell, outcome)
    return Effect.gen(() => ending).pipe(Effect.uninterruptible)
  }

  // The steps' outcome, or an abort the body did not yield after (a model or tool that
  // aborted and answered or failed at once wins the race: the abort still counts; errors
  // met on the way stay recorded).
  settle(outcome: Outcome): Effect.Effect<AgentState, never, R> {
    return this.finish(this.signal?.aborted === true ? Conclude.aborted : outcome)
  }
}

const execute = <R>(
  env: RunEnv<R>,
  cell: RunCell,
  clock: Clock.Clock,
  signal: AbortSignal | undefined,
  refused: AgentError.InvalidConfiguration | undefined,
  interruption: RunOptions["interruption"],
): Effect.Effect<AgentState, never, R> => {
  const ending = new Ending(env, cell, signal)
  return Effect.suspend(() => started(env, cell, clock, signal, refused, ending)).pipe(
    // Interrupted from outside (a stream consumer gone, a parent fiber): AfterExecution
    // still fires, on what was committed; the run stops, unless its caller said an
    // interruption hands it over (Stop.handsOver).
    Effect.onInterrupt(() => Effect.asVoid(ending.finish(Stop.handsOver(interruption, signal) ? handedOver : Conclude.aborted))),
  )
}

// The run from its start: running, its steps (bounded by the time limit and the
// signal), its ending. A plain function, not a generator: nothing of it stays alive
// while the steps wait.
const started = <R>(
  env: RunEnv<R>,
  cell: RunCell,
  clock: Clock.Clock,
  signal: AbortSignal | undefined,
  refused: AgentError.InvalidConfiguration | undefined,
  ending: Ending<R>,
): Effect.Effect<AgentState, never, R> => {
  const boundary: Boundary = ending
  cell.state = AgentState.withStatus(cell.state, "running", cell.read())
  boundary.state = cell.state
  cell.stepIndex = cell.state.execution.steps.length
  env.emit?.({ _tag: "RunStarted", state: cell.state })
  const check = env.config.textCheck
  if (env.streaming && check !== undefined) env.emit?.({ _tag: "TextChecked", ...check })
  // A declared run context that is missing or does not decode: the run fails before
  // BeforeExecution (no hook reads it), and AfterExecution still fires once.
  if (refused !== undefined) {
    cell.state = AgentState.addError(cell.state, refused)
    return ending.finish({ _tag: "Failed", errors: [refused] })
  }
  const steps = Effect.gen({ self: ending }, body<R>).pipe(Effect.onInterrupt(() => Effect.sync(() => abortCalls(env, cell))))
  // The time limit bounds the wall clock, not only what BeforeStep sees: a hung model
  // call or hook is interrupted when it passes.
  const limit = env.config.timeLimit
  cell.signal = signal
  if (signal?.aborted === true) return ending.finish(Conclude.aborted)
  const bounded = Race.bounded(steps, {
    ms: limit === undefined ? undefined : Math.max(0, timedFrom(cell) + limit - cell.lastReading),
    timedOut: Conclude.timedOut,
    signal,
    aborted: Conclude.aborted,
    clock,
  })
  return Effect.flatMap(bounded, (outcome) => ending.settle(outcome))
}

const abortCalls = <R>(env: RunEnv<R>, cell: RunCell): void => {
  cell.interrupted = true
  env.callOptions.abort()
}

// Where the time limit counts from: this call of run or resume (docs/decisions.md,
// "Resumes"), as the time guard reads it.
const timedFrom = (cell: RunCell): number => cell.state.execution.runningSince ?? cell.state.execution.startedAt ?? cell.lastReading

// Returns true when the run should stop before any model call.
function* beforeExecution<R>(env: RunEnv<R>, cell: RunCell) {
  yield* dispatch(env, cell, Records.point("BeforeExecution", cell.state, cell.at()))
  return yield* shouldStop(env, cell)
}

// BeforeExecution, then steps until a stop, a suspension or an error nobody handled.
// Run as `Effect.gen({ self: ending }, body)`: no closure over the run's scope.
function* body<R>(this: Ending<R>) {
  const { env, cell } = this
  const boundary: Boundary = this
  const first = yield* Effect.result(Effect.gen(() => beforeExecution(env, cell)))
  if (first._tag === "Failure") {
    if (abortSeen(cell)) return Conclude.aborted
    const outcome = yield* onError(env, cell, [first.failure])
    if (outcome !== undefined) return outcome
    if (yield* shouldStop(env, cell)) return Conclude.done
  } else if (first.success) {
    return Conclude.done
  }
  boundary.state = cell.state
  // One Effect for every step (a description runs again each time it is yielded).
  const next = Effect.result(Effect.gen(() => step(env, cell)))
  // A suspended run first finishes the step it was suspended in, with the decisions:
  // this resume's, or those a resume that did not finish kept in the state.
  const decisions = env.decisions ?? KeptDecisions.of(cell.state)
  let decided = cell.state.execution.pendingCalls !== undefined && decisions !== undefined
    ? Effect.result(Effect.gen(() => decidedStep(env, cell, decisions)))
    : undefined
  while (true) {
    cell.open = undefined
    if (abortSeen(cell)) return Conclude.aborted
    const result = yield* (decided ?? next)
    decided = undefined
    if (result._tag === "Success") {
      const end = result.success
      if (end._tag === "Continue") {
        boundary.state = cell.state
        continue
      }
      return end._tag === "Stop" ? Conclude.done : Conclude.suspended
    }
    recordFailedStep(env, cell, false, `its step failed before it ran (${result.failure._tag})`)
    cell.inBeforeStep = false
    if (abortSeen(cell)) return Conclude.aborted
    const outcome = yield* onError(env, cell, [result.failure])
    if (outcome !== undefined) return outcome
    // Handled: the stop check comes first, as after any BeforeStep (a guard may have
    // fired in the dispatch that failed).
    cell.state = Stop.holdStepsLimit(cell.state, env.config.stepsLimit)
    if (yield* shouldStop(env, cell)) return Conclude.done
    boundary.state = cell.state
  }
}

// The calls of the last assistant message settled (Records.settle): what ran and was
// not committed is recorded, in its step too, the rest cancelled. The host is asked
// for what a call spent as it is recorded.
const settleTools = <R>(env: RunEnv<R>, cell: RunCell, why: string, keepPending = false): void => {
  const { state, recorded } = Records.settle(cell.state, cell.ran, why, keepPending, (id) => env.host.takeUsage(id))
  cell.ran.length = 0
  cell.state = state
  for (const execution of recorded) {
    cell.open?.executions.push(execution)
    env.emit?.({ _tag: "ToolResult", step: cell.stepIndex, execution })
  }
}

// A step that an error ended still leaves its record (so the steps guard counts
// retries), unless it never started (Records.failedStep).
const recordFailedStep = <R>(env: RunEnv<R>, cell: RunCell, aborting: boolean, why: string): void => {
  settleTools(env, cell, why)
  const open = cell.open
  if (open === undefined) return
  cell.open = undefined
  const ends = Records.failedStep({
    open: true,
    resumed: open === cell.resumed,
    suspendedStep: cell.state.execution.suspendedStep !== undefined,
    inBeforeStep: cell.inBeforeStep,
    aborting,
    stopSignals: cell.state.execution.stopSignals.length > 0,
    stepsLimitReached: stepsLimitReached(env, cell),
  })
  if (ends === "CloseOpen") return closeOpenStep(cell, open)
  if (ends === "None") return
  const completedAt = cell.read()
  cell.state = Records.appendFailed(cell.state, open, cell.stepIndex, completedAt, cell.read())
  cell.stepIndex++
}

// The open step a suspension left in the state, ended as a failed step (Records.closeOpenStep).
const closeOpenStep = (cell: RunCell, open: OpenStep | undefined): void => {
  if (cell.state.execution.suspendedStep === undefined) return
  cell.state = Records.closeOpenStep(cell.state, open, cell.stepIndex, cell.read())
  cell.stepIndex++
}

// OnError with the errors; `undefined` when a hook handled them (the loop goes on),
// else the run's failure. The errors are recorded either way: they are in the state
// before the hooks run, so a hook that handles them can also scrub the record
// (redaction); errors the hooks transform but do not handle replace their record,
// unless the hooks rewrote the record themselves.
const onError = <R>(env: RunEnv<R>, cell: RunCell, errors: ReadonlyArray<AgentError.AgentError>): Effect.Effect<Outcome | undefined, never, R> =>
  Effect.gen(() => onErrorGen(env, cell, errors))

function* onErrorGen<R>(env: RunEnv<R>, cell: RunCell, errors: ReadonlyArray<AgentError.AgentError>) {
  const recorded = errors.reduce(AgentState.addError, cell.state)
  const raised = Object.freeze([...errors])
  const input = Records.point("OnError", recorded, cell.read(), undefined, undefined, undefined, undefined, raised)
  const result = yield* Effect.result(Effect.gen(() => dispatch(env, cell, input)))
  if (result._tag === "Failure") {
    cell.state = recorded
    reportHookFailure(env, cell, result.failure)
    return { _tag: "Failed" as const, errors } as Outcome
  }
  const { state } = result.success
  const remaining = result.success.errors ?? raised
  cell.state = remaining.length === 0 || remaining === raised ? state : Records.rerecord(state, raised, remaining)
  return remaining.length === 0 ? undefined : { _tag: "Failed" as const, errors: remaining } as Outcome
}

// Settle, conclude (Conclude.conclude), then AfterExecution and the last events.
function* finishGen<R>(env: RunEnv<R>, cell: RunCell, outcome: Outcome) {
  const keepPending = Conclude.keepsPending(outcome, cell.state)
  const why = Conclude.settleReason(outcome)
  settleTools(env, cell, why, keepPending)
  if (outcome._tag === "Aborted" || outcome._tag === "TimedOut") recordFailedStep(env, cell, true, why)
  // Only a run that ends suspended keeps an open step: one that suspended but does not
  // end suspended (an abort, a hard stop), or a resumed run that ended before it
  // finished its open step (BeforeExecution failed or stopped it), records it with what
  // ran; its usage already counts in the run's (found by the fuzzer, issue 13).
  if (!keepPending) closeOpenStep(cell, undefined)
  cell.state = Conclude.conclude(cell.state, outcome, { timeLimit: env.config.timeLimit, timedFrom: () => timedFrom(cell), read: () => cell.read() })
  yield* afterExecution(env, cell)
  const pendingCalls = cell.state.execution.pendingCalls
  if (cell.state.execution.status === "suspended" && pendingCalls !== undefined) {
    env.emit?.({ _tag: "Suspended", pendingCalls, state: cell.state })
  }
  // A failed run is never silent: one warning through Effect's logger (docs/loop.md, "A failed run").
  if (cell.state.execution.status === "failed") yield* Effect.logWarning(Conclude.failureLine(cell.state))
  // Made from checked parts: a later run or resume of it is not checked again.
  const final = InputState.vouch(cell.state)
  env.emit?.({ _tag: "RunEnded", state: final })
  return final
}

// A hand-over: the run ends at its last committed step boundary, still `running`, with
// no stop signal and nothing settled (what ran after it is the journal's, and the new
// owner's resume replays it); AfterExecution sees that state.
function* handOverGen<R>(env: RunEnv<R>, cell: RunCell, boundary: Boundary) {
  cell.state = boundary.state
  yield* afterExecution(env, cell)
  // Made from checked parts: a later run or resume of it is not checked again.
  const final = InputState.vouch(cell.state)
  env.emit?.({ _tag: "RunEnded", state: final })
  return final
}

// AfterExecution: every hook runs; each failure is reported.
function* afterExecution<R>(env: RunEnv<R>, cell: RunCell) {
  const exit = yield* Effect.exit(
    Effect.gen(() => dispatch(env, cell, Records.point("AfterExecution", cell.state, cell.read()))),
  )
  if (Exit.isFailure(exit)) {
    const failure = exit.cause.reasons.find(Cause.isFailReason)
    // Every AfterExecution hook ran; each failure is reported.
    if (failure !== undefined) for (const error of HookStack.failuresOf(failure.error)) reportHookFailure(env, cell, error)
    else if (!Cause.hasInterruptsOnly(exit.cause)) {
      reportHookFailure(env, cell, AgentError.hookFailed("AfterExecution", "AfterExecution", Cause.squash(exit.cause)))
    }
  }
}
