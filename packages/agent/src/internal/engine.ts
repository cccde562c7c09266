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
  HookContext,
  HookExecuted,
  HookStack,
  InferenceRequest,
  Message,
  Step,
  StopReason,
  StopSignal,
  ToolExecution,
  type HookTrigger,
  type Interceptor,
  type InferenceResponse,
  type ToolCall,
} from "@hookline/core"
import { Cause, Clock, Effect, Exit, Stream } from "effect"
import type { AgentEvent } from "../AgentEvent.js"
import { Driver, type DriverShape } from "../Driver.js"
import * as Tools from "../Tools.js"

/** How one run is carried out. */
export interface EngineConfig<R> {
  readonly interceptor: Interceptor<R>
  readonly tools: Tools.Tools
  readonly toolConcurrency: "sequential" | "concurrent"
  readonly modelOptions: InferenceRequest.ModelOptions
  /** A stream emits the model's text only after the AfterInference hooks ran. */
  readonly checkedText: boolean
/** Triggers with no hooks: the loop builds no context for them. */
  readonly silent: Readonly<Record<HookTrigger, boolean>>
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
): DispatchInput => ({ trigger, state, createdAt, request, response, toolCall, toolExecution, errors })

/** What a dispatch gives back: the context the hooks returned, or the input when there were none. */
type Dispatched = DispatchInput | HookContext

/** Per-run options. */
export interface RunOptions {
  /** Aborts the run: it ends stopped with UserRequested, AfterExecution still fires. */
  readonly signal?: AbortSignal | undefined
  /** Receives every HookExecuted event of the run. */
  readonly sink?: HookExecuted.EventSink | undefined
}

/** Where the run's events go (streaming), and whether the model is streamed. */
export interface Observer {
  readonly emit: (event: AgentEvent) => void
  readonly streaming: boolean
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
 * a pending or running state (a checkpoint) goes on where it was.
 */
export const startingState = (input: AgentState): AgentState => {
  const status = input.execution.status
  return status === "pending" || status === "running" ? input : AgentState.withExecution(input, AgentState.emptyExecution)
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
  const emit = observer?.emit
  const sink = combineSinks([
    contextSink,
    options.sink,
    emit === undefined ? undefined : (event) => emit({ _tag: "HookExecuted", event }),
  ])
  const run = new Run(config, startingState(initial), driver, now, sink, emit, observer?.streaming ?? false)
  return yield* run.execute(options.signal).pipe(
    // Effect hooks and `intercept` read the sink from the context.
    Effect.provideService(HookExecuted.CurrentEventSink, sink),
  )
}

type Outcome =
  | { readonly _tag: "Done" }
  | { readonly _tag: "Failed"; readonly errors: ReadonlyArray<AgentError.AgentError> }
  | { readonly _tag: "Aborted" }

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

const done: Outcome = { _tag: "Done" }
const aborted: Outcome = { _tag: "Aborted" }

// The mutable heart of one run: `state` is always the last committed state, so an
// abort or an error anywhere keeps everything committed before it.
//
// Steps are generator methods run with `Effect.gen(() => this.stepGen())`: a
// generator function made once, not per call, and a dispatch whose hooks are pure
// returns from the generator without yielding to the runtime.
class Run<R> {
  private readonly env: { readonly sink: HookExecuted.EventSink | undefined; readonly now: () => number }
  // Made when a driver first reads the signal: an AbortController costs microseconds.
  private controller: AbortController | undefined
  private abortRequested = false
  private signal: AbortSignal | undefined
  private readonly callOptions: { readonly signal: AbortSignal }
  private afterExecutionRan = false
  private stepIndex = 0
  private inBeforeStep = false
  // The clock is read again only after something that takes time (the model, a tool,
  // an effectful dispatch); between pure dispatches, and from one step to the next, the
  // last reading stands (a reading costs as much as a dispatch of a few hooks).
  private lastReading = 0
  private stale = true
  // The step being run, for the record an error leaves.
  private current: { startedAt: number; response: InferenceResponse | undefined; executions: Array<ToolExecution> } | undefined

  constructor(
    private readonly config: EngineConfig<R>,
    public state: AgentState,
    private readonly driver: DriverShape,
    private readonly now: () => number,
    sink: HookExecuted.EventSink | undefined,
    private readonly emit: ((event: AgentEvent) => void) | undefined,
    private readonly streaming: boolean,
  ) {
    this.env = { sink, now }
    const self = this
    this.callOptions = {
      get signal(): AbortSignal {
        if (self.controller === undefined) {
          self.controller = new AbortController()
          if (self.abortRequested) self.controller.abort()
        }
        return self.controller.signal
      },
    }
  }

  // Checked where the loop would start new work without yielding (the next step, a
  // tool): an abort the race could not see yet stops it there.
  private abortSeen(): boolean {
    return this.signal?.aborted === true
  }

  private abortCalls(): void {
    this.abortRequested = true
    this.controller?.abort()
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
    const body = Effect.gen(() => this.bodyGen()).pipe(Effect.onInterrupt(() => Effect.sync(() => this.abortCalls())))
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

  private abortedBy(signal: AbortSignal): Effect.Effect<Outcome> {
    return Effect.callback<Outcome>((resume) => {
      if (signal.aborted) return resume(Effect.succeed(aborted))
      const onAbort = () => resume(Effect.succeed(aborted))
      signal.addEventListener("abort", onAbort, { once: true })
      return Effect.sync(() => signal.removeEventListener("abort", onAbort))
    })
  }

  // BeforeExecution, then steps until a stop or an error nobody handled.
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
    while (true) {
      this.current = undefined
      if (this.abortSeen()) return aborted
      const result = yield* Effect.result(step)
      if (result._tag === "Success") {
        if (result.success) return done
        continue
      }
      this.recordFailedStep()
      this.inBeforeStep = false
      if (this.abortSeen()) return aborted
      const outcome = yield* this.onError([result.failure])
      if (outcome !== undefined) return outcome
      // Handled: the stop check comes first, as after any BeforeStep (a guard may have
      // fired in the dispatch that failed).
      if (yield* this.shouldStop()) return done
    }
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
    const current = { startedAt, response: undefined as InferenceResponse | undefined, executions: [] as Array<ToolExecution> }
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
      answered = yield* this.callDriver(request, index)
      this.stale = true
    }
    const after = yield* this.dispatch(point("AfterInference", this.state, this.at(), request, answered))
    const response = after.response ?? answered
    current.response = response
    if (this.streaming && this.config.checkedText && response.text.length > 0) {
      this.emit?.({ _tag: "TextDelta", step: index, text: response.text })
    }
    this.state = AgentState.appendMessage(this.state, Message.assistant(response.text, response.toolCalls))
    if (this.emit !== undefined) {
      for (const toolCall of response.toolCalls) this.emit({ _tag: "ToolCallRequested", step: index, toolCall })
    }

    if (response.toolCalls.length > 0) yield* this.runTools(response.toolCalls, index, current.executions)

    const step = Step.make({ index, startedAt, response, toolExecutions: current.executions, completedAt: this.at() })
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

  private callDriver(request: InferenceRequest, index: number): Effect.Effect<InferenceResponse, AgentError.InferenceFailed> {
    const options = this.callOptions
    if (!this.streaming) return this.driver.generate(request, options)
    // Checked text is emitted after the AfterInference hooks, not as it streams.
    const emit = this.config.checkedText ? undefined : this.emit
    let response: InferenceResponse | undefined
    return Stream.runForEach(this.driver.stream(request, options), (part) =>
      Effect.sync(() => {
        if (part._tag === "TextDelta") emit?.({ _tag: "TextDelta", step: index, text: part.text })
        else if (part._tag === "Finish") response = part.response
      })).pipe(
        Effect.flatMap(() =>
          response === undefined
            ? Effect.fail(AgentError.inferenceFailed("the model's stream ended without a response"))
            : Effect.succeed(response)
        ),
      )
  }

  // BeforeToolUse, the tool (unless blocked or short-circuited), AfterToolUse, commit:
  // in call order. Concurrently, the tools themselves run together between the two
  // hook phases, and results are committed in call order.
  private *runTools(calls: ReadonlyArray<ToolCall>, index: number, executions: Array<ToolExecution>) {
    const tools = this.config.tools
    if (this.config.toolConcurrency === "sequential") {
      for (const call of calls) {
        if (this.abortSeen()) return
        const before = yield* this.dispatch(point("BeforeToolUse", this.state, this.at(), undefined, undefined, call))
        const toolCall = before.toolCall ?? call
        let execution = before.toolExecution
        if (execution === undefined) {
          const started = Tools.start(tools, toolCall, this.state, this.now, this.at())
          if (Effect.isEffect(started)) {
            execution = yield* started
            this.stale = true
          } else {
            // A synchronous tool's end is the last reading.
            execution = started
            this.lastReading = started.completedAt
          }
        }
        executions.push(yield* this.afterTool(toolCall, execution, index))
      }
      return
    }
    const prepared: Array<{ readonly toolCall: ToolCall; readonly execution: ToolExecution | undefined }> = []
    for (const call of calls) {
      const before = yield* this.dispatch(point("BeforeToolUse", this.state, this.at(), undefined, undefined, call))
      prepared.push({ toolCall: before.toolCall ?? call, execution: before.toolExecution })
    }
    if (this.abortSeen()) return
    const state = this.state
    const results = yield* Effect.forEach(
      prepared,
      (p) => p.execution === undefined ? Tools.execute(tools, p.toolCall, { state }) : Effect.succeed(p.execution),
      { concurrency: "unbounded" },
    )
    this.stale = true
    for (let i = 0; i < prepared.length; i++) {
      executions.push(yield* this.afterTool((prepared[i] as (typeof prepared)[number]).toolCall, results[i] as ToolExecution, index))
    }
  }

  private *afterTool(toolCall: ToolCall, execution: ToolExecution, index: number) {
    const ctx = yield* this.dispatch(point("AfterToolUse", this.state, this.at(), undefined, undefined, toolCall, execution))
    const final = ctx.toolExecution ?? execution
    let state = AgentState.appendMessage(this.state, ToolExecution.toMessage(final))
    if (final.status === "blocked") state = AgentState.addError(state, AgentError.toolBlocked(toolCall.id, toolCall.name, final.reason))
    else if (final.status === "failure") state = AgentState.addError(state, final.error)
    this.state = state
    this.emit?.({ _tag: "ToolResult", step: index, execution: final })
    return final
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
    const ctx = HookContext.make(input)
    const sync = this.config.interceptor.interceptSync
    if (sync !== undefined) {
      let out: HookContext | undefined
      try {
        out = sync(ctx, this.env)
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
    const result = yield* Effect.result(this.config.interceptor.intercept(ctx))
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
  private recordFailedStep(aborting = false): void {
    const current = this.current
    if (current === undefined) return
    this.current = undefined
    // A BeforeStep that failed after a stop was decided (a guard fired before the
    // failing hook), or that an abort cut short, never started a step.
    if (this.inBeforeStep && (aborting || this.state.execution.stopSignals.length > 0)) return
    this.state = AgentState.appendStep(
      this.state,
      Step.make({
        index: this.stepIndex,
        startedAt: current.startedAt,
        response: current.response,
        toolExecutions: current.executions,
        finishReason: "error",
        completedAt: this.read(),
      }),
    )
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
    let state = this.state
    if (outcome._tag === "Aborted") {
      this.recordFailedStep(true)
      state = AgentState.withStopSignal(this.state, StopSignal.make(StopReason.UserRequested, "the run was aborted", LOOP))
    } else if (outcome._tag === "Failed") {
      const first = outcome.errors[0] as AgentError.AgentError
      state = AgentState.withStopSignal(state, StopSignal.make(StopReason.ErrorForbade, first.message, LOOP))
    }
    const status = outcome._tag === "Failed"
      ? "failed"
      : outcome._tag === "Aborted" || state.execution.stopSignals.some(StopSignal.isHard)
      ? "stopped"
      : "completed"
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
    this.emit?.({ _tag: "RunEnded", state: this.state })
    return this.state
  }
}
