// The run's vocabulary, types only: what a run is given (`EngineConfig`, `RunOptions`),
// how a step and a run end (`StepEnd`, `Outcome`), and the records a step keeps while it
// runs (`OpenStep`, `AttemptRecord`). Every module of run/ reads it; it imports no module
// of run/.
import type { AgentError, HookContext, HookExecuted, HookStack, HookTrigger, InferenceRequest, InferenceResponse, Interceptor, Step, ToolCall, ToolExecution } from "@hookline/core"
import type { Effect } from "effect"
import type { AgentEvent } from "../AgentEvent.js"
import type { DriverShape } from "../internal/driverContract.js"
import type * as RunContext from "../internal/runContext.js"
import type { RunCallOptions } from "../internal/callSignal.js"
import type { Host } from "../subagent/host.js"
import type { Decision } from "../Decision.js"
import type * as Tools from "../Tools.js"

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
  /** Decodes the run context the agent declares (`UseRunContext`), before BeforeExecution. */
  readonly checkContext?: RunContext.Check | undefined

  /** The loop's hook listeners as one sink (`AgentLoop.hookListeners`); `undefined`: none. */
  readonly listener?: HookExecuted.EventSink | undefined
  /** What the whole run runs inside (`AgentLoop.aroundRun`, composed); `undefined`: nothing. */
  readonly aroundRun?: (<A, E, R2>(run: Effect.Effect<A, E, R2>) => Effect.Effect<A, E, R2>) | undefined
}

/**
 * Per-run options: what the caller gives each run (a resumed run takes the same shape,
 * given again).
 */
export interface RunOptions<C = unknown> {
  /** Aborts the run: it ends stopped with UserRequested, AfterExecution still fires. */
  readonly signal?: AbortSignal | undefined
  /**
   * What an interruption of the run's fiber from outside means. `"stop"` (default): the
   * run ends stopped with UserRequested, as an abort would. `"handOver"`: the run moves to
   * another owner (its process shuts down, its cluster entity is evicted): it ends with no
   * stop signal, its state the last committed step with status `running`, which
   * AfterExecution sees (a checkpointing capability saves it and releases the lease), so
   * a resume goes on from there. The abort signal still stops the run.
   */
  readonly interruption?: "stop" | "handOver" | undefined
  /** Receives every HookExecuted event of the run. */
  readonly sink?: HookExecuted.EventSink | undefined
  /**
   * Whether a stream (`stream`) yields a `HookExecuted` event for each hook execution,
   * its subagents' included (default `false`: a stream leaves them out, and builds
   * none unless a listener or a sink wants them).
   */
  readonly hookEvents?: boolean | undefined
  /** A suspended run's decisions, by call id (checked by `Decision.validate`). */
  readonly decisions?: ReadonlyMap<string, Decision> | undefined
  /**
   * The run's context (who asks: a role, a tenant; request-scoped services): hooks
   * read it as `ctx.runContext`, tools as `context.runContext`. It is never put in
   * the state, so never persisted or encoded: give it again on every run.
   */
  readonly context?: C | undefined
}

/** The parts of a context, as the loop has them. */
export type DispatchInput = Parameters<typeof HookContext.make>[0]

/** What a dispatch gives back: the context the hooks returned, or the input when there were none. */
export type Dispatched = DispatchInput | HookContext

/** The parts of a context a step's caller reads back from its dispatch (each undefined: unchanged). */
export interface Parts {
  readonly request?: InferenceRequest | undefined
  readonly response?: InferenceResponse | undefined
  readonly toolCall?: ToolCall | undefined
  readonly toolExecution?: ToolExecution | undefined
}

/** What a step's dispatch gives back (`dispatchAt`): the context the hooks returned, or parts. */
export type StepDispatched = Parts | HookContext

/**
 * A phase of the run: a module-level generator function, delegated to with `yield*` (or
 * wrapped in `Effect.gen` once per run), giving `A`, failing with `E`, needing `R`.
 */
export type Phase<A, E, R> = Generator<Effect.Effect<any, E, R>, A, any>

/** How a step ended: the loop goes on, stops, or suspends with the step left open. */
export type StepEnd =
  | { readonly _tag: "Continue" }
  | { readonly _tag: "Stop" }
  | { readonly _tag: "Suspend"; readonly open: Step.Step }

/** How a run's steps ended, before AfterExecution. */
export type Outcome =
  | { readonly _tag: "Done" }
  | { readonly _tag: "Suspended" }
  | { readonly _tag: "Failed"; readonly errors: ReadonlyArray<AgentError.AgentError> }
  | { readonly _tag: "Aborted" }
  | { readonly _tag: "TimedOut" }

/** A model call of a step with wrap hooks, as it is recorded. */
export interface AttemptRecord {
  readonly attempt: Step.InferenceAttempt
  readonly response: InferenceResponse | undefined
  /** Interrupted before it answered, and not yet told why (`cutBy`). */
  readonly cut: boolean
  /** Still running (a Promise wrap hook's `next` may outlive its run): recorded as interrupted. */
  readonly open?: boolean | undefined
}

/** The step being run, for the record it leaves. */
export interface OpenStep {
  startedAt: number
  response: InferenceResponse | undefined
  executions: Array<ToolExecution>
  attempts: Array<AttemptRecord> | undefined
  toolAttempts: Array<Step.ToolAttempt> | undefined
  /** The decisions a resumed step carries out (keptDecisions.ts `carried`): its record keeps them, a failed one too. */
  decisions?: Readonly<Record<string, Step.Decision>> | undefined
}

/** What a run is given once, read by every phase and never written. */
export interface RunEnv<R> {
  readonly config: EngineConfig<R>
  readonly driver: DriverShape
  readonly now: () => number
  /** What the stack's runtime is called with (`HookStack` env). */
  readonly hooks: { readonly sink: HookExecuted.EventSink | undefined; readonly now: () => number }
  // What a custom interceptor (not a stack) is called with: its stacks learn which wrap
  // hooks the loop runs, and one whose wraps would be skipped refuses (loopWraps.ts).
  readonly interceptEnv: { readonly sink: HookExecuted.EventSink | undefined; readonly now: () => number; readonly loopWraps?: object | null }
  readonly intercept: (ctx: HookContext) => Effect.Effect<HookContext, AgentError.HookFailed, R>
  readonly emit: ((event: AgentEvent) => void) | undefined
  readonly streaming: boolean
  readonly runContext: unknown
  /** This resume's decisions, by call id. */
  readonly decisions: ReadonlyMap<string, Decision> | undefined
  readonly host: Host
  /**
   * What every model call of the run gets: one signal for the run, made when a driver
   * first reads it (an AbortController costs microseconds).
   */
  readonly callOptions: RunCallOptions
  /** The consumer's barrier (streaming): see `Observer.settled`. */
  readonly settled: Effect.Effect<void> | undefined
}
