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
  InferenceRequest,
  Message,
  Step,
  StopReason,
  StopSignal,
  ToolExecution,
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
}

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
): Effect.Effect<AgentState, never, R | Driver> =>
  Effect.gen(function*() {
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
  })

type Outcome =
  | { readonly _tag: "Done" }
  | { readonly _tag: "Failed"; readonly errors: ReadonlyArray<AgentError.AgentError> }
  | { readonly _tag: "Aborted" }

const done: Outcome = { _tag: "Done" }
const aborted: Outcome = { _tag: "Aborted" }

// The mutable heart of one run: `state` is always the last committed state, so an
// abort or an error anywhere keeps everything committed before it.
class Run<R> {
  private readonly env: { readonly sink: HookExecuted.EventSink | undefined; readonly now: () => number }
  private readonly controller = new AbortController()
  private afterExecutionRan = false
  private stepIndex = 0
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
  }

  execute(signal: AbortSignal | undefined): Effect.Effect<AgentState, never, R> {
    const self = this
    return Effect.gen(function*() {
      self.state = AgentState.withStatus(self.state, "running", self.now())
      self.stepIndex = self.state.execution.steps.length
      self.emit?.({ _tag: "RunStarted", state: self.state })
      const body = self.body().pipe(Effect.onInterrupt(() => Effect.sync(() => self.controller.abort())))
      const outcome = signal === undefined
        ? yield* body
        : signal.aborted
        ? aborted
        : yield* Effect.raceFirst(body, self.abortedBy(signal))
      return yield* self.finish(outcome)
    }).pipe(
      // Interrupted from outside (a stream consumer gone, a parent fiber): AfterExecution
      // still fires, on what was committed.
      Effect.onInterrupt(() => Effect.asVoid(this.finish(aborted))),
    )
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
  private body(): Effect.Effect<Outcome, never, R> {
    const self = this
    return Effect.gen(function*() {
      const first = yield* Effect.result(self.beforeExecution())
      if (first._tag === "Failure") {
        const handled = yield* self.onError([first.failure])
        if (handled !== undefined) return handled
      } else if (first.success) {
        return done
      }
      while (true) {
        self.current = undefined
        const step = yield* Effect.result(self.step())
        if (step._tag === "Success") {
          if (step.success) return done
          continue
        }
        self.recordFailedStep()
        const outcome = yield* self.onError([step.failure])
        if (outcome !== undefined) return outcome
      }
    })
  }

  // Returns true when the run should stop before any model call.
  private beforeExecution(): Effect.Effect<boolean, StepError, R> {
    const self = this
    return Effect.gen(function*() {
      yield* self.dispatch(HookContext.make({ trigger: "BeforeExecution", state: self.state, createdAt: self.now() }))
      return yield* self.shouldStop()
    })
  }

  // One step; returns true when the run should stop.
  private step(): Effect.Effect<boolean, StepError, R> {
    const self = this
    return Effect.gen(function*() {
      const startedAt = self.now()
      // A step starts at BeforeStep: an error from there on leaves a step record, so
      // retries after handled errors count against the steps guard.
      const current = { startedAt, response: undefined as InferenceResponse | undefined, executions: [] as Array<ToolExecution> }
      self.current = current
      yield* self.dispatch(HookContext.make({ trigger: "BeforeStep", state: self.state, createdAt: startedAt }))
      if (yield* self.shouldStop()) {
        self.current = undefined
        return true
      }
      const index = self.stepIndex

      const draft = InferenceRequest.make({
        systemPrompt: self.state.context.systemPrompt,
        messages: self.state.context.messages,
        tools: self.config.tools.definitions,
        responseFormat: self.state.context.responseFormat,
        options: self.config.modelOptions,
      })
      const before = yield* self.dispatch(
        HookContext.make({ trigger: "BeforeInference", state: self.state, createdAt: self.now(), request: draft }),
      )
      const request = before.request ?? draft
      const answered = before.response ?? (yield* self.callDriver(request, index))
      const after = yield* self.dispatch(
        HookContext.make({ trigger: "AfterInference", state: self.state, createdAt: self.now(), request, response: answered }),
      )
      const response = after.response ?? answered
      current.response = response
      self.state = AgentState.appendMessage(self.state, Message.assistant(response.text, response.toolCalls))
      if (self.emit !== undefined) {
        for (const toolCall of response.toolCalls) self.emit({ _tag: "ToolCallRequested", step: index, toolCall })
      }

      if (response.toolCalls.length > 0) yield* self.runTools(response.toolCalls, index, current.executions)

      const step = Step.make({ index, startedAt, response, toolExecutions: current.executions, completedAt: self.now() })
      self.state = AgentState.appendStep(self.state, step)
      self.stepIndex++
      self.current = undefined
      if (response.toolCalls.length === 0) {
        self.state = AgentState.withStopSignal(self.state, StopSignal.make(StopReason.Completed, "the model answered without tool calls", LOOP))
      }
      yield* self.dispatch(HookContext.make({ trigger: "AfterStep", state: self.state, createdAt: self.now() }))
      self.emit?.({ _tag: "StepEnded", step, state: self.state })
      return yield* self.shouldStop()
    })
  }

  private callDriver(request: InferenceRequest, index: number): Effect.Effect<InferenceResponse, AgentError.InferenceFailed> {
    const options = { signal: this.controller.signal }
    if (!this.streaming) return this.driver.generate(request, options)
    const emit = this.emit
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
  private runTools(calls: ReadonlyArray<ToolCall>, index: number, executions: Array<ToolExecution>): Effect.Effect<void, StepError, R> {
    const self = this
    return Effect.gen(function*() {
      if (self.config.toolConcurrency === "sequential") {
        for (const call of calls) {
          const prepared = yield* self.beforeTool(call)
          const execution = prepared.execution ?? (yield* Tools.execute(self.config.tools, prepared.toolCall, { state: self.state }))
          executions.push(yield* self.afterTool(prepared.toolCall, execution, index))
        }
        return
      }
      const prepared: Array<{ readonly toolCall: ToolCall; readonly execution: ToolExecution | undefined }> = []
      for (const call of calls) prepared.push(yield* self.beforeTool(call))
      const state = self.state
      const results = yield* Effect.forEach(
        prepared,
        (p) => p.execution === undefined ? Tools.execute(self.config.tools, p.toolCall, { state }) : Effect.succeed(p.execution),
        { concurrency: "unbounded" },
      )
      for (let i = 0; i < prepared.length; i++) {
        executions.push(yield* self.afterTool((prepared[i] as (typeof prepared)[number]).toolCall, results[i] as ToolExecution, index))
      }
    })
  }

  private beforeTool(
    call: ToolCall,
  ): Effect.Effect<{ readonly toolCall: ToolCall; readonly execution: ToolExecution | undefined }, StepError, R> {
    return Effect.map(
      this.dispatch(HookContext.make({ trigger: "BeforeToolUse", state: this.state, createdAt: this.now(), toolCall: call })),
      (ctx) => ({ toolCall: ctx.toolCall ?? call, execution: ctx.toolExecution }),
    )
  }

  private afterTool(toolCall: ToolCall, execution: ToolExecution, index: number): Effect.Effect<ToolExecution, StepError, R> {
    const self = this
    return Effect.map(
      this.dispatch(
        HookContext.make({ trigger: "AfterToolUse", state: this.state, createdAt: this.now(), toolCall, toolExecution: execution }),
      ),
      (ctx) => {
        const final = ctx.toolExecution ?? execution
        let state = AgentState.appendMessage(self.state, ToolExecution.toMessage(final))
        if (final.status === "blocked") state = AgentState.addError(state, AgentError.toolBlocked(toolCall.id, toolCall.name, final.reason))
        else if (final.status === "failure") state = AgentState.addError(state, final.error)
        self.state = state
        self.emit?.({ _tag: "ToolResult", step: index, execution: final })
        return final
      },
    )
  }

  // The stop check: with stop signals, OnStop runs; a continuation resumes the loop
  // unless a hard stop is among the signals. Returns true when the run should stop.
  private shouldStop(): Effect.Effect<boolean, StepError, R> {
    if (this.state.execution.stopSignals.length === 0) return Effect.succeed(false)
    const self = this
    return Effect.gen(function*() {
      yield* self.dispatch(HookContext.make({ trigger: "OnStop", state: self.state, createdAt: self.now() }))
      if (!self.state.execution.continuationRequested) return true
      const highest = StopSignal.highest(self.state.execution.stopSignals)
      const hard = highest !== undefined && StopSignal.isHard(highest)
      self.state = AgentState.withContinuationRequested(self.state, false)
      if (hard) return true
      self.state = AgentState.clearStopSignals(self.state)
      return false
    })
  }

  // Runs the interceptor on a context and commits the state it returns.
  private dispatch(ctx: HookContext): Effect.Effect<HookContext, AgentError.HookFailed, R> {
    const sync = this.config.interceptor.interceptSync
    if (sync !== undefined) {
      let out: HookContext | undefined
      try {
        out = sync(ctx, this.env)
      } catch (error) {
        if (error instanceof AgentError.HooklineError && error.error._tag === "HookFailed") return Effect.fail(error.error)
        return Effect.die(error)
      }
      if (out !== undefined) {
        this.state = out.state
        return Effect.succeed(out)
      }
    }
    return Effect.map(this.config.interceptor.intercept(ctx), (out) => {
      this.state = out.state
      return out
    })
  }

  // A step that an error ended still leaves its record (so the steps guard counts
  // retries).
  private recordFailedStep(): void {
    const current = this.current
    if (current === undefined) return
    this.current = undefined
    this.state = AgentState.appendStep(
      this.state,
      Step.make({
        index: this.stepIndex,
        startedAt: current.startedAt,
        response: current.response,
        toolExecutions: current.executions,
        finishReason: "error",
        completedAt: this.now(),
      }),
    )
    this.stepIndex++
  }

  // OnError with the errors; `undefined` when a hook handled them (the loop goes on),
  // else the run's failure. The errors are recorded either way.
  private onError(errors: ReadonlyArray<AgentError.AgentError>): Effect.Effect<Outcome | undefined, never, R> {
    const self = this
    return Effect.gen(function*() {
      const ctx = HookContext.make({ trigger: "OnError", state: self.state, createdAt: self.now(), errors })
      const result = yield* Effect.result(self.dispatch(ctx))
      let remaining: ReadonlyArray<AgentError.AgentError> = errors
      if (result._tag === "Failure") self.reportHookFailure(result.failure)
      else remaining = result.success.errors
      for (const error of remaining.length === 0 ? errors : remaining) self.state = AgentState.addError(self.state, error)
      return remaining.length === 0 ? undefined : { _tag: "Failed", errors: remaining }
    })
  }

  private reportHookFailure(error: AgentError.HookFailed): void {
    this.state = AgentState.addError(this.state, error)
    this.emit?.({ _tag: "HookFailed", error })
  }

  // Status, then AfterExecution, exactly once whatever happened.
  finish(outcome: Outcome): Effect.Effect<AgentState, never, R> {
    if (this.afterExecutionRan) return Effect.succeed(this.state)
    this.afterExecutionRan = true
    const self = this
    return Effect.gen(function*() {
      let state = self.state
      if (outcome._tag === "Aborted") {
        self.recordFailedStep()
        state = AgentState.withStopSignal(self.state, StopSignal.make(StopReason.UserRequested, "the run was aborted", LOOP))
      } else if (outcome._tag === "Failed") {
        const first = outcome.errors[0] as AgentError.AgentError
        state = AgentState.withStopSignal(state, StopSignal.make(StopReason.ErrorForbade, first.message, LOOP))
      }
      const highest = StopSignal.highest(state.execution.stopSignals)
      const status = outcome._tag === "Failed"
        ? "failed"
        : outcome._tag === "Aborted" || (highest !== undefined && StopSignal.isHard(highest))
        ? "stopped"
        : "completed"
      self.state = AgentState.withContinuationRequested(AgentState.withStatus(state, status, self.now()), false)
      const exit = yield* Effect.exit(
        self.dispatch(HookContext.make({ trigger: "AfterExecution", state: self.state, createdAt: self.now() })),
      )
      if (Exit.isFailure(exit)) {
        const failure = exit.cause.reasons.find(Cause.isFailReason)
        if (failure !== undefined) self.reportHookFailure(failure.error)
        else if (!Cause.hasInterruptsOnly(exit.cause)) {
          self.reportHookFailure(AgentError.hookFailed("AfterExecution", "AfterExecution", Cause.squash(exit.cause)))
        }
      }
      self.emit?.({ _tag: "RunEnded", state: self.state })
      return self.state
    }).pipe(Effect.uninterruptible)
  }
}
