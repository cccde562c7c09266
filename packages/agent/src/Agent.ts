/**
 * A built agent: its loop and driver, with a Promise facade for users who do not use
 * Effect (`await agent.run("question")`) and the Effect forms for those who do.
 *
 * @since 0.1.0
 */
import { AgentError, type AgentState, type Message } from "@hookline/core"
import { Cause, Clock, Context, Effect, type Fiber, Result, type Scope } from "effect"
import * as Decision from "./Decision.js"
import type { AgentEvent } from "./AgentEvent.js"
import * as AgentLoop from "./AgentLoop.js"
import { Driver, type DriverShape } from "./Driver.js"
import * as FiberIterable from "./internal/fiberIterable.js"
import * as InputState from "./internal/inputState.js"
import type * as Resource from "./Resource.js"
import * as Conclude from "./run/conclude.js"
import * as Continuation from "./run/continuation.js"
import * as Expiry from "./run/expiry.js"
import * as Tools from "./Tools.js"

/**
 * The options argument of a run: optional when the agent reads no per-run context
 * (`C` is `unknown`), required with its `context` when it does.
 *
 * @since 0.1.0
 * @category models
 */
export type RunArguments<C> = unknown extends C ? [options?: AgentLoop.RunOptions<C>]
  : [options: AgentLoop.RunOptions<C> & { readonly context: C }]

/**
 * The options of a resume: a run's options (`context`, `signal`, `sink`) and the
 * person's `decisions` on the calls the run waits on (`Decision.approve`, `edit`,
 * `reject`; untrusted, checked by `Decision.validate`).
 *
 * @since 0.1.0
 * @category models
 */
export type ResumeOptions<C = unknown> = Omit<AgentLoop.RunOptions<C>, "decisions"> & {
  readonly decisions?: ReadonlyArray<Decision.Decision> | undefined
}

/**
 * The options argument of a resume: optional when the agent reads no per-run context,
 * required with its `context` when it does (the context is never stored).
 *
 * @since 0.1.0
 * @category models
 */
export type ResumeArguments<C> = unknown extends C ? [options?: ResumeOptions<C>]
  : [options: ResumeOptions<C> & { readonly context: C }]

/**
 * The options of a continuation (`agent.continue`): a resume's options without
 * `decisions` (`context`, `signal`, `sink`...), and an idempotency `key`.
 *
 * @since 0.1.0
 * @category models
 */
export type ContinueOptions<C = unknown> = Omit<ResumeOptions<C>, "decisions"> & {
  /**
   * Names this continuation (the chat message's id, a request id; 1 to 256
   * characters). A continue whose key the run already took is a repeat: it appends
   * nothing, and gives the run's current state (or, while the run is still running,
   * goes on with it as a resume). Without a key every continue is a new turn.
   */
  readonly key?: string | undefined
}

/**
 * The options argument of a continuation: optional when the agent reads no per-run
 * context, required with its `context` when it does (the context is never stored).
 *
 * @since 0.1.0
 * @category models
 */
export type ContinueArguments<C> = unknown extends C ? [options?: ContinueOptions<C>]
  : [options: ContinueOptions<C> & { readonly context: C }]

/**
 * What a conversation goes on with: the user's text, or a user message as core has it.
 *
 * @since 0.1.0
 * @category models
 */
export type ContinueMessage = string | Message.UserMessage

/**
 * A stored run that may not go on now (`running`, `suspended` or `pending`).
 *
 * @since 0.1.0
 * @category errors
 */
export const ContinuationRefused = Continuation.ContinuationRefused

/**
 * @since 0.1.0
 * @category errors
 */
export type ContinuationRefused = Continuation.ContinuationRefused

/**
 * A message or key `agent.continue` cannot take (`path` names the part).
 *
 * @since 0.1.0
 * @category errors
 */
export const ContinuationInvalid = Continuation.ContinuationInvalid

/**
 * @since 0.1.0
 * @category errors
 */
export type ContinuationInvalid = Continuation.ContinuationInvalid

/**
 * A new run's state that counts `key` as a turn it already took, so a later `continue`
 * with the same key is a repeat: a chat's first message starts the run keyed by the
 * message's id, and the same first message sent again appends nothing. Fails with
 * `ContinuationInvalid` (`key`) for a key that is not 1 to 256 characters.
 *
 * @since 0.1.0
 * @category constructors
 */
export const startKeyed = (state: AgentState, key: string): Result.Result<AgentState, ContinuationInvalid> =>
  Result.map(Continuation.check({ role: "user", content: "" }, key), () => Continuation.withKey(state, key))

/**
 * `agent.continue` and `agent.continueEffect`: the next turn of a stored run's
 * conversation. The run is loaded as a resume loads it; only a completed, stopped or
 * failed run goes on (a `running`, `suspended` or `pending` one is
 * `ContinuationRefused`, naming its status, before anything is written). The user
 * message is appended, the run runs again, its steps and usage go on from the stored
 * ones, and it is durable and leased as a resume is (the same `CheckpointConflict` or
 * `RunLeased` when another process got there first).
 *
 * @since 0.1.0
 * @category models
 */
export interface Continue<C, A> {
  (run: string | AgentState, message: ContinueMessage, ...options: ContinueArguments<C>): A
}

/**
 * `agent.resume` and `agent.resumeEffect`: go on with a stored run where its last
 * checkpoint left it. A finished run is given back as it is, not run again. A
 * suspended run goes on with `decisions`; with decisions for only some of its calls it
 * runs those and stays suspended on the rest; with none it is given back as it is.
 *
 * Needs a capability that loads runs by id (`UseCheckpoints` of `@hookline/store`);
 * fails with the loader's typed error, or with the store's `CheckpointConflict` when
 * another process resumed the same run and committed first. The decisions are
 * untrusted: anything but a decision, a decision for a call the run does not wait on,
 * two for one call, or a decision different from the one already kept for a decided
 * call is a `DecisionInvalid`, before anything runs or is written. A decision equal to
 * the one kept for its call (same kind, same edited arguments or message) is a repeat:
 * a no-op, and the resume gives the run's current outcome.
 *
 * @since 0.1.0
 * @category models
 */
export interface Resume<C, A> {
  (run: string | AgentState, ...options: ResumeArguments<C>): A
  /**
   * @deprecated Give the decisions in the options: `resume(run, { decisions, context })`.
   * The positional form is kept for one release.
   */
  (run: string | AgentState, decisions: ReadonlyArray<Decision.Decision> | undefined, ...options: RunArguments<C>): A
}

/**
 * An agent whose hooks and tools read a per-run context of type `C`
 * (`agent.run(input, { context })`); the builder infers `C` from them.
 *
 * @since 0.1.0
 * @category models
 */
export interface Agent<C = unknown> {
  readonly _tag: "Agent"
  readonly loop: AgentLoop.AgentLoop<never, C>
  readonly driver: DriverShape | undefined
  /** Opened for each run, closed when it ends. */
  readonly resources: ReadonlyArray<Resource.Resource>
  /** Resolves with the final state whatever happened; rejects only for a missing driver. */
  readonly run: (input: AgentLoop.Input, ...options: RunArguments<C>) => Promise<AgentState>
  /** Like `run`, but rejects with a `HooklineError` carrying the error that ended a failed run. */
  readonly runOrThrow: (input: AgentLoop.Input, ...options: RunArguments<C>) => Promise<AgentState>
  /** The run's events; breaking out of the loop aborts the run. */
  readonly stream: (input: AgentLoop.Input, ...options: RunArguments<C>) => AsyncIterable<AgentEvent>
  /** The state after each step, then the final state. */
  readonly iterate: (input: AgentLoop.Input, ...options: RunArguments<C>) => AsyncIterable<AgentState>
  /** The Effect form of `run`, with this agent's driver provided. */
  readonly runEffect: (input: AgentLoop.Input, ...options: RunArguments<C>) => Effect.Effect<AgentState>
  /**
   * Goes on with a stored run (by id, or as a state) where its last checkpoint left it:
   * `agent.resume(runId, { decisions, context, signal })`. See `Resume`.
   */
  readonly resume: Resume<C, Promise<AgentState>>
  /** The Effect form of `resume`. */
  readonly resumeEffect: Resume<C, Effect.Effect<AgentState, ResumeError>>
  /**
   * A resume whose events stream as a live `stream`'s do, from the resume point on: the
   * first event is `RunStarted` with the loaded state. A load or decision error (the one
   * `resume` rejects with) rejects the first `next()`; breaking out aborts the run. A
   * resume with nothing to do (a finished run; a suspended run given no decision) yields
   * one `RunEnded` with the run's current state.
   */
  readonly resumeStream: (run: string | AgentState, ...options: ResumeArguments<C>) => AsyncIterable<AgentEvent>
  /**
   * The next turn of a stored run's conversation:
   * `agent.continue(runId, "and in euros?", { context, key })`. See `Continue`.
   */
  readonly continue: Continue<C, Promise<AgentState>>
  /** The Effect form of `continue`: fails with the loader's typed error, `ContinuationRefused` or `ContinuationInvalid`. */
  readonly continueEffect: Continue<C, Effect.Effect<AgentState, ResumeError>>
  /**
   * A continuation whose events stream as a live `stream`'s do: the first event is
   * `RunStarted` with the loaded state and the new message. A load, refusal or
   * invalid-message error rejects the first `next()`; breaking out aborts the run. A
   * repeat of a continuation the run already took yields one `RunEnded` with its state.
   */
  readonly continueStream: (run: string | AgentState, message: ContinueMessage, ...options: ContinueArguments<C>) => AsyncIterable<AgentEvent>
}

/**
 * What a loader fails with: a tagged error (a store's `RunNotFound`, `DecodeFailed`...).
 *
 * @since 0.1.0
 * @category models
 */
export interface ResumeError {
  readonly _tag: string
  readonly message: string
}

/**
 * Loads the latest state of a stored run. The agent knows no store: a capability
 * gives it this function. A continuation passes `derive`, the next turn made from the
 * loaded state: the loader runs it and gives back its result, which the store then
 * treats as the loaded run (a loader that ignores it works too: the agent derives).
 *
 * @since 0.1.0
 * @category models
 */
export type Loader = (runId: string, derive?: Derive) => Effect.Effect<AgentState, ResumeError>

/**
 * The state a run goes on from, made from the state a loader read (a continuation's
 * next turn), or the reason it may not go on.
 *
 * @since 0.1.0
 * @category models
 */
export type Derive = (loaded: AgentState) => Effect.Effect<AgentState, ResumeError>

/**
 * Looks at the final state of a run `resume` started, and gives it back or fails the
 * resume with a typed error (a store's `CheckpointConflict`: another process resumed
 * the same run and committed first, so this run's state was never stored).
 *
 * @since 0.1.0
 * @category models
 */
export type Settle = (state: AgentState) => Effect.Effect<AgentState, ResumeError>

const finished = (state: AgentState): boolean =>
  state.execution.status === "completed" || state.execution.status === "stopped" || state.execution.status === "failed"

const missingDriver = (): AgentError.HooklineError =>
  new AgentError.HooklineError(AgentError.invalidConfiguration("driver", "the agent has no driver: add UseDriver(driver)"))

/**
 * The error that ended a failed run, if it failed.
 *
 * @since 0.1.0
 * @category getters
 */
export const failure: (state: AgentState) => AgentError.AgentError | undefined = Conclude.failureOf

// A fiber's outcome as `Effect.runPromise` gives it (a failure rejects with the squashed
// cause), with one Promise and one observer instead of its two Promises.
const settledPromise = <A, E>(fiber: Fiber.Fiber<A, E>): Promise<A> =>
  new Promise<A>((resolve, reject) => {
    fiber.addObserver((exit) => (exit._tag === "Success" ? resolve(exit.value) : reject(Cause.squash(exit.cause))))
  })

const pushEvent = (event: AgentEvent, push: (event: AgentEvent) => void): void => push(event)
// The state after each step, then the final state.
const pushState = (event: AgentEvent, push: (state: AgentState) => void): void => {
  if (event._tag === "StepEnded" || event._tag === "RunEnded") push(event.state)
}

// Resolves when the signal aborts (at once if it has).
const abortion = (signal: AbortSignal): Effect.Effect<void> =>
  Effect.callback<void>((resume) => {
    if (signal.aborted) return resume(Effect.void)
    const onAbort = () => resume(Effect.void)
    signal.addEventListener("abort", onAbort, { once: true })
    return Effect.sync(() => signal.removeEventListener("abort", onAbort))
  })

// Opens the resources in order (each closed when the run's scope closes, in reverse),
// and gives the loop for this run: the agent's tools, then theirs. A resource that
// cannot be opened is a defect: no run started, so there is no state to resolve with.
// An abort while they open (an MCP handshake) interrupts the opening: the run starts
// already aborted and stops at once (AfterExecution fires, no model call).
const opened = (
  loop: AgentLoop.AgentLoop,
  resources: ReadonlyArray<Resource.Resource>,
  signal: AbortSignal | undefined,
): Effect.Effect<AgentLoop.AgentLoop, never, Scope.Scope> =>
  signal === undefined
    ? openAll(loop, resources)
    : Effect.raceFirst(openAll(loop, resources), Effect.as(abortion(signal), loop))

const openAll = (
  loop: AgentLoop.AgentLoop,
  resources: ReadonlyArray<Resource.Resource>,
): Effect.Effect<AgentLoop.AgentLoop, never, Scope.Scope> =>
  Effect.map(
    Effect.forEach(resources, (resource) => Effect.orDie(resource.open)),
    (all) =>
      AgentLoop.make({
        interceptor: loop.interceptor,
        tools: Tools.live(loop.tools, all.map((o) => o.tools)),
        toolConcurrency: loop.toolConcurrency,
        modelOptions: loop.modelOptions,
        textDeltas: loop.textDeltas,
        maxExecutionTime: loop.maxExecutionTime,
        maxSteps: loop.maxSteps,
        runContext: loop.runContext,

        hookListeners: loop.hookListeners,
        aroundRun: loop.aroundRun,
      }),
  )

// Where a resume starts (see `begin` in `make`).
type ResumeStart<C> =
  | { readonly run: false; readonly state: AgentState }
  | { readonly run: true; readonly state: AgentState; readonly options: AgentLoop.RunOptions<C> }

// The options of either form of `resume`: `(run, options)`, or the deprecated
// `(run, decisions, options)` (a second argument that is an array, or `undefined` before
// options). Anything else in the second place is taken as decisions, so that
// `Decision.validate` refuses it (fail-closed) rather than ignoring it.
const resumeOptions = <C>(args: ReadonlyArray<unknown>): ResumeOptions<C> => {
  const [second, third] = args
  if (second === undefined) return (third ?? {}) as ResumeOptions<C>
  if (typeof second === "object" && second !== null && !Array.isArray(second)) return second as ResumeOptions<C>
  return { ...(third as ResumeOptions<C> | undefined), decisions: second as ReadonlyArray<Decision.Decision> }
}

/**
 * An agent from a loop and a driver, and the resources opened for each of its runs.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <C = unknown>(
  loop: AgentLoop.AgentLoop<never, C>,
  driver: DriverShape | undefined,
  resources: ReadonlyArray<Resource.Resource> = [],
  loader?: Loader | undefined,
  settle?: Settle | undefined,
): Agent<C> => {
  const provide = <A, E>(effect: Effect.Effect<A, E, Driver>): Effect.Effect<A, E> => {
    if (driver === undefined) return Effect.die(missingDriver())
    return Effect.provideService(effect, Driver, driver)
  }
  // A run over the agent's loop, or over this run's loop once its resources are open.
  const withLoop = <A, R>(
    f: (loop: AgentLoop.AgentLoop<never, C>) => Effect.Effect<A, never, R>,
    signal: AbortSignal | undefined,
  ): Effect.Effect<A, never, R> =>
    resources.length === 0
      ? f(loop)
      : Effect.scoped(Effect.flatMap(opened(loop as AgentLoop.AgentLoop, resources, signal), (l) => f(l as AgentLoop.AgentLoop<never, C>)))
  const runEffect = (input: AgentLoop.Input, options?: AgentLoop.RunOptions<C>) =>
    provide(withLoop((l) => AgentLoop.run(l, input, options), options?.signal))
  // The Promise facade's runs start with the driver in their root context, built once
  // per agent (no context copied per run).
  const fork = driver === undefined ? undefined : Effect.runForkWith(Context.make(Driver, driver))
  const run = (input: AgentLoop.Input, options?: AgentLoop.RunOptions<C>) =>
    fork === undefined ? Promise.reject(missingDriver()) : settledPromise(fork(withLoop((l) => AgentLoop.run(l, input, options), options?.signal)))
  // The events as the run pushes them (not through Stream.toAsyncIterable: a fiber and
  // a Promise per pull, for a few events each).
  const observing = <A>(
    input: AgentLoop.Input,
    options: AgentLoop.RunOptions<C> | undefined,
    streaming: boolean,
    pick: (event: AgentEvent, push: (a: A) => void) => void,
    push: (a: A) => void,
    settled: Effect.Effect<void>,
  ): Effect.Effect<AgentState> =>
    Effect.provideService(
      withLoop(
        // A stream waits, before tools run, until the consumer took every event so far.
        (l) => AgentLoop.observe(l, input, options, { streaming, emit: (event) => pick(event, push), settled: streaming ? settled : undefined }),
        options?.signal,
      ),
      Driver,
      driver as DriverShape,
    )
  const observed = <A>(
    input: AgentLoop.Input,
    options: AgentLoop.RunOptions<C> | undefined,
    streaming: boolean,
    pick: (event: AgentEvent, push: (a: A) => void) => void,
  ): AsyncIterable<A> => {
    if (driver === undefined) throw missingDriver()
    return FiberIterable.make<A>((push, settled) => observing(input, options, streaming, pick, push, settled))
  }
  // A state the caller hands over, or a loader gives, is checked (and copied unless it
  // is frozen all through) before anything reads it (internal/inputState.ts).
  const entered = (run: AgentState, where: string): Effect.Effect<AgentState, ResumeError> => {
    const checked = InputState.check(run, where)
    return Result.isResult(checked) ? Effect.fail(checked.failure) : Effect.succeed(checked)
  }
  const load = (run: string | AgentState): Effect.Effect<AgentState, ResumeError> =>
    typeof run !== "string"
      ? entered(run, "input")
      : loader === undefined
      ? Effect.die(new AgentError.HooklineError(AgentError.invalidConfiguration("capabilities", "the agent cannot load runs: add UseCheckpoints(store)")))
      : Effect.flatMap(loader(run), (state) => entered(state, "loaded"))
  // Where a resume starts: the loaded state with the run's options and checked
  // decisions, or the state given back as it is (nothing to run).
  const begin = (run: string | AgentState, options: ResumeOptions<C>): Effect.Effect<ResumeStart<C>, ResumeError> =>
    Effect.flatMap(Effect.zip(load(run), Clock.currentTimeMillis), ([state, now]): Effect.Effect<ResumeStart<C>, ResumeError> => {
      const { decisions = [], ...rest } = options
      // Decoded first (a caller's decisions are untrusted): nothing runs on a malformed one.
      const validated = Decision.validate(state, decisions, now)
      if (Result.isFailure(validated)) return Effect.fail(validated.failure)
      // Calls whose approval expired are rejected by the library (run/expiry.ts).
      const decided = Expiry.withExpired(state, validated.success, now)
      const none = decided.size === 0
      // A suspended run with no new decisions waits, unless a resume that did not finish
      // (a crash) kept decisions in it: those are carried out.
      const kept = state.execution.pendingCalls?.some((p) => p.decision !== undefined) === true
      if (finished(state) || (state.execution.status === "suspended" && none && !kept)) return Effect.succeed({ run: false, state })
      const runOptions: AgentLoop.RunOptions<C> = none ? rest : { ...rest, decisions: decided }
      return Effect.succeed({ run: true, state, options: runOptions })
    })
  // Where a continuation starts: the next turn made from the loaded state (by the loader,
  // so a store takes it for the run it loaded), a repeat's run as it is, or a refusal.
  const beginTurn = (run: string | AgentState, message: unknown, options: ContinueOptions<C>): Effect.Effect<ResumeStart<C>, ResumeError> =>
    Effect.suspend(() => {
      // Only a run's options go on (a `decisions` a JavaScript caller slipped in is dropped).
      const { key, decisions: _decisions, ...rest } = options as ContinueOptions<C> & { readonly decisions?: unknown }
      const checked = Continuation.check(message, key)
      if (Result.isFailure(checked)) return Effect.fail(checked.failure)
      let planned: Continuation.Plan | undefined
      const derive: Derive = (loaded) => {
        const result = Continuation.plan(loaded, checked.success)
        if (Result.isFailure(result)) return Effect.fail(result.failure)
        planned = result.success
        return Effect.succeed(result.success.state)
      }
      const checkedDerive: Derive = (loaded) => Effect.flatMap(entered(loaded, typeof run === "string" ? "loaded" : "input"), derive)
      const loaded = typeof run !== "string" ? checkedDerive(run) : loader === undefined ? load(run) : loader(run, checkedDerive)
      return Effect.flatMap(loaded, (state): Effect.Effect<ResumeStart<C>, ResumeError> => {
        // A loader that did not derive: the agent does, on the state checked where it
        // enters (a loader that never called `derive` gave an unchecked one).
        if (planned === undefined) return Effect.flatMap(checkedDerive(state), () => Effect.succeed(startOf(planned as Continuation.Plan, rest)))
        return Effect.succeed(startOf(planned, rest))
      })
    })
  const startOf = (plan: Continuation.Plan, options: AgentLoop.RunOptions<C>): ResumeStart<C> =>
    plan._tag === "Done" ? { run: false, state: plan.state } : { run: true, state: plan.state, options }
  const settled = (ran: Effect.Effect<AgentState>): Effect.Effect<AgentState, ResumeError> =>
    settle === undefined ? ran : Effect.flatMap(ran, settle)
  // A resume or a continuation, from where it starts: run and settled, or given back.
  const ranFrom = (start: Effect.Effect<ResumeStart<C>, ResumeError>): Effect.Effect<AgentState, ResumeError> =>
    Effect.flatMap(start, (s) => s.run ? settled(runEffect(s.state, s.options)) : Effect.succeed(s.state))
  // Its events. A load or refusal error is the iteration's failure (its first `next()`
  // rejects with it); with nothing to run, one `RunEnded` with the run's state.
  const streamedFrom = (start: Effect.Effect<ResumeStart<C>, ResumeError>): AsyncIterable<AgentEvent> => {
    if (driver === undefined) throw missingDriver()
    return FiberIterable.make<AgentEvent>((push, ready) =>
      Effect.orDie(Effect.flatMap(start, (s) =>
        s.run
          ? settled(observing(s.state, s.options, true, pushEvent, push, ready))
          : Effect.sync(() => push({ _tag: "RunEnded", state: s.state }))))
    )
  }
  const promised = (ran: () => Effect.Effect<AgentState, ResumeError, Driver>): Promise<AgentState> =>
    fork === undefined ? Promise.reject(missingDriver()) : settledPromise(fork(ran()))
  const resumeEffect = (run: string | AgentState, ...args: ReadonlyArray<unknown>): Effect.Effect<AgentState, ResumeError> =>
    ranFrom(begin(run, resumeOptions<C>(args)))
  const resumeStream = (run: string | AgentState, ...args: ReadonlyArray<unknown>): AsyncIterable<AgentEvent> =>
    streamedFrom(begin(run, resumeOptions<C>(args)))
  const continueEffect = (run: string | AgentState, message: unknown, options?: ContinueOptions<C>): Effect.Effect<AgentState, ResumeError> =>
    ranFrom(beginTurn(run, message, options ?? {}))
  const continueStream = (run: string | AgentState, message: unknown, options?: ContinueOptions<C>): AsyncIterable<AgentEvent> =>
    streamedFrom(beginTurn(run, message, options ?? {}))
  return Object.freeze({
    _tag: "Agent",
    loop,
    driver,
    resources: Object.freeze([...resources]),
    run,
    runOrThrow: async (input: AgentLoop.Input, options?: AgentLoop.RunOptions<C>) => {
      const state = await run(input, options)
      const error = failure(state)
      if (error !== undefined) throw new AgentError.HooklineError(error)
      return state
    },
    stream: (input: AgentLoop.Input, options?: AgentLoop.RunOptions<C>) => observed<AgentEvent>(input, options, true, pushEvent),
    iterate: (input: AgentLoop.Input, options?: AgentLoop.RunOptions<C>) => observed<AgentState>(input, options, false, pushState),
    runEffect,
    resume: (run: string | AgentState, ...args: ReadonlyArray<unknown>) => promised(() => resumeEffect(run, ...args)),
    resumeEffect,
    resumeStream,
    continue: (run: string | AgentState, message: unknown, options?: ContinueOptions<C>) => promised(() => continueEffect(run, message, options)),
    continueEffect,
    continueStream,
  }) as Agent<C>
}
