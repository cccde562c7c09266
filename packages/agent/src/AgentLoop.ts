/**
 * The agent loop as an Effect program over a `Driver` (the model) and `Tools`, with
 * an `Interceptor` (a `HookStack` or a user's own) called at every trigger.
 *
 * @since 0.1.0
 */
import { AgentError, AgentState, Hook, HookStack, HookTrigger, Message, type HookExecuted, type InferenceRequest, type Interceptor } from "@hookline/core"
import { Channel, Duration, Effect, Fiber, Queue, Stream } from "effect"
import type { AgentEvent } from "./AgentEvent.js"
import type { Driver } from "./Driver.js"
import * as InputState from "./internal/inputState.js"
import { runEngine } from "./run/loop.js"
import * as RunContext from "./internal/runContext.js"
import type { EngineConfig, RunOptions } from "./run/types.js"
import type { Observer } from "./internal/observer.js"
import * as EventFeed from "./internal/eventFeed.js"
import * as HookListeners from "./internal/hookListeners.js"
import * as Subagent from "./subagent/host.js"
import type { Tool } from "./Tool.js"
import * as Tools from "./Tools.js"

export type { RunOptions }

/**
 * The run the calling Effect belongs to: one object per run, the same in every hook of
 * that run, `undefined` outside a run. Opaque: compare it or key a `WeakMap` on it. A
 * capability that keeps bookkeeping per run (a store's lease) keys it on this, not on the
 * state's id, which two runs of one stored run share.
 *
 * @since 0.1.0
 * @category getters
 */
export const currentRun: Effect.Effect<object | undefined> = Effect.map(
  Subagent.Current,
  (current) => current instanceof Subagent.Host ? current : undefined,
)

/**
 * `currentRun`, read at once: for a pure hook (called in its run's fiber) that keeps
 * bookkeeping per run without taking its trigger off the synchronous path.
 *
 * @since 0.1.0
 * @category getters
 */
export const currentRunNow = (): object | undefined => {
  const current = Fiber.getCurrent()?.getRef(Subagent.Current)
  return current instanceof Subagent.Host ? current : undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface AgentLoop<R = never, C = unknown> {
  readonly _tag: "AgentLoop"
  readonly interceptor: Interceptor<R>
  readonly tools: Tools.Tools
  /** Tool calls of a step run one after the other (default) or together. */
  readonly toolConcurrency: "sequential" | "concurrent"
  /** Sampling options sent with every request. */
  readonly modelOptions: InferenceRequest.ModelOptions
  /** When `stream` emits the model's text: see {@link TextDeltas}. */
  readonly textDeltas: TextDeltas
  /** Type only: the per-run context its hooks and tools read (`RunOptions.context`). */
  readonly "~runContext"?: ((context: C) => void) | undefined
  /**
   * The run context it declares (`UseRunContext`): each run's context is decoded with it
   * before BeforeExecution, and a run without one, or with one that does not decode,
   * fails there with `InvalidConfiguration` at `context` (`context.role`...).
   */
  readonly runContext?: RunContextSchema<C> | undefined
  /**
   * Hear every hook execution of every run of the loop, its subagents' runs
   * (`Tool.fromAgent`) included (`AgentBuilder.UseHookListener`). A listener must not
   * throw: a throw is caught and ignored. With none (and no sink, and a stream without
   * `hookEvents`) the loop builds no `HookExecuted` event and reads no clock for them.
   */
  readonly hookListeners?: ReadonlyArray<HookExecuted.EventSink> | undefined
  /**
   * What each run of the loop runs inside, first outermost (`AgentBuilder.UseAroundRun`):
   * the whole run, BeforeExecution to AfterExecution and the loop's own logs.
   */
  readonly aroundRun?: ReadonlyArray<AroundRun> | undefined
  /**
   * The run's wall-clock bound in milliseconds (`undefined`: none). When it passes, the
   * work in flight (a model call, a tool, a hook) is interrupted and the run ends
   * stopped with `TimeLimitReached`; AfterExecution still fires once. `AgentBuilder`
   * sets it from the time guard's `maxExecutionTime` (`UseGuards`, default 300 s).
   */
  readonly maxExecutionTime: number | undefined
  /**
   * The steps guard's limit, which the loop also holds after a failed step
   * (`undefined`: none): a BeforeStep hook that fails before the guard runs cannot carry
   * a run past it. `AgentBuilder` sets it from `UseGuards`' `maxSteps` (default 20).
   */
  readonly maxSteps: number | undefined
}

/**
 * What declares a run context (`UseRunContext`): an io-ts codec or a Standard Schema
 * (zod, valibot, Effect Schema's `Schema.toStandardSchemaV1`) whose output is `C`.
 *
 * @since 0.1.0
 * @category models
 */
export type RunContextSchema<C> = RunContext.Schema<C>

/**
 * Wraps a whole run (`AgentBuilder.UseAroundRun`): it may provide services, references,
 * a logger, a tracer or a parent span to the run, or observe its start and end. It is
 * generic in what it wraps, so it cannot change what the run gives back or how it fails.
 *
 * @since 0.1.0
 * @category models
 */
export type AroundRun = <A, E, R>(run: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>

/**
 * When `AgentLoop.stream` emits the model's text:
 * - `"checked"`: only after the AfterInference hooks ran, as one `TextDelta` of the
 *   text they let through, so a redaction hook there keeps secrets out of the stream;
 * - `"live"`: piece by piece as the driver streams it, before any hook saw it;
 * - `"auto"` (default): `"live"` when the interceptor is a stack whose AfterInference
 *   hooks are all observers (`Hook.observe`) or none (nothing could rewrite the text),
 *   `"checked"` otherwise (a custom interceptor may rewrite anything). When the text is
 *   checked, the stream says so with a `TextChecked` event after `RunStarted`.
 *
 * @since 0.1.0
 * @category models
 */
export type TextDeltas = "auto" | "live" | "checked"

const textDeltaModes: ReadonlyArray<TextDeltas> = ["auto", "live", "checked"]

// Why a stream holds the text back until the AfterInference hooks ran; `undefined`
// when it streams live. Observers (`Hook.observe`) cannot rewrite the text.
const textCheck = (interceptor: Interceptor<unknown>, mode: TextDeltas): TextCheck | undefined => {
  if (mode === "live") return undefined
  if (mode === "checked") return { mode, hooks: [], reason: "textDeltas is \"checked\"" }
  if (!HookStack.isHookStack(interceptor)) return { mode, hooks: [], reason: "a custom interceptor may rewrite the response" }
  const hooks = interceptor.resolved.AfterInference.registrations.filter((r) => !Hook.isObserver(r.hook)).map((r) => r.name)
  return hooks.length === 0
    ? undefined
    : { mode, hooks, reason: `AfterInference hooks may rewrite the response: ${hooks.join(", ")}` }
}

/** Why the text of a stream is checked: see the `TextChecked` event. */
type TextCheck = Omit<Extract<AgentEvent, { readonly _tag: "TextChecked" }>, "_tag">

/**
 * What a run starts from: a state, or a question (a new state with one user message).
 *
 * @since 0.1.0
 * @category models
 */
export type Input = AgentState | string

/**
 * A loop. Without an interceptor the loop runs no hooks (an empty stack).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <R = never, C = unknown>(options: {
  readonly interceptor?: Interceptor<R> | undefined
  readonly tools?: Tools.Tools | ReadonlyArray<Tool> | undefined
  readonly toolConcurrency?: "sequential" | "concurrent" | undefined
  readonly modelOptions?: InferenceRequest.ModelOptions | undefined
  readonly textDeltas?: TextDeltas | undefined
  readonly maxExecutionTime?: Duration.Input | null | undefined
  readonly maxSteps?: number | null | undefined
  readonly runContext?: RunContextSchema<C> | undefined

  readonly hookListeners?: ReadonlyArray<HookExecuted.EventSink> | undefined
  readonly aroundRun?: ReadonlyArray<AroundRun> | undefined
} = {}): AgentLoop<R, C> => {
  const tools = options.tools === undefined ? Tools.empty : Array.isArray(options.tools) ? Tools.make(options.tools) : options.tools as Tools.Tools
  const toolConcurrency = options.toolConcurrency ?? "sequential"
  if (toolConcurrency !== "sequential" && toolConcurrency !== "concurrent") {
    throw new AgentError.HooklineError(
      AgentError.invalidConfiguration("toolConcurrency", `expected "sequential" or "concurrent", got ${JSON.stringify(toolConcurrency)}`),
    )
  }
  const textDeltas = options.textDeltas ?? "auto"
  if (!textDeltaModes.includes(textDeltas)) {
    throw new AgentError.HooklineError(
      AgentError.invalidConfiguration("textDeltas", `expected "auto", "live" or "checked", got ${JSON.stringify(textDeltas)}`),
    )
  }
  const listeners = options.hookListeners
  if (listeners !== undefined && (!Array.isArray(listeners) || !listeners.every((l) => typeof l === "function"))) {
    throw new AgentError.HooklineError(
      AgentError.invalidConfiguration("hookListeners", "expected an array of functions, each (event: HookExecuted) => void"),
    )
  }
  const around = options.aroundRun
  if (around !== undefined && (!Array.isArray(around) || !around.every((f) => typeof f === "function"))) {
    throw new AgentError.HooklineError(
      AgentError.invalidConfiguration("aroundRun", "expected an array of functions, each (run: Effect) => Effect"),
    )
  }
  return Object.freeze({
    _tag: "AgentLoop",
    maxExecutionTime: timeLimitOf(options.maxExecutionTime),
    maxSteps: stepsLimitOf(options.maxSteps),
    interceptor: options.interceptor ?? (HookStack.empty as unknown as Interceptor<R>),
    tools,
    toolConcurrency,
    modelOptions: Object.freeze({ ...options.modelOptions }),
    textDeltas,
    runContext: runContextOf(options.runContext),

    ...(options.hookListeners === undefined || options.hookListeners.length === 0
      ? undefined
      : { hookListeners: Object.freeze([...options.hookListeners]) }),
    ...(around === undefined || around.length === 0 ? undefined : { aroundRun: Object.freeze([...around]) }),
  })
}

const runContextOf = <C>(schema: RunContextSchema<C> | undefined): RunContextSchema<C> | undefined => {
  if (schema === undefined) return undefined
  const problem = RunContext.problemOf(schema)
  if (problem !== undefined) throw new AgentError.HooklineError(AgentError.invalidConfiguration("runContext", problem))
  return schema
}

// A finite duration >= 0 in ms; null or undefined: no bound.
const timeLimitOf = (input: Duration.Input | null | undefined): number | undefined => {
  if (input === undefined || input === null) return undefined
  const parsed = typeof input === "number" && !(input >= 0) ? undefined : Duration.fromInput(input)
  const ms = parsed === undefined || parsed._tag === "None" ? NaN : Duration.toMillis(parsed.value)
  if (!(Number.isFinite(ms) && ms >= 0)) {
    throw new AgentError.HooklineError(
      AgentError.invalidConfiguration("maxExecutionTime", `expected a finite duration >= 0 ("5 minutes", a number of ms), got ${String(input)}`),
    )
  }
  return ms
}

// A whole number >= 0; null or undefined: no bound.
const stepsLimitOf = (input: number | null | undefined): number | undefined => {
  if (input === undefined || input === null) return undefined
  if (!(Number.isSafeInteger(input) && input >= 0)) {
    throw new AgentError.HooklineError(
      AgentError.invalidConfiguration("maxSteps", `expected a whole number >= 0, got ${String(input)}`),
    )
  }
  return input
}

/**
 * The state a run from `input` would be handed: a prompt's one user message, or `input`
 * itself, as given. Not checked here: a run checks the state where it enters
 * (`Codecs.AgentState`; anything that is not frozen plain data is replaced by the
 * codec's frozen copy), so this value gets into no run, store or result unchecked.
 *
 * @since 0.1.0
 * @category constructors
 */
export const initialState = (input: Input): AgentState =>
  typeof input === "string" ? InputState.fromPrompt(input) : input

// A loop is immutable: what the engine derives from it is made on its first run.
const configs = new WeakMap<AgentLoop<any>, EngineConfig<any>>()

const config = <R>(loop: AgentLoop<R, any>): EngineConfig<R> => {
  let made = configs.get(loop) as EngineConfig<R> | undefined
  if (made === undefined) {
    made = configOf(loop)
    configs.set(loop, made)
  }
  return made
}

const configOf = <R>(loop: AgentLoop<R, any>): EngineConfig<R> => ({
  interceptor: loop.interceptor,
  tools: loop.tools,
  toolConcurrency: loop.toolConcurrency,
  modelOptions: loop.modelOptions,
  textCheck: textCheck(loop.interceptor as Interceptor<unknown>, loop.textDeltas),
  silent: silentTriggers(loop.interceptor as Interceptor<unknown>),
  wraps: wrapsOf(loop.interceptor),
  timeLimit: loop.maxExecutionTime,
  stepsLimit: loop.maxSteps,
  checkContext: loop.runContext === undefined ? undefined : RunContext.checkOf(loop.runContext as RunContext.Schema<unknown>),

  listener: loop.hookListeners === undefined ? undefined : HookListeners.combine(loop.hookListeners),
  aroundRun: aroundOf(loop.aroundRun),
})

// The loop's run wraps as one, the first outermost; `undefined`: none.
const aroundOf = (wraps: ReadonlyArray<AroundRun> | undefined): AroundRun | undefined =>
  wraps === undefined || wraps.length === 0
    ? undefined
    : <A, E, R>(run: Effect.Effect<A, E, R>) => wraps.reduceRight((inner, wrap) => wrap(inner), run)

// The stack whose wrap hooks the loop runs: the interceptor itself, or the one a custom
// interceptor declares (Interceptor.around); none when it has no wrap hooks.
const wrapsOf = <R>(interceptor: Interceptor<R>): HookStack.HookStack<R> | undefined => {
  const stack = HookStack.isHookStack(interceptor) ? interceptor as HookStack.HookStack<R> : interceptor.wrapsFrom
  return stack !== undefined && stack.wrapRegistrations.length > 0 ? stack : undefined
}

// The triggers a stack has no hook for; none for a custom interceptor, which sees every trigger.
const silentTriggers = (interceptor: Interceptor<unknown>): Readonly<Record<HookTrigger, boolean>> =>
  Object.freeze(Object.fromEntries(HookTrigger.all.map((trigger) => [
    trigger,
    HookStack.isHookStack(interceptor) && interceptor.resolved[trigger].registrations.length === 0,
  ])) as Record<HookTrigger, boolean>)

/**
 * Runs to the end and returns the final state. Outcomes are data: read
 * `execution.status`, its stop signals and errors; this Effect never fails.
 *
 * @since 0.1.0
 * @category running
 */
export const run = <R, C = unknown>(
  loop: AgentLoop<R, C>,
  input: Input,
  options?: RunOptions<C>,
): Effect.Effect<AgentState, never, R | Driver> =>
  runEngine(config(loop), input, options)

/**
 * The run's events as they happen; the model is streamed, and the same hooks fire
 * with the same contexts as in `run`. Ends with `RunEnded`. Stopping the stream early
 * aborts the run (AfterExecution still fires). `HookExecuted` events are left out
 * unless the options ask for them (`{ hookEvents: true }`).
 *
 * @since 0.1.0
 * @category running
 */
export const stream = <R, C = unknown>(
  loop: AgentLoop<R, C>,
  input: Input,
  options?: RunOptions<C>,
): Stream.Stream<AgentEvent, never, R | Driver> =>
  Stream.fromChannel(Channel.fromTransform((_, scope) =>
    Effect.gen(function*() {
      const feed = EventFeed.make<AgentEvent>()
      // The consumer pulls; before a tool runs the loop waits until it took every
      // event so far (events follow what happened). Leaving the stream closes the
      // scope, which interrupts the run (AfterExecution still fires).
      yield* runEngine(config(loop), input, options, { streaming: true, emit: feed.push, settled: feed.settled }).pipe(
        Effect.ensuring(Effect.sync(feed.end)),
        Effect.forkIn(scope, { startImmediately: true }),
      )
      return feed.pull
    })
  ))

/**
 * A run whose events go to `observer` as they happen: what `stream` and `iterate` are
 * made of, for the Promise facade's iterables (Agent.ts).
 *
 * @internal
 */
export const observe = <R, C = unknown>(
  loop: AgentLoop<R, C>,
  input: Input,
  options: RunOptions<C> | undefined,
  observer: Observer,
): Effect.Effect<AgentState, never, R | Driver> => runEngine(config(loop), input, options, observer)

/**
 * The state after each step, then the final state.
 *
 * @since 0.1.0
 * @category running
 */
export const iterate = <R, C = unknown>(
  loop: AgentLoop<R, C>,
  input: Input,
  options?: RunOptions<C>,
): Stream.Stream<AgentState, never, R | Driver> =>
  Stream.callback<AgentState, never, R | Driver>((queue) =>
    Effect.andThen(
      runEngine(config(loop), input, options, {
        streaming: false,
        emit: (event) => {
          if (event._tag === "StepEnded" || event._tag === "RunEnded") Queue.offerUnsafe(queue, event.state)
        },
      }),
      Queue.end(queue),
    )
  )
