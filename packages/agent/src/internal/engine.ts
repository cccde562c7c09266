// The agent loop: one run, from BeforeExecution to AfterExecution. DESIGN.md "The
// loop" is the specification; docs/loop.md explains it for users.
//
// Hot-path rules (DESIGN.md "The hot path"): a trigger whose hooks are all pure runs
// through the interceptor's synchronous path, without entering the Effect runtime;
// the loop's own transitions copy only the changed path (AgentState functions, no
// immer); the history is an AppendLog, so nothing here walks it.
import {
  AgentError,
  AgentState,
  Guards,
  HookContext,
  HookExecuted,
  HookStack,
  InferenceRequest,
  Message,
  Step,
  StopReason,
  StopSignal,
  ToolExecution,
  Usage,
  WrapHook,
  type HookTrigger,
  Interceptor,
  type InferenceResponse,
  ToolCall,
} from "@hookline/core"
import { Cause, Clock, Effect, Exit } from "effect"
import type { AgentEvent } from "../AgentEvent.js"
import * as Driver_ from "../Driver.js"
import { Driver, generateChecked, streamChecked, type DriverShape } from "../Driver.js"
import { RunCallOptions } from "./callSignal.js"
import * as DerivedStream from "./derivedStream.js"
import type { Decision } from "../Decision.js"
import * as Tools from "../Tools.js"
import * as KeptDecisions from "./keptDecisions.js"
import type { Observer } from "./observer.js"
import * as Subagent from "../subagent/host.js"

/** How one run is carried out. */
export interface EngineConfig<R> {
  readonly interceptor: Interceptor<R>
  readonly tools: Tools.Tools
  readonly toolConcurrency: "sequential" | "concurrent"
  readonly modelOptions: InferenceRequest.ModelOptions
  /** Set when a stream emits the model's text only after the AfterInference hooks ran: why. */
  readonly textCheck: Omit<Extract<AgentEvent, { readonly _tag: "TextChecked" }>, "_tag"> | undefined
/** Triggers with no hooks: the loop builds no context for them. */
  readonly silent: Readonly<Record<HookTrigger, boolean>>
  /** The stack, when it has wrap hooks around model calls or tool executions. */
  readonly wraps?: HookStack.HookStack<R> | undefined
  /** The run's wall-clock bound in ms, from the start of this call of run or resume (`undefined`: none). */
  readonly timeLimit?: number | undefined
  /** The steps guard's limit, which the loop also holds after a failed step (`undefined`: none). */
  readonly stepsLimit?: number | undefined
}

/** The parts of a context, as the loop has them. */
type DispatchInput = Parameters<typeof HookContext.make>[0]

// Every input the loop dispatches is made here, with all the parts in one order, so
// HookContext.make reads one hidden class instead of one per trigger family (reading
// parts from five shapes was a third of a step's cost with hooks).
const point = (
  trigger: HookTrigger,
  state: AgentState,
  createdAt: number,
  request?: InferenceRequest,
  response?: InferenceResponse,
  toolCall?: ToolCall,
  toolExecution?: ToolExecution,
  errors?: ReadonlyArray<AgentError.AgentError>,
): DispatchInput => ({ trigger, state, createdAt, request, response, toolCall, toolExecution, errors, runContext: undefined })

/** What a dispatch gives back: the context the hooks returned, or the input when there were none. */
type Dispatched = DispatchInput | HookContext

/**
 * Per-run options: what the caller gives each run (a resumed run takes the same shape,
 * given again).
 */
export interface RunOptions<C = unknown> {
  /** Aborts the run: it ends stopped with UserRequested, AfterExecution still fires. */
  readonly signal?: AbortSignal | undefined
  /** Receives every HookExecuted event of the run. */
  readonly sink?: HookExecuted.EventSink | undefined
  /** A suspended run's decisions, by call id (checked by `Decision.validate`). */
  readonly decisions?: ReadonlyMap<string, Decision> | undefined
  /**
   * The run's context (who asks: a role, a tenant; request-scoped services): hooks
   * read it as `ctx.runContext`, tools as `context.runContext`. It is never put in
   * the state, so never persisted or encoded: give it again on every run.
   */
  readonly context?: C | undefined
}

/** The source name of the loop's own stop signals. */
export const LOOP = "loop"

type StepError = AgentError.HookFailed | AgentError.InferenceFailed

const combineSinks = (
  sinks: ReadonlyArray<HookExecuted.EventSink | undefined>,
): HookExecuted.EventSink | undefined => {
  const present = sinks.filter((s): s is HookExecuted.EventSink => s !== undefined)
  if (present.length <= 1) return present[0]
  return (event) => {
    for (const sink of present) sink(event)
  }
}

/**
 * A state to run: a finished state starts a new execution on the same conversation;
 * a pending, running or suspended state (a checkpoint) goes on where it was.
 */
export const startingState = (input: AgentState): AgentState => {
  const status = input.execution.status
  return status === "pending" || status === "running" || status === "suspended" ? input : AgentState.withExecution(input, AgentState.emptyExecution)
}

export const runEngine = <R>(
  config: EngineConfig<R>,
  initial: AgentState,
  options: RunOptions = {},
  observer?: Observer,
): Effect.Effect<AgentState, never, R | Driver> => Effect.gen(() => runEngineGen(config, initial, options, observer))

function* runEngineGen<R>(config: EngineConfig<R>, initial: AgentState, options: RunOptions, observer: Observer | undefined) {
  const driver = yield* Driver
  const clock = yield* Clock.Clock
  const contextSink = yield* HookExecuted.CurrentEventSink
  const now = (): number => clock.currentTimeMillisUnsafe()
  // A subagent's run (Tool.fromAgent) reports its events to its parent's stream.
  const current = yield* Subagent.Current
  if (observer === undefined && current instanceof Subagent.Link) observer = current.observer
  const emit = observer?.emit
  const sink = combineSinks([
    contextSink,
    options.sink,
    emit === undefined ? undefined : (event) => emit({ _tag: "HookExecuted", event }),
  ])
  const started = startingState(initial)
  // Decisions for calls a subagent waits on resume that subagent's call (see Subagent.route).
  const routed = Subagent.route(started, KeptDecisions.wellFormed(options.decisions))
  // Kept in the state from the first hook on (see keptDecisions.ts).
  const state = KeptDecisions.record(started, routed.decisions, routed.resumptions === undefined ? undefined : new Set(routed.resumptions.keys()))
  const host = new Subagent.Host(observer, routed.resumptions)
  const run = new Run(config, state, driver, now, sink, emit, observer?.streaming ?? false, options.context, routed.decisions, host)
  run.settled = observer?.settled
  return yield* run.execute(options.signal).pipe(
    // Effect hooks and `intercept` read the sink from the context.
    Effect.provideService(HookExecuted.CurrentEventSink, sink),
    // The tools of this run (a subagent's tool) read the host; a link was for this run only.
    Effect.provideService(Subagent.Current, host),
  )
}

type Outcome =
  | { readonly _tag: "Done" }
  | { readonly _tag: "Failed"; readonly errors: ReadonlyArray<AgentError.AgentError> }
  | { readonly _tag: "Aborted" }
  | { readonly _tag: "TimedOut" }

// The state with the record of `raised` (its last entries, if untouched) replaced by `transformed`.
const rerecord = (
  state: AgentState,
  raised: ReadonlyArray<AgentError.AgentError>,
  transformed: ReadonlyArray<AgentError.AgentError>,
): AgentState => {
  const all = state.execution.errors
  const start = all.length - raised.length
  const untouched = start >= 0 && raised.every((error, i) => all[start + i] === error)
  return untouched ? AgentState.withExecution(state, { ...state.execution, errors: [...all.slice(0, start), ...transformed] }) : state
}

// The step being run, for the record it leaves.
interface Current {
  startedAt: number
  response: InferenceResponse | undefined
  executions: Array<ToolExecution>
  attempts: Array<AttemptRecord> | undefined
  toolAttempts: Array<Step.ToolAttempt> | undefined
}

interface AttemptRecord {
  readonly attempt: Step.InferenceAttempt
  readonly response: InferenceResponse | undefined
  /** Interrupted before it answered, and not yet told why (`cutBy`). */
  readonly cut: boolean
  /** Still running (a Promise wrap hook's `next` may outlive its run): recorded as interrupted. */
  readonly open?: boolean | undefined
}

// What an interrupted model call ends with, unless the wrap hook that cut it says why.
const interrupted = (): AgentError.InferenceFailed => AgentError.inferenceFailed("the model call was interrupted before it answered")

// A wrap hook that cut calls short ended (`HookStack` env.onCut): with the call's error
// (a timeout's), which is then why those attempts ended; with a result, they keep the
// interruption.
const cutBy = (attempts: Array<AttemptRecord>, ended: Exit.Exit<unknown, unknown>): void => {
  const error = Exit.isFailure(ended) ? ended.cause.reasons.find(Cause.isFailReason)?.error as AgentError.InferenceFailed | undefined : undefined
  for (let i = 0; i < attempts.length; i++) {
    const a = attempts[i] as AttemptRecord
    if (a.cut && a.open !== true) attempts[i] = { attempt: error === undefined ? a.attempt : Step.inferenceAttempt({ ...a.attempt, error }), response: undefined, cut: false }
  }
}

const isDriver = (u: unknown): u is DriverShape =>
  typeof u === "object" && u !== null && typeof (u as DriverShape).generate === "function"
  && typeof (u as DriverShape).stream === "function"

// The attempts of a step with wrap hooks, and its usage: the response that counts plus
// every other attempt that answered (a retry discarded it, it still cost tokens).
const attemptsOf = (current: Current, response: InferenceResponse | undefined, at: number) => {
  if (current.attempts === undefined && current.toolAttempts === undefined) return {}
  // A call still running when the step is recorded ran until now, and did not answer.
  const attempts = current.attempts?.map((a) => (a.open === true ? Step.inferenceAttempt({ ...a.attempt, durationMs: Math.max(0, at - a.attempt.startedAt) }) : a.attempt))
  let usage = response?.usage ?? Usage.empty
  for (const a of current.attempts ?? []) if (a.response !== undefined && a.response !== response) usage = Usage.add(usage, a.attempt.usage)
  return { attempts, toolAttempts: current.toolAttempts, usage }
}

// A step's executions in the order the model asked for the calls (a resumed step
// holds those run before its suspension, then the decided ones).
const inCallOrder = <A extends { readonly toolCall: ToolCall }>(executions: ReadonlyArray<A>, response: InferenceResponse | undefined): ReadonlyArray<A> => {
  if (response === undefined) return executions
  const order = new Map(response.toolCalls.map((call, i) => [call.id, i]))
  const rank = (e: A) => order.get(e.toolCall.id) ?? order.size
  return [...executions].sort((a, b) => rank(a) - rank(b))
}

const done: Outcome = { _tag: "Done" }
const aborted: Outcome = { _tag: "Aborted" }
const timedOut: Outcome = { _tag: "TimedOut" }

// The mutable heart of one run: `state` is always the last committed state, so an
// abort or an error anywhere keeps everything committed before it.
//
// Steps are generator methods run with `Effect.gen(() => this.stepGen())`: a
// generator function made once, not per call, and a dispatch whose hooks are pure
// returns from the generator without yielding to the runtime.
// The run's usage with what a tool call spent added.
const withSpent = (state: AgentState, spent: Usage.Usage | undefined): AgentState =>
  spent === undefined ? state : AgentState.withExecution(state, { ...state.execution, usage: Usage.add(state.execution.usage, spent) })

class Run<R> {
  private readonly env: { readonly sink: HookExecuted.EventSink | undefined; readonly now: () => number }
  // What every model call of the run gets: one signal for the run, made when a driver
  // first reads it (an AbortController costs microseconds).
  private readonly callOptions = new RunCallOptions()
  private signal: AbortSignal | undefined
  private afterExecutionRan = false
  /** The consumer's barrier (streaming): see `Observer.settled`. */
  settled: Effect.Effect<void> | undefined
  private stepIndex = 0
  private inBeforeStep = false
  // The clock is read again only after something that takes time (the model, a tool,
  // an effectful dispatch); between pure dispatches, and from one step to the next, the
  // last reading stands (a reading costs as much as a dispatch of a few hooks).
  private lastReading = 0
  private stale = true
  // The step being run, for the record an error leaves.
  private current: Current | undefined
  // The record of the step a resume finishes, while it runs: an error there closes the
  // open step (closeOpenStep), not a new one.
  private resumed: Current | undefined
  // Tools that ran and whose result is not committed yet (its AfterToolUse hooks run):
  // an error or an abort there still records them (settleTools).
  private readonly unrecorded: Array<ToolExecution> = []

  // What a custom interceptor (not a stack) is called with: its stacks learn which wrap
  // hooks the loop runs, and one whose wraps would be skipped refuses (loopWraps.ts).
  private readonly interceptEnv: { readonly sink: HookExecuted.EventSink | undefined; readonly now: () => number; readonly loopWraps?: object | null }
  private readonly intercept: (ctx: HookContext) => Effect.Effect<HookContext, AgentError.HookFailed, R>

  constructor(
    private readonly config: EngineConfig<R>,
    public state: AgentState,
    private readonly driver: DriverShape,
    private readonly now: () => number,
    sink: HookExecuted.EventSink | undefined,
    private readonly emit: ((event: AgentEvent) => void) | undefined,
    private readonly streaming: boolean,
    private readonly runContext: unknown,
    private readonly decisions: ReadonlyMap<string, Decision> | undefined = undefined,
    private readonly host: Subagent.Host = new Subagent.Host(undefined, undefined),
  ) {
    this.env = { sink, now }
    const interceptor = config.interceptor
    if (HookStack.isHookStack(interceptor)) {
      this.interceptEnv = this.env
      this.intercept = interceptor.intercept
    } else {
      this.interceptEnv = { sink, now, loopWraps: interceptor.wrapsFrom ?? null }
      this.intercept = (ctx) => Interceptor.underLoop(interceptor, interceptor.intercept(ctx))
    }
  }

  // Checked where the loop would start new work without yielding (the next step, a
  // tool, a model call a wrap hook asks for): an abort the race could not see yet stops
  // it there, and so does an interrupted body (a Promise wrap hook's `next` can still be
  // called after the run was interrupted from outside or by its time limit).
  private abortSeen(): boolean {
    return this.interrupted || this.signal?.aborted === true
  }

  private interrupted = false

  private abortCalls(): void {
    this.interrupted = true
    this.callOptions.abort()
  }

  execute(signal: AbortSignal | undefined): Effect.Effect<AgentState, never, R> {
    return Effect.gen(() => this.executeGen(signal)).pipe(
      // Interrupted from outside (a stream consumer gone, a parent fiber): AfterExecution
      // still fires, on what was committed.
      Effect.onInterrupt(() => Effect.asVoid(this.finish(aborted))),
    )
  }

  private *executeGen(signal: AbortSignal | undefined) {
    this.state = AgentState.withStatus(this.state, "running", this.read())
    this.stepIndex = this.state.execution.steps.length
    this.emit?.({ _tag: "RunStarted", state: this.state })
    const check = this.config.textCheck
    if (this.streaming && check !== undefined) this.emit?.({ _tag: "TextChecked", ...check })
    const steps = Effect.gen(() => this.bodyGen()).pipe(Effect.onInterrupt(() => Effect.sync(() => this.abortCalls())))
    // The time limit bounds the wall clock, not only what BeforeStep sees: a hung model
    // call or hook is interrupted when it passes.
    const limit = this.config.timeLimit
    const body = limit === undefined
      ? steps
      : Effect.raceFirst(steps, Effect.as(Effect.sleep(Math.max(0, this.timedFrom() + limit - this.lastReading)), timedOut))
    this.signal = signal
    const outcome: Outcome = signal === undefined
      ? yield* body
      : signal.aborted
      ? aborted
      : yield* Effect.raceFirst(body, this.abortedBy(signal))
    // A body that did not yield after the signal fired (a model or tool that aborted
    // and answered or failed at once) wins the race: the abort still counts. Errors
    // met on the way stay recorded.
    return yield* this.finish(signal?.aborted === true ? aborted : outcome)
  }

  // Where the time limit counts from: this call of run or resume (docs/decisions.md,
  // "Resumes"), as the time guard reads it.
  private timedFrom(): number {
    return this.state.execution.runningSince ?? this.state.execution.startedAt ?? this.lastReading
  }

  private abortedBy(signal: AbortSignal): Effect.Effect<Outcome> {
    return Effect.callback<Outcome>((resume) => {
      if (signal.aborted) return resume(Effect.succeed(aborted))
      const onAbort = () => resume(Effect.succeed(aborted))
      signal.addEventListener("abort", onAbort, { once: true })
      return Effect.sync(() => signal.removeEventListener("abort", onAbort))
    })
  }

  // BeforeExecution, then steps until a stop or an error nobody handled.
  // Set when a BeforeToolUse hook suspended a call: the run ends `suspended`.
  private suspended = false

  private *bodyGen() {
    const first = yield* Effect.result(Effect.gen(() => this.beforeExecutionGen()))
    if (first._tag === "Failure") {
      if (this.abortSeen()) return aborted
      const outcome = yield* this.onError([first.failure])
      if (outcome !== undefined) return outcome
      if (yield* this.shouldStop()) return done
    } else if (first.success) {
      return done
    }
    const step = Effect.gen(() => this.stepGen())
    // A suspended run first finishes the step it was suspended in, with the decisions:
    // this resume's, or those a resume that did not finish kept in the state.
    const decisions = this.decisions ?? KeptDecisions.of(this.state)
    let decided = this.state.execution.pendingCalls !== undefined && decisions !== undefined
      ? Effect.gen(() => this.decidedStepGen(decisions))
      : undefined
    while (true) {
      this.current = undefined
      if (this.abortSeen()) return aborted
      const result = yield* Effect.result(decided ?? step)
      decided = undefined
      if (result._tag === "Success") {
        if (result.success) return done
        continue
      }
      this.recordFailedStep(false, `its step failed before it ran (${result.failure._tag})`)
      this.inBeforeStep = false
      if (this.abortSeen()) return aborted
      const outcome = yield* this.onError([result.failure])
      if (outcome !== undefined) return outcome
      // Handled: the stop check comes first, as after any BeforeStep (a guard may have
      // fired in the dispatch that failed).
      this.holdStepsLimit()
      if (yield* this.shouldStop()) return done
    }
  }

  // True when the steps limit forbids another step.
  private stepsLimitReached(): boolean {
    const limit = this.config.stepsLimit
    return limit !== undefined && AgentState.stepCount(this.state) >= limit
  }

  // After a failed step, the loop raises the steps guard's own signal: a BeforeStep hook
  // that fails before the guard ends its dispatch, so the guard may never run, and an
  // OnError hook that handles every error would otherwise retry without end.
  private holdStepsLimit(): void {
    if (!this.stepsLimitReached() || this.state.execution.stopSignals.some((s) => s.source === Guards.names.steps)) return
    const limit = this.config.stepsLimit as number
    this.state = AgentState.withStopSignal(
      this.state,
      StopSignal.make(StopReason.StepsLimitReached, `Step limit reached: ${AgentState.stepCount(this.state)}/${limit}`, Guards.names.steps),
    )
  }

  // Returns true when the run should stop before any model call.
  private *beforeExecutionGen() {
    yield* this.dispatch(point("BeforeExecution", this.state, this.at()))
    return yield* this.shouldStop()
  }

  // The last reading, unless something that takes time ran since.
  private at(): number {
    return this.stale ? this.read() : this.lastReading
  }

  // A fresh reading, which the next `at` reuses: readings never go back in time.
  private read(): number {
    this.lastReading = this.now()
    this.stale = false
    return this.lastReading
  }

  // One step; returns true when the run should stop.
  private *stepGen() {
    const startedAt = this.at()
    // A step starts at BeforeStep: an error from there on leaves a step record, so
    // retries after handled errors count against the steps guard.
    const current: Current = { startedAt, response: undefined, executions: [], attempts: undefined, toolAttempts: undefined }
    this.current = current
    this.inBeforeStep = true
    yield* this.dispatch(point("BeforeStep", this.state, startedAt))
    this.inBeforeStep = false
    if (this.state.execution.stopSignals.length > 0) {
      // The stop check is not part of the step: an OnStop failure here leaves no step record.
      this.current = undefined
      if (yield* this.shouldStop()) return true
      this.current = current
    }
    const index = this.stepIndex

    const draft = InferenceRequest.make({
      systemPrompt: this.state.context.systemPrompt,
      messages: this.state.context.messages,
      tools: this.config.tools.definitions,
      responseFormat: this.state.context.responseFormat,
      options: this.config.modelOptions,
    })
    const before = yield* this.dispatch(point("BeforeInference", this.state, this.at(), draft))
    const request = before.request ?? draft
    let answered = before.response
    if (answered === undefined) {
      answered = this.config.wraps === undefined || !HookStack.hasWraps(this.config.wraps, WrapHook.WrapInference)
        ? yield* this.callDriver(request, index)
        : yield* this.wrappedCall(this.config.wraps, before, request, index, current)
      this.stale = true
    }
    const after = yield* this.dispatch(point("AfterInference", this.state, this.at(), request, answered))
    const response = after.response ?? answered
    current.response = response
    if (this.streaming && this.config.textCheck !== undefined && response.text.length > 0) {
      this.emit?.({ _tag: "TextDelta", step: index, text: response.text })
    }
    this.state = AgentState.appendMessage(this.state, Message.assistant(response.text, response.toolCalls))
    if (this.emit !== undefined) {
      for (const toolCall of response.toolCalls) this.emit({ _tag: "ToolCallRequested", step: index, toolCall })
      // The consumer sees the calls before any tool hook or tool acts on them.
      if (this.settled !== undefined && response.toolCalls.length > 0) yield* this.settled
    }

    if (response.toolCalls.length > 0) yield* this.runTools(response.toolCalls, index, current.executions)
    if (this.state.execution.pendingCalls !== undefined) {
      // The step stays open, but its model call was paid for: it counts in the run's
      // usage now (the token guard sees it). Its record so far stays in the state; the
      // step that ends it on resume keeps the response (a cost budget prices it by its
      // model) without counting its usage in the run's again.
      const spent = attemptsOf(current, response, this.at()).usage ?? response.usage
      this.state = AgentState.withExecution(this.state, { ...this.state.execution, usage: Usage.add(this.state.execution.usage, spent) })
      return this.suspend(Step.make({ index, startedAt, response, toolExecutions: current.executions, completedAt: this.at(), ...attemptsOf(current, response, this.at()) }))
    }

    const step = Step.make({
      index,
      startedAt,
      response,
      toolExecutions: current.executions,
      completedAt: this.at(),
      ...attemptsOf(current, response, this.at()),
    })
    this.state = AgentState.appendStep(this.state, step)
    this.stepIndex++
    this.current = undefined
    if (response.toolCalls.length === 0) {
      this.state = AgentState.withStopSignal(this.state, StopSignal.make(StopReason.Completed, "the model answered without tool calls", LOOP))
    }
    yield* this.dispatch(point("AfterStep", this.state, this.at()))
    this.emit?.({ _tag: "StepEnded", step, state: this.state })
    return yield* this.shouldStop()
  }

  // The run ends at once, `suspended`; the step stays open until the decisions come,
  // its record so far kept in the state (a resume in another process ends it).
  private suspend(open: Step): boolean {
    this.state = AgentState.withSuspendedStep(this.state, open)
    this.suspended = true
    this.current = undefined
    return true
  }


  // The step a suspended run was left in: the decided calls run (an approved call goes
  // through BeforeToolUse, where a block still holds), a rejected one is answered with
  // the person's message; then the step ends as any step does, unless calls still wait.
  private *decidedStepGen(decisions: ReadonlyMap<string, Decision | AgentState.PendingDecision>) {
    // The step as far as it went before the suspension (a state suspended before the
    // record was kept has none: its record then starts here, with the decided calls).
    const open = this.state.execution.suspendedStep
    const startedAt = open?.startedAt ?? this.at()
    const index = this.stepIndex
    const response = open?.response
    const current: Current = {
      startedAt,
      response,
      executions: [...(open?.toolExecutions ?? [])],
      attempts: undefined,
      toolAttempts: open?.toolAttempts === undefined ? undefined : [...open.toolAttempts],
    }
    this.current = current
    this.resumed = current
    const pending = this.state.execution.pendingCalls ?? []
    const waiting = pending.filter((p) => !decisions.has(p.toolCall.id))
    this.state = AgentState.withPendingCalls(this.state, waiting)
    // The decided calls run as a step's calls do, with the tool concurrency, in the
    // model's order (calls wait in the order they were suspended in, a subagent's after
    // the others); a rejected one is answered with the person's message, where a
    // BeforeToolUse block would be.
    const calls: Array<ToolCall> = []
    const rejected = new Map<string, ToolExecution>()
    for (const { toolCall } of inCallOrder(pending.filter((p) => decisions.has(p.toolCall.id)), response)) {
      // Fail-closed: only an Approve or an Edit runs the call (keptDecisions.ts).
      const applied = KeptDecisions.apply(toolCall, decisions.get(toolCall.id) as Decision | AgentState.PendingDecision)
      if (typeof applied === "string") rejected.set(toolCall.id, ToolExecution.blocked(toolCall, applied, this.at()))
      calls.push(typeof applied === "string" ? toolCall : applied)
    }
    yield* this.runTools(calls, index, current.executions, true, rejected)
    const executions = inCallOrder(current.executions, response)
    // The model calls of the step were recorded before the suspension.
    const recorded = open === undefined ? {} : { usage: open.usage, finishReason: open.finishReason, attempts: open.attempts }
    const record = (completedAt: number) =>
      Step.make({ index, startedAt, response, toolExecutions: executions, completedAt, ...recorded, toolAttempts: current.toolAttempts })
    if (this.state.execution.pendingCalls !== undefined) return this.suspend(record(this.at()))
    const step = record(this.at())
    // The open step's usage counted in the run's when it suspended.
    const usage = this.state.execution.usage
    this.state = AgentState.withSuspendedStep(this.state, undefined)
    this.state = AgentState.appendStep(this.state, step)
    if (open !== undefined) this.state = AgentState.withExecution(this.state, { ...this.state.execution, usage })
    this.stepIndex++
    this.current = undefined
    yield* this.dispatch(point("AfterStep", this.state, this.at()))
    this.emit?.({ _tag: "StepEnded", step, state: this.state })
    return yield* this.shouldStop()
  }

  // After BeforeToolUse: whether the call waits for a decision (and so does not run).
  // An approved call that a hook suspends again (the approval hook) runs.
  // A call a hook answered (a result, a block) in the same dispatch does not wait: its
  // answer is committed, nothing is left to decide (found by the fuzzer, issue 13).
  private waits(call: ToolCall, approved: boolean, answered = false): boolean {
    if (!AgentState.isPendingCall(this.state, call.id)) return false
    if (!approved && !answered) return true
    const rest = (this.state.execution.pendingCalls ?? []).filter((p) => p.toolCall.id !== call.id)
    this.state = AgentState.withPendingCalls(this.state, rest)
    return false
  }

  // Every answer is checked at this boundary (Driver.generateChecked/streamChecked):
  // garbage, a throw or a defect of the driver is InferenceFailed, like a failed call.
  private callDriver(
    request: InferenceRequest,
    index: number,
    driver: DriverShape = this.driver,
  ): Effect.Effect<InferenceResponse, AgentError.InferenceFailed> {
    const options = this.callOptions
    if (!this.streaming) return generateChecked(driver, request, options)
    // Checked text is emitted after the AfterInference hooks, not as it streams.
    const emit = this.config.textCheck !== undefined ? undefined : this.emit
    // A stream derived from generate: the same call and the same delta, with no stream built.
    // (The generate the stream calls: a driver spread with another generate keeps its stream's.)
    const generate = DerivedStream.generateOf(driver.stream)
    if (generate !== undefined) {
      const answer = generateChecked(generate === driver.generate ? driver : { generate, stream: driver.stream }, request, options)
      if (emit === undefined) return answer
      return Effect.map(answer, (response) => {
        if (response.text !== "") {
          this.textStreamed = true
          emit({ _tag: "TextDelta", step: index, text: response.text })
        }
        return response
      })
    }
    let streamed = false
    const onText = emit === undefined ? undefined : (text: string) => {
      streamed = this.textStreamed = true
      emit({ _tag: "TextDelta", step: index, text })
    }
    return streamChecked(driver, request, options, onText).pipe(
      // The consumer drops the text of an attempt that failed after streaming some.
      Effect.tapError(() => Effect.sync(() => streamed && this.resetText(index))),
    )
  }

  // Live text streamed since the last TextReset (read by wrapped calls, whose attempts
  // may not count).
  private textStreamed = false

  private resetText(index: number): void {
    if (!this.textStreamed) return
    this.textStreamed = false
    this.emit?.({ _tag: "TextReset", step: index })
  }

  // The model call held by the WrapInference hooks: each call of the innermost `next`
  // is one attempt, recorded in the step (the failed ones too, with what they cost).
  private wrappedCall(
    stack: HookStack.HookStack<R>,
    before: Dispatched,
    request: InferenceRequest,
    index: number,
    current: Current,
  ): Effect.Effect<InferenceResponse, AgentError.InferenceFailed | AgentError.HookFailed, R> {
    const ctx = HookContext.isHookContext(before) && before.request === request
      ? before
      : HookContext.make({ ...point("BeforeInference", this.state, this.at(), request), runContext: this.runContext })
    const attempts: Array<AttemptRecord> = (current.attempts = [])
    this.textStreamed = false
    const call = (c: HookContext, options: WrapHook.CallOptions | undefined) => {
      const driver = options?.model === undefined ? this.driver : options.model
      if (!isDriver(driver)) return Effect.die(new Error("next was given a model that is not a driver (generate and stream)"))
      // Aborted: no new attempt starts, whatever a wrap hook asks.
      if (this.abortSeen()) return Effect.fail(AgentError.inferenceFailed("the model call was aborted"))
      // The text of an earlier attempt that answered does not count either (found by the fuzzer, issue 16).
      this.resetText(index)
      const startedAt = this.now()
      const named = (driver as { readonly modelId?: unknown }).modelId
      const modelId = typeof named === "string" ? named : undefined
      // Every call is an attempt from the moment it starts, whatever ends it: an answer,
      // an error, or an interruption (a wrap hook's timeout, the run's abort or time limit).
      const slot = attempts.length
      attempts.push({ attempt: Step.inferenceAttempt({ modelId, startedAt, durationMs: 0, error: interrupted() }), response: undefined, cut: true, open: true })
      return Effect.onExit(this.callDriver(c.request ?? request, index, driver), (exit) =>
        Effect.sync(() => {
          const durationMs = this.now() - startedAt
          if (Exit.isSuccess(exit)) {
            attempts[slot] = {
              attempt: Step.inferenceAttempt({ modelId: exit.value.modelId, startedAt, durationMs, usage: exit.value.usage }),
              response: exit.value,
              cut: false,
            }
            return
          }
          const cut = !exit.cause.reasons.some(Cause.isFailReason) && Exit.hasInterrupts(exit)
          attempts[slot] = {
            attempt: Step.inferenceAttempt({ modelId, startedAt, durationMs, error: cut ? interrupted() : Driver_.inferenceFailed(Cause.squash(exit.cause)) }),
            response: undefined,
            cut,
          }
        }))
    }
    const env = { ...this.env, onCut: (ended: Exit.Exit<unknown, unknown>) => cutBy(attempts, ended) }
    return HookStack.wrapInference(stack, ctx, call, env).pipe(
      // The call failed after an attempt streamed text, or answered with other than the last attempt's answer.
      Effect.tapError(() => Effect.sync(() => this.resetText(index))),
      Effect.tap((response) => Effect.sync(() => response !== attempts.at(-1)?.response && this.resetText(index))),
    )
  }

  // One tool execution held by the WrapToolUse hooks; each call of the innermost
  // `next` is one attempt.
  private wrappedTool(
    stack: HookStack.HookStack<R>,
    before: Dispatched | undefined,
    toolCall: ToolCall,
    state: AgentState,
    current: Current,
  ): Effect.Effect<ToolExecution, AgentError.HookFailed, R> {
    const ctx = HookContext.isHookContext(before) && before.toolCall === toolCall
      ? before
      : HookContext.make({ ...point("BeforeToolUse", state, this.at(), undefined, undefined, toolCall), runContext: this.runContext })
    const attempts = (current.toolAttempts ??= [])
    // This call's runs that were interrupted (a timeout), until the wrap hook that cut
    // them says why (a failed execution: its error).
    const cut: Array<Step.ToolAttempt> = []
    const onCut = (ended: Exit.Exit<unknown, unknown>) => {
      const execution = Exit.isSuccess(ended) ? ended.value as ToolExecution : undefined
      if (execution?.status === "failure") {
        for (const a of cut) attempts[attempts.indexOf(a)] = Step.toolAttempt({ ...a, error: execution.error })
      }
      cut.length = 0
    }
    const tools = this.config.tools
    return HookStack.wrapToolUse(stack, ctx, (c) => {
      const call = c.toolCall ?? toolCall
      const startedAt = this.now()
      // Every run is an attempt, an interrupted one too.
      return Effect.onExit(Tools.execute(tools, call, { state, runContext: this.runContext }), (exit) =>
        Effect.sync(() => {
          const execution = Exit.isSuccess(exit) ? exit.value : undefined
          const attempt = Step.toolAttempt({
            toolCallId: call.id,
            toolName: call.name,
            startedAt,
            durationMs: this.now() - startedAt,
            error: execution === undefined
              ? AgentError.toolFailed(call.id, call.name, "the tool call was interrupted before it ended")
              : execution.status === "failure"
              ? execution.error
              : undefined,
          })
          attempts.push(attempt)
          if (execution === undefined) cut.push(attempt)
        }))
    }, { ...this.env, onCut })
  }

  private hasToolWraps(): boolean {
    return this.config.wraps !== undefined && HookStack.hasWraps(this.config.wraps, WrapHook.WrapToolUse)
  }

  // BeforeToolUse, the tool (unless blocked or short-circuited), AfterToolUse, commit:
  // in call order. Concurrently, the tools themselves run together between the two
  // hook phases, and results are committed in call order. A call in `answered` (a
  // person rejected it) skips BeforeToolUse and the tool: its answer is committed in
  // its place.
  private *runTools(
    calls: ReadonlyArray<ToolCall>,
    index: number,
    executions: Array<ToolExecution>,
    approved = false,
    answered?: ReadonlyMap<string, ToolExecution>,
  ) {
    const tools = this.config.tools
    if (this.config.toolConcurrency === "sequential") {
      for (const call of calls) {
        if (this.abortSeen()) return
        const answer = answered?.get(call.id)
        if (answer !== undefined) {
          executions.push(yield* this.afterTool(call, answer, index))
          continue
        }
        const before = yield* this.dispatch(point("BeforeToolUse", this.state, this.at(), undefined, undefined, call))
        if (this.waits(call, approved, before.toolExecution !== undefined)) continue
        const toolCall = before.toolCall ?? call
        let execution = before.toolExecution
        if (execution === undefined && this.settled !== undefined) yield* this.settled
        if (execution === undefined) {
          if (this.hasToolWraps()) {
            execution = yield* this.wrappedTool(this.config.wraps!, before, toolCall, this.state, this.current!)
            this.stale = true
          } else {
            const started = Tools.start(tools, toolCall, this.state, this.now, this.at(), this.runContext)
            if (Effect.isEffect(started)) {
              execution = yield* started
              this.stale = true
            } else {
              // A synchronous tool's end is the last reading.
              execution = started
              this.lastReading = started.completedAt
            }
          }
          this.unrecorded.push(execution)
          if (this.parked(toolCall, execution)) continue
        }
        executions.push(yield* this.afterTool(toolCall, execution, index))
      }
      return
    }
    const prepared: Array<{ readonly toolCall: ToolCall; readonly execution: ToolExecution | undefined; readonly before: Dispatched | undefined }> = []
    for (const call of calls) {
      const answer = answered?.get(call.id)
      if (answer !== undefined) {
        prepared.push({ toolCall: call, execution: answer, before: undefined })
        continue
      }
      const before = yield* this.dispatch(point("BeforeToolUse", this.state, this.at(), undefined, undefined, call))
      if (this.waits(call, approved, before.toolExecution !== undefined)) continue
      prepared.push({ toolCall: before.toolCall ?? call, execution: before.toolExecution, before })
    }
    if (this.abortSeen()) return
    if (this.settled !== undefined) yield* this.settled
    const state = this.state
    const wrapped = this.hasToolWraps()
    const runContext = this.runContext
    const results = yield* Effect.forEach(
      prepared,
      (p) =>
        p.execution !== undefined
          ? Effect.succeed(p.execution)
          : wrapped
          ? Effect.tap(this.wrappedTool(this.config.wraps!, p.before, p.toolCall, state, this.current!), (e) => Effect.sync(() => void this.unrecorded.push(e)))
          : Effect.tap(Tools.execute(tools, p.toolCall, { state, runContext }), (e) => Effect.sync(() => void this.unrecorded.push(e))),
      { concurrency: "unbounded" },
    )
    this.stale = true
    for (let i = 0; i < prepared.length; i++) {
      const p = prepared[i] as (typeof prepared)[number]
      if (p.execution === undefined && this.parked(p.toolCall, results[i] as ToolExecution)) continue
      executions.push(yield* this.afterTool(p.toolCall, results[i] as ToolExecution, index))
    }
  }

  // A subagent's tool whose child run ended suspended: the call waits too, with the
  // child's pending calls and state in its payload, and its result is not committed.
  // What the child spent so far counts at once.
  private parked(toolCall: ToolCall, execution: ToolExecution): boolean {
    const parked = this.host.takeParked(toolCall.id)
    if (parked === undefined) return false
    const ran = this.unrecorded.indexOf(execution)
    if (ran >= 0) this.unrecorded.splice(ran, 1)
    this.state = withSpent(AgentState.suspendCall(this.state, toolCall, parked.reason, parked.payload), this.host.takeUsage(toolCall.id))
    return true
  }

  // What a call spent on models (a subagent reports it through the host) goes on its
  // execution, so AfterToolUse hooks and the journal see it, and a replayed execution
  // brings it back; it is added to the run's as the call is committed.
  private *afterTool(toolCall: ToolCall, ran: ToolExecution, index: number) {
    const execution = ToolExecution.withUsage(ran, this.host.takeUsage(toolCall.id))
    const unrecorded = this.unrecorded.indexOf(ran)
    // Recorded as it ran, spending included, if AfterToolUse fails (settleTools).
    if (unrecorded >= 0) this.unrecorded[unrecorded] = execution
    const ctx = yield* this.dispatch(point("AfterToolUse", this.state, this.at(), undefined, undefined, toolCall, execution))
    const final = ctx.toolExecution ?? execution
    if (unrecorded >= 0) this.unrecorded.splice(this.unrecorded.indexOf(execution), 1)
    this.commitExecution(toolCall, final, index, ToolExecution.usageOf(execution))
    return final
  }

  // `spent` is what the call spent, whatever a hook made of its result.
  private commitExecution(toolCall: ToolCall, final: ToolExecution, index: number, spent: Usage.Usage | undefined): void {
    let state = withSpent(AgentState.appendMessage(this.state, ToolExecution.toMessage(final)), spent)
    if (final.status === "blocked") state = AgentState.addError(state, AgentError.toolBlocked(toolCall.id, toolCall.name, final.reason))
    else if (final.status === "failure") state = AgentState.addError(state, final.error)
    this.state = state
    this.emit?.({ _tag: "ToolResult", step: index, execution: final })
  }

  // Every tool call of the last assistant message gets exactly one tool message before
  // anything else is committed: a tool that ran and was not recorded (its AfterToolUse
  // failed, or the run was aborted there) is recorded as it ran, in its step too; a
  // call that never ran gets a cancellation marker (Tools.cancelled).
  // A call waiting for a decision is kept (unanswered) only when the run ends suspended
  // (`keepPending`); a failed or stopped step cancels it, or nobody could ever decide it
  // and the model would read an unanswered call (found by the fuzzer, issue 13).
  private settleTools(why: string, keepPending = false): void {
    const messages = this.state.context.messages
    // The last assistant message, and the tool messages after it (a state given by
    // hand may have other messages in between; a hook's return may not, contextCheck.ts).
    let i = messages.length - 1
    const answered: Array<string> = []
    for (let m = messages.at(i); m !== undefined && m.role !== "assistant"; m = messages.at(--i)) {
      if (m.role === "tool") answered.push(m.toolCallId)
    }
    const last = messages.at(i)
    if (last === undefined || last.role !== "assistant" || last.toolCalls.length === 0) {
      this.unrecorded.length = 0
      return
    }
    for (const call of last.toolCalls) {
      // A call waiting for a person's decision is answered when the run resumes.
      if (answered.includes(call.id) || (keepPending && AgentState.isPendingCall(this.state, call.id))) continue
      const k = this.unrecorded.findIndex((e) => e.toolCall.id === call.id)
      if (k < 0) {
        this.state = AgentState.appendMessage(this.state, Tools.cancelled(call, why))
        continue
      }
      const [ran] = this.unrecorded.splice(k, 1) as [ToolExecution]
      const execution = ToolExecution.withUsage(ran, this.host.takeUsage(ran.toolCall.id))
      this.current?.executions.push(execution)
      this.commitExecution(execution.toolCall, execution, this.stepIndex, ToolExecution.usageOf(execution))
    }
    this.unrecorded.length = 0
    if (!keepPending) this.state = AgentState.withPendingCalls(this.state, undefined)
  }

  // The stop check: with stop signals, OnStop runs; a continuation resumes the loop
  // unless a hard stop is among the signals. Returns true when the run should stop.
  private *shouldStop() {
    if (this.state.execution.stopSignals.length === 0) return false
    // A failing OnStop hook cannot continue the run: it is reported and the stop holds
    // (else a hook that always fails, under an OnError hook that handles everything,
    // would never let the run end).
    const result = yield* Effect.result(Effect.gen(() => this.dispatch(point("OnStop", this.state, this.at()))))
    if (result._tag === "Failure") {
      this.reportHookFailure(result.failure)
      return true
    }
    if (!this.state.execution.continuationRequested) return true
    // Any hard signal holds, even next to a soft one that ranks higher (StopRequested).
    const hard = this.state.execution.stopSignals.some(StopSignal.isHard)
    this.state = AgentState.withContinuationRequested(this.state, false)
    if (hard) return true
    this.state = AgentState.clearStopSignals(this.state)
    return false
  }

  // Runs the interceptor on a context and commits the state it returns. On the
  // synchronous path nothing is yielded: no Effect is built or run. A trigger with no
  // hooks builds no context at all: its parts come back as they went in.
  private *dispatch(input: DispatchInput) {
    if (this.config.silent[input.trigger]) return input as Dispatched
    // Every input has the field (one shape); it is filled here, not by each caller.
    if (this.runContext !== undefined) (input as { runContext: unknown }).runContext = this.runContext
    const ctx = HookContext.make(input)
    const sync = this.config.interceptor.interceptSync
    if (sync !== undefined) {
      let out: HookContext | undefined
      try {
        out = sync(ctx, this.interceptEnv)
      } catch (error) {
        if (error instanceof AgentError.HooklineError && error.error._tag === "HookFailed") {
          this.commitReached(error.error)
          return yield* Effect.fail(error.error)
        }
        return yield* Effect.die(error)
      }
      if (out !== undefined) {
        this.state = out.state
        return out
      }
    }
    const result = yield* Effect.result(this.intercept(ctx))
    this.stale = true
    if (result._tag === "Failure") {
      this.commitReached(result.failure)
      return yield* Effect.fail(result.failure)
    }
    this.state = result.success.state
    return result.success
  }

  // A failed dispatch keeps the state changes of the hooks before the failing one.
  private commitReached(error: AgentError.HookFailed): void {
    const reached = HookStack.contextAtFailure(error)
    if (reached !== undefined) this.state = reached.state
  }

  // A step that an error ended still leaves its record (so the steps guard counts
  // retries).
  private recordFailedStep(aborting = false, why = "its step failed before it ran"): void {
    this.settleTools(why)
    const current = this.current
    if (current === undefined) return
    this.current = undefined
    // (A state suspended before the open step was kept has none: its record starts here.)
    if (current === this.resumed && this.state.execution.suspendedStep !== undefined) return this.closeOpenStep(current)
    // A BeforeStep that failed after a stop was decided (a guard fired before the
    // failing hook), that an abort cut short, or that the steps limit forbids (the guard
    // would have fired, had the failing hook let it run) never started a step.
    if (this.inBeforeStep && (aborting || this.state.execution.stopSignals.length > 0 || this.stepsLimitReached())) return
    this.state = AgentState.appendStep(
      this.state,
      Step.make({
        index: this.stepIndex,
        startedAt: current.startedAt,
        response: current.response,
        toolExecutions: current.executions,
        finishReason: "error",
        completedAt: this.read(),
        ...attemptsOf(current, undefined, this.read()),
      }),
    )
    this.stepIndex++
  }

  // The open step a suspension left in the state (`suspendedStep`), ended as a failed
  // step: with what ran of it, this run's decided calls too (`current`, the resumed
  // step), in the model's order. Its model call counted in the run's usage when it
  // suspended: not again.
  private closeOpenStep(current: Current | undefined): void {
    const open = this.state.execution.suspendedStep
    if (open === undefined) return
    const usage = this.state.execution.usage
    const closed = Step.make({
      ...open,
      index: this.stepIndex,
      toolExecutions: current === undefined ? open.toolExecutions : inCallOrder(current.executions, open.response),
      toolAttempts: current === undefined ? open.toolAttempts : current.toolAttempts,
      finishReason: "error",
      completedAt: this.read(),
    })
    this.state = AgentState.withSuspendedStep(this.state, undefined)
    this.state = AgentState.appendStep(this.state, closed)
    this.state = AgentState.withExecution(this.state, { ...this.state.execution, usage })
    this.stepIndex++
  }

  // OnError with the errors; `undefined` when a hook handled them (the loop goes on),
  // else the run's failure. The errors are recorded either way.
  private onError(errors: ReadonlyArray<AgentError.AgentError>): Effect.Effect<Outcome | undefined, never, R> {
    return Effect.gen(() => this.onErrorGen(errors))
  }

  // The errors are in the state before the hooks run, so a hook that handles them can
  // also scrub the record (redaction); errors the hooks transform but do not handle
  // replace their record, unless the hooks rewrote the record themselves.
  private *onErrorGen(errors: ReadonlyArray<AgentError.AgentError>) {
    const recorded = errors.reduce(AgentState.addError, this.state)
    const raised = Object.freeze([...errors])
    const input = point("OnError", recorded, this.read(), undefined, undefined, undefined, undefined, raised)
    const result = yield* Effect.result(Effect.gen(() => this.dispatch(input)))
    if (result._tag === "Failure") {
      this.state = recorded
      this.reportHookFailure(result.failure)
      return { _tag: "Failed" as const, errors }
    }
    const { state } = result.success
    const remaining = result.success.errors ?? raised
    this.state = remaining.length === 0 || remaining === raised ? state : rerecord(state, raised, remaining)
    return remaining.length === 0 ? undefined : { _tag: "Failed" as const, errors: remaining }
  }

  private reportHookFailure(error: AgentError.HookFailed): void {
    this.state = AgentState.addError(this.state, error)
    this.emit?.({ _tag: "HookFailed", error })
  }

  // Status, then AfterExecution, exactly once whatever happened.
  finish(outcome: Outcome): Effect.Effect<AgentState, never, R> {
    if (this.afterExecutionRan) return Effect.succeed(this.state)
    this.afterExecutionRan = true
    return Effect.gen(() => this.finishGen(outcome)).pipe(Effect.uninterruptible)
  }

  private *finishGen(outcome: Outcome) {
    // Only a run that ends suspended keeps its calls waiting (a hard stop ends it stopped).
    const keepPending = outcome._tag === "Done" && this.suspended && !this.state.execution.stopSignals.some(StopSignal.isHard)
    this.settleTools(
      outcome._tag === "Aborted"
        ? "the run was aborted before it ran"
        : outcome._tag === "TimedOut"
        ? "the run reached its time limit before it ran"
        : "the run ended before it ran",
      keepPending,
    )
    if (outcome._tag === "Aborted") this.recordFailedStep(true, "the run was aborted before it ran")
    else if (outcome._tag === "TimedOut") this.recordFailedStep(true, "the run reached its time limit before it ran")
    // Only a run that ends suspended keeps an open step: one that suspended but does not
    // end suspended (an abort, a hard stop), or a resumed run that ended before it
    // finished its open step (BeforeExecution failed or stopped it), records it with what
    // ran; its usage already counts in the run's (found by the fuzzer, issue 13).
    if (!keepPending) this.closeOpenStep(undefined)
    let state = this.state
    if (outcome._tag === "Aborted") {
      state = AgentState.withStopSignal(this.state, StopSignal.make(StopReason.UserRequested, "the run was aborted", LOOP))
    } else if (outcome._tag === "TimedOut") {
      // The time guard's own signal, as it would have raised it at the next BeforeStep.
      if (!state.execution.stopSignals.some((s) => s.source === Guards.names.time)) {
        const limit = this.config.timeLimit as number
        const elapsed = this.read() - this.timedFrom()
        state = AgentState.withStopSignal(state, StopSignal.make(StopReason.TimeLimitReached, `Time limit reached: ${elapsed} ms/${limit} ms`, Guards.names.time))
      }
    } else if (outcome._tag === "Failed") {
      const first = outcome.errors[0] as AgentError.AgentError
      state = AgentState.withStopSignal(state, StopSignal.make(StopReason.ErrorForbade, first.message, LOOP))
    }
    const status = outcome._tag === "Failed"
      ? "failed"
      : outcome._tag === "Aborted" || outcome._tag === "TimedOut" || state.execution.stopSignals.some(StopSignal.isHard)
      ? "stopped"
      : this.suspended && this.state.execution.pendingCalls !== undefined
      ? "suspended"
      : "completed"
    // How it ended, as data: AfterExecution hooks and the caller read it without ranking signals.
    state = AgentState.withStopReason(state, StopSignal.highest(state.execution.stopSignals)?.reason)
    this.state = AgentState.withContinuationRequested(AgentState.withStatus(state, status, this.read()), false)
    const exit = yield* Effect.exit(
      Effect.gen(() => this.dispatch(point("AfterExecution", this.state, this.read()))),
    )
    if (Exit.isFailure(exit)) {
      const failure = exit.cause.reasons.find(Cause.isFailReason)
      // Every AfterExecution hook ran; each failure is reported.
      if (failure !== undefined) for (const error of HookStack.failuresOf(failure.error)) this.reportHookFailure(error)
      else if (!Cause.hasInterruptsOnly(exit.cause)) {
        this.reportHookFailure(AgentError.hookFailed("AfterExecution", "AfterExecution", Cause.squash(exit.cause)))
      }
    }
    const pendingCalls = this.state.execution.pendingCalls
    if (this.state.execution.status === "suspended" && pendingCalls !== undefined) {
      this.emit?.({ _tag: "Suspended", pendingCalls, state: this.state })
    }
    this.emit?.({ _tag: "RunEnded", state: this.state })
    return this.state
  }
}
