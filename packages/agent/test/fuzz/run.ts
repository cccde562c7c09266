// Runs a scenario (scenario.ts) for real and records everything the properties need:
// every context every generated hook saw (checked for deep freezing at that moment),
// what each hook returned, every HookExecuted event, dispatch boundaries (when the
// stack is wrapped in a marking interceptor), model calls, tool runs, permission
// questions and the abort, in one log with one order; then the final state.
//
// Time is virtual: a clock whose sleeps wake in order of their deadline, one every few
// macrotasks (once the real work in flight, such as a tool awaiting a macrotask, has
// settled), so a scenario with "20 ms" of sleeps runs in microseconds and every clock
// reading is deterministic.
import { Cause, Clock, Duration, Effect, Exit, Stream } from "effect"
import * as t from "io-ts"
import {
  AgentError,
  AgentState,
  Codecs,
  AppendLog,
  Guards,
  Hook,
  HookContext,
  HookStack,
  InferenceResponse,
  Json,
  Message,
  Permission,
  Step,
  StopSignal,
  ToolCall,
  ToolExecution,
  Usage,
  WrapHook,
  type HookExecuted,
  type InferenceRequest,
  type Interceptor,
  type JsonValue,
} from "@hookline/core"
import { Agent, AgentLoop, Decision, Driver, Tool, type AgentEvent } from "@hookline/agent"
import { ScriptedDriver } from "@hookline/testing"
import type {
  AbortSpec,
  Behaviour,
  CallSpec,
  DecisionKind,
  ForgedDecision,
  ForgedSuspension,
  GarbageKind,
  HookSpec,
  NonFiniteCtor,
  Scenario,
  ToolName,
  Trigger,
  TurnSpec,
  Wait,
  WrapPoint,
  WrapSpec,
} from "./scenario.js"

// -- the recording ----------------------------------------------------------------

export type Entry =
  /** A generated hook was called with `ctx`; `unfrozen` is the first path that was not frozen then. */
  | { readonly _tag: "Enter"; readonly trigger: Trigger; readonly hook: string; readonly ctx: HookContext; readonly unfrozen: string | undefined }
  /** It returned `output` (anything: the dispatcher judges it). */
  | { readonly _tag: "Exit"; readonly trigger: Trigger; readonly hook: string; readonly input: HookContext; readonly output: unknown }
  /** It threw, failed or died. */
  | { readonly _tag: "Raise"; readonly trigger: Trigger; readonly hook: string }
  /** It was interrupted while it waited. */
  | { readonly _tag: "Interrupted"; readonly trigger: Trigger; readonly hook: string }
  | { readonly _tag: "Event"; readonly event: HookExecuted }
  /** Marking interceptor only: a dispatch begins with this committed context. */
  | { readonly _tag: "DispatchStart"; readonly trigger: Trigger; readonly ctx: HookContext }
  | {
    readonly _tag: "DispatchEnd"
    readonly trigger: Trigger
    readonly outcome: "success" | "failure" | "interrupted"
    readonly ctx: HookContext | undefined
    readonly unfrozen: string | undefined
  }
  /** A tool's execute finished (returned, threw or its Effect ended). */
  | { readonly _tag: "ToolDone"; readonly callId: string; readonly tool: string }
  /** A tool's execute ran; `unfrozen`: the first unfrozen path of the state it got. */
  | { readonly _tag: "ToolRun"; readonly callId: string; readonly tool: string; readonly args: unknown; readonly unfrozen: string | undefined }
  /** How the model call `index` ended: with an answer, failed, or interrupted (a timeout, an abort). */
  | { readonly _tag: "DriverEnd"; readonly index: number; readonly outcome: "answered" | "failed" | "interrupted" }
  /** A model call; `turn` is the script entry it consumed (undefined: the script was exhausted). */
  | {
    readonly _tag: "DriverCall"
    readonly index: number
    readonly turn: TurnSpec | undefined
    readonly request: InferenceRequest
    readonly unfrozen: string | undefined
  }
  | { readonly _tag: "Permission"; readonly hook: string; readonly callId: string; readonly phase: "asked" | "answered" | "interrupted" }
  | { readonly _tag: "Abort"; readonly via: AbortSpec["via"]; readonly timing: AbortSpec["timing"] }
  /** A wrap hook got its context (issue 16). */
  | { readonly _tag: "WrapEnter"; readonly point: WrapPoint; readonly hook: string; readonly ctx: HookContext; readonly unfrozen: string | undefined }
  /**
   * It called `next` with this context; `late`: a Promise hook called it after its abort
   * signal fired (it cannot be stopped), when the engine refuses it and the run may have
   * returned already, so when it comes depends on the promise jobs left.
   */
  | { readonly _tag: "WrapNext"; readonly point: WrapPoint; readonly hook: string; readonly ctx: HookContext; readonly late?: true }
  /** It ended: with a result (`answered`), the call's failure (`failed`), its own failure (`raised`), or interrupted. */
  | { readonly _tag: "WrapExit"; readonly point: WrapPoint; readonly hook: string; readonly outcome: "answered" | "failed" | "raised" | "interrupted" }

export interface Recording {
  readonly maxSteps: number
  readonly marked: boolean
  readonly mode: Scenario["mode"]
  /** The resolved order per trigger, from `HookStack.explain`. */
  readonly explain: Readonly<Partial<Record<Trigger, ReadonlyArray<string>>>>
  /** Each hook's error policy, from `HookStack.explain`. */
  readonly onError: Readonly<Record<string, "fail" | "skip">>
  readonly toolConcurrency: Scenario["toolConcurrency"]
  /** Whether a stream emits the text only after the AfterInference hooks (textDeltas). */
  readonly checkedText: boolean
  /** The order the scenario's registrations imply (priority, then registration), computed here independently. */
  readonly expectedOrder: Readonly<Partial<Record<Trigger, ReadonlyArray<string>>>>
  readonly log: ReadonlyArray<Entry>
  /** The state the run started from. */
  readonly input: AgentState
  /** What the run returned (run), RunEnded carried (stream) or iterate yielded last; undefined when interrupted. */
  readonly final: AgentState | undefined
  /** How the run's Effect ended. */
  readonly exit: "done" | "interrupted" | "defect" | "runaway" | "timeout"
  readonly defect?: string | undefined
  /** stream mode: every event the stream yielded. */
  readonly streamEvents: ReadonlyArray<AgentEvent> | undefined
  /** The first path of the final state that was not frozen. */
  readonly finalUnfrozen: string | undefined
  /** When each log entry was made (performance.now(), real ms), and when the run began and ended. */
  readonly times: ReadonlyArray<number>
  readonly startedAt: number
  readonly endedAt: number
  /** The same scenario run as a stream (scenario.twin, when the first run was not aborted). */
  readonly twin?: Recording | undefined
  /** Whether a hook of the scenario suspends runs (issue 13). */
  readonly suspends?: boolean | undefined
  /** How many run calls the twin made (with its resumes). */
  readonly twinCalls?: number | undefined
  /** Issue 13: the run ended suspended, and was resumed by the next run call. */
  readonly resumed?: Resumption | undefined
}

/** How a suspended run was resumed, and the run call that resumed it. */
export interface Resumption {
  readonly decisions: ReadonlyArray<Decision.Decision>
  readonly encoded: boolean
  /** An invalid list of decisions tried first: what it was, the reason expected and what validation said. */
  readonly probe:
    | {
      readonly kind: "unknown" | "repeated" | "decided" | "malformed" | "repeat"
      readonly decisions: ReadonlyArray<unknown>
      readonly got: string
      /** What the refused resume ran anyway: hooks, model calls, tools (issue 22: nothing). */
      readonly ran: ReadonlyArray<string>
      /** Whether the state it was given changed (issue 22: it must not). */
      readonly written: boolean
    }
    | undefined
  readonly recording: Recording
}

/** The recordings of a run and every run call that resumed it, in order. */
export const chainOf = (r: Recording): ReadonlyArray<Recording> => {
  const out: Array<Recording> = [r]
  for (let next = r.resumed; next !== undefined; next = next.recording.resumed) out.push(next.recording)
  return out
}

// -- deep freezing, with a cache (a deeply frozen object stays so) -------------------

const deeplyFrozen = new WeakSet<object>()

/** The first path reachable from `value` whose object is not frozen; undefined if all are. */
export const firstUnfrozen = (value: unknown, path = ""): string | undefined => {
  if (typeof value !== "object" || value === null || deeplyFrozen.has(value)) return undefined
  if (!Object.isFrozen(value)) return path === "" ? "(root)" : path
  if (AppendLog.isAppendLog(value)) {
    let i = 0
    for (const item of value) {
      const found = firstUnfrozen(item, `${path}[${i++}]`)
      if (found !== undefined) return found
    }
  } else {
    for (const key of Object.keys(value)) {
      const found = firstUnfrozen((value as Record<string, unknown>)[key], `${path}.${key}`)
      if (found !== undefined) return found
    }
  }
  deeplyFrozen.add(value)
  return undefined
}

// -- virtual time -------------------------------------------------------------------

const EPOCH = 1_700_000_000_000
/** How long after a run call ends the next one (a resume) starts: an approval the next day. */
const RESUME_GAP_MS = 86_400_000

/** How many macrotask turns the clock waits before it wakes the next sleeper. */
const settleTurns = 16
const afterTurns = (turns: number, f: () => void): void => {
  setImmediate(() => (turns <= 1 ? f() : afterTurns(turns - 1, f)))
}

/** A Clock whose sleeps complete in deadline order, one every few macrotasks, advancing virtual time. */
export class VirtualClock implements Clock.Clock {
  private now = EPOCH
  private seq = 0
  private readonly sleepers: Array<{ readonly at: number; readonly seq: number; readonly ms: number; readonly wake: () => void }> = []
  private deadlineWoken = false
  /**
   * `onDeadline` hears when the loop's deadline ends: the first sleep of `deadline` ms
   * made at the start of the run (the loop sleeps from the run's start).
   */
  constructor(private readonly deadline?: number | null, private readonly onDeadline?: () => void, private readonly start = EPOCH) {
    this.now = start
  }
  private scheduled = false
  currentTimeMillisUnsafe(): number {
    return this.now
  }
  readonly currentTimeMillis = Effect.sync(() => this.now)
  currentTimeNanosUnsafe(): bigint {
    return BigInt(this.now) * 1_000_000n
  }
  readonly currentTimeNanos = Effect.sync(() => this.currentTimeNanosUnsafe())
  monotonicTimeNanosUnsafe(): bigint {
    return this.currentTimeNanosUnsafe()
  }
  readonly monotonicTimeNanos = Effect.sync(() => this.currentTimeNanosUnsafe())
  sleep(duration: Duration.Duration): Effect.Effect<void> {
    const ms = Duration.toMillis(duration)
    if (ms <= 0) return Effect.yieldNow
    if (!Number.isFinite(ms)) return Effect.never
    return Effect.callback<void>((resume) => {
      const entry = { at: this.now + ms, seq: this.seq++, ms, wake: () => resume(Effect.void) }
      this.sleepers.push(entry)
      this.schedule()
      return Effect.sync(() => {
        const i = this.sleepers.indexOf(entry)
        if (i >= 0) this.sleepers.splice(i, 1)
      })
    })
  }
  private schedule(): void {
    if (this.scheduled) return
    this.scheduled = true
    // Time moves only once the work a real macrotask set going has settled: a tool that
    // awaits one (echo) resumes a few turns later (four, measured, in the plain run; fewer
    // when streamed), and a sleeper woken in between made its clock reading differ
    // between run and stream (seed -1524380559: echo next to a sleeping tool). Sixteen
    // leaves a margin.
    afterTurns(settleTurns, () => {
      this.scheduled = false
      if (this.sleepers.length === 0) return
      let best = 0
      for (let i = 1; i < this.sleepers.length; i++) {
        const a = this.sleepers[i]!
        const b = this.sleepers[best]!
        if (a.at < b.at || (a.at === b.at && a.seq < b.seq)) best = i
      }
      const [next] = this.sleepers.splice(best, 1)
      this.now = Math.max(this.now, next!.at)
      if (next!.ms === this.deadline && next!.at === this.start + next!.ms && !this.deadlineWoken) {
        this.deadlineWoken = true
        this.onDeadline?.()
      }
      next!.wake()
      if (this.sleepers.length > 0) this.schedule()
    })
  }
}

const macrotask = () => new Promise<void>((resolve) => setImmediate(resolve))

// -- the recorder ----------------------------------------------------------------------

/** Log entries past this mean the run does not end on its own. */
export const RUNAWAY = 5_000

class Recorder {
  readonly log: Array<Entry> = []
  readonly times: Array<number> = []
  private awaits = 0
  private fired = false
  ended = false
  runaway = false
  readonly run = new AbortController()
  readonly fiber = new AbortController()
  private onLeave: (() => void) | undefined
  leaveRequested = false

  constructor(private readonly abort: AbortSpec | undefined, private readonly signalPassed: boolean, private readonly mode: Scenario["mode"]) {}

  push(entry: Entry): void {
    if (this.ended) return
    this.log.push(entry)
    this.times.push(performance.now())
    if (this.log.length > RUNAWAY && !this.runaway) {
      this.runaway = true
      this.log.push({ _tag: "Abort", via: "interrupt", timing: "now" })
      this.fiber.abort()
    }
  }

  readonly sink = (event: HookExecuted): void => this.push({ _tag: "Event", event })

  /** An await point: the abort fires at the one the scenario names. */
  awaitPoint(): void {
    this.awaits++
    if (this.abort !== undefined && this.awaits === this.abort.at) this.fire(this.abort.via, this.abort.timing)
  }

  /** A tool that aborts the run itself, synchronously (`quit`). */
  quit(): void {
    this.fire(this.abort?.via ?? (this.signalPassed ? "signal" : this.mode === "run" ? "interrupt" : "leave"), "now")
  }

  /** Something that waits until the run is aborted: abort it (after it started waiting). */
  hang(): void {
    const via = this.abort?.via ?? (this.signalPassed ? "signal" : this.mode === "run" ? "interrupt" : "leave")
    this.fire(via, "soon")
  }

  private fire(via: AbortSpec["via"], timing: AbortSpec["timing"]): void {
    const go = () => {
      if (this.fired || this.ended) return
      this.fired = true
      this.push({ _tag: "Abort", via, timing })
      if (via === "signal") this.run.abort()
      else if (via === "interrupt") this.fiber.abort()
      else {
        this.leaveRequested = true
        this.onLeave?.()
      }
    }
    if (timing === "now") go()
    else setImmediate(go)
  }

  /** Completes when the consumer should leave the stream. */
  readonly leave: Effect.Effect<void> = Effect.callback<void>((resume) => {
    if (this.leaveRequested) return resume(Effect.void)
    this.onLeave = () => resume(Effect.void)
  })
}

// -- hooks ----------------------------------------------------------------------------

// Issue 22: a suspension with data a store cannot keep (the hook's return check refuses it).
const suspendWith = (ctx: HookContext, name: string, forged: ForgedSuspension | undefined): HookContext => {
  const call = ctx.toolCall as ToolCall
  switch (forged) {
    case undefined:
      return HookContext.suspend(ctx, `${name} asks`, call.arguments)
    case "cyclicPayload": {
      const payload: Record<string, unknown> = { asks: name }
      payload["self"] = payload
      return HookContext.suspend(ctx, `${name} asks`, payload as JsonValue)
    }
    case "nanPayload":
      return HookContext.suspend(ctx, `${name} asks`, { amount: Number.NaN })
    case "numberReason":
      return HookContext.suspend(ctx, 42 as unknown as string, call.arguments)
  }
}

// Issue 22: a public constructor given a non-finite number; what it built goes into the
// context (a refusal throws: the hook's failure, for its error policy).
const nonFinite = (ctx: HookContext, ctor: NonFiniteCtor, n: number): HookContext => {
  const addError = (error: AgentError.AgentError) => HookContext.withState(ctx, AgentState.addError(ctx.state, error))
  switch (ctor) {
    case "inferenceFailed":
      return addError(AgentError.inferenceFailed("non-finite", { status: n, retryAfterMs: n }))
    case "toolTimedOut":
      return addError(AgentError.toolTimedOut("c", "add", n))
    case "usage":
      return HookContext.withState(ctx, AgentState.withExecution(ctx.state, { ...ctx.state.execution, usage: Usage.make(n, 1) }))
    case "blocked":
      return ctx.toolCall === undefined || ctx.toolExecution !== undefined ? ctx : HookContext.withToolExecution(ctx, ToolExecution.blocked(ctx.toolCall, "non-finite", n))
    case "withStatus":
      return HookContext.withState(ctx, AgentState.withStatus(ctx.state, ctx.state.execution.status, n))
    case "toolExecution":
      return ctx.toolCall === undefined || ctx.toolExecution !== undefined ? ctx : HookContext.withToolExecution(ctx, ToolExecution.success(ctx.toolCall, "x", n))
  }
}

const steps = (ctx: HookContext) => ctx.state.execution.steps.length

/** The behaviour as a plain function (it may throw or return something that is not a context). */
const act = (spec: HookSpec, b: Behaviour, ctx: HookContext): unknown => {
  if (steps(ctx) < spec.fromStep) return ctx
  const name = spec.name
  switch (b._tag) {
    case "Pass":
    case "Permission":
      return ctx
    case "Suspend":
      // As Approval.make does (@hookline/middleware, which this package cannot import).
      return ctx.trigger === "BeforeToolUse" && ctx.toolCall !== undefined && (b.tools as ReadonlyArray<string>).includes(ctx.toolCall.name)
        ? suspendWith(ctx, name, b.forged)
        : ctx
    case "NonFinite":
      return nonFinite(ctx, b.ctor, Number(b.value))
    case "Annotate":
      switch (b.how) {
        case "context":
          return HookContext.withMetadata(ctx, { [name]: steps(ctx) })
        case "state":
          return HookContext.withState(ctx, AgentState.withMetadata(ctx.state, { [name]: steps(ctx) }))
        case "spread":
          return { ...ctx, metadata: { ...ctx.metadata, [name]: steps(ctx) } }
        case "immer":
          return HookContext.updateState(ctx, (draft) => {
            draft.metadata[name] = steps(ctx)
          })
      }
      return ctx
    case "Block":
      return HookContext.withToolExecutionBlocked(ctx, `blocked by ${name}`)
    case "Unblock":
      return ctx.toolCall === undefined ? ctx : { ...ctx, toolExecutionBlocked: false, toolExecution: undefined, metadata: { unblockedBy: name } }
    case "ShortCircuit":
      if (ctx.trigger === "BeforeInference" || ctx.trigger === "AfterInference") {
        const toolCalls = b.toolCall ? [ToolCall.make({ id: `sc_${steps(ctx)}_${name}`, name: "add", arguments: { a: 1, b: 2 } })] : []
        return HookContext.withResponse(ctx, InferenceResponse.make({ text: `cached by ${name}`, toolCalls, usage: Usage.make(1, 1), modelId: "cache" }))
      }
      return ctx.toolCall === undefined ? ctx : HookContext.withToolResult(ctx, `synthetic by ${name}`)
    case "Stop":
      return HookContext.withStopSignal(ctx, StopSignal.make(b.reason, `${name} stops`, name))
    case "Continue":
      return HookContext.requestContinuation(ctx, b.message)
    case "Handle":
      return HookContext.markErrorsHandled(ctx)
    case "HandBuilt":
      switch (b.how) {
        case "arrayMessages":
          return { ...ctx, state: { ...ctx.state, context: { ...ctx.state.context, messages: [...ctx.state.context.messages] } } }
        case "nullState":
          return { ...ctx, state: null }
        case "missingPart":
          return ctx.response === undefined
            ? { ...ctx, state: { ...ctx.state, execution: { ...ctx.state.execution, stopSignals: undefined } } }
            : { ...ctx, response: { ...ctx.response, toolCalls: undefined } }
        case "objectCreate":
          return Object.create(ctx)
        case "splitRound":
          return HookContext.withState(ctx, AgentState.appendMessage(ctx.state, Message.user(`${name} interjects`)))
        // Not plain data (branch plaindata): refused, so never under the hook's own name
        // (statePersists reads a key named after the hook as a change that must persist).
        case "getter":
          return { ...ctx, state: { ...ctx.state, metadata: Object.defineProperty({ ...ctx.state.metadata }, "forged", { get: () => name, enumerable: true }) } }
        case "proxyPart":
          return { ...ctx, state: { ...ctx.state, metadata: new Proxy(Object.freeze({ ...ctx.state.metadata, forged: name }), {}) } }
        case "hiddenPart":
          return { ...ctx, state: { ...ctx.state, execution: Object.defineProperty({ ...ctx.state.execution }, "forged", { value: name, enumerable: false }) } }
        case "oddArray":
          return {
            ...ctx,
            state: {
              ...ctx.state,
              execution: { ...ctx.state.execution, stopSignals: Object.setPrototypeOf([...ctx.state.execution.stopSignals], Object.create(Array.prototype) as object) as unknown },
            },
          }
        case "longPrompt":
          return { ...ctx, state: { ...ctx.state, context: { ...ctx.state.context, systemPrompt: longString() } } }
      }
      return ctx
    case "EditArguments":
      return ctx.trigger === "BeforeToolUse" ? HookContext.withToolArguments(ctx, { a: 10, b: 20 }) : ctx
    case "Window":
      return ctx.request === undefined || ctx.trigger !== "BeforeInference"
        ? ctx
        : HookContext.withRequest(ctx, { ...ctx.request, messages: ctx.request.messages.slice(-1) })
    case "Throw":
      switch (b.how) {
        case "throw":
        case "die":
          throw new Error(`${name} throws`)
        case "hostile":
          throw hostileError(name)
        case "proxy":
          throw hostileProxy()
        case "undefined":
          return undefined
        case "wrongTrigger":
          return { ...ctx, trigger: ctx.trigger === "OnStop" ? "OnError" : "OnStop" }
      }
  }
}

// Thrown values whose every read throws (issue 12, item 5).
const hostileError = (name: string): Error =>
  Object.defineProperty(new Error(`${name} throws`), "message", {
    get() {
      throw new Error("the message getter throws")
    },
  })
const hostileProxy = (): unknown => {
  const trap = () => {
    throw new Error("a proxy trap throws")
  }
  return new Proxy({}, { get: trap, has: trap, ownKeys: trap, getPrototypeOf: trap, getOwnPropertyDescriptor: trap })
}

const waitEffect = (w: Wait): Effect.Effect<void> => {
  switch (w._tag) {
    case "None":
    case "AtOnce":
      return Effect.void
    case "Yield":
      return Effect.yieldNow
    case "Sleep":
      return Effect.sleep(w.ms)
    case "Microtask":
      return Effect.promise(() => Promise.resolve())
    case "Macrotask":
      return Effect.promise(macrotask)
    case "Hang":
      return Effect.never
  }
}

const waitPromise = async (w: Wait): Promise<void> => {
  if (w._tag === "Microtask") await Promise.resolve()
  else if (w._tag === "Macrotask") await macrotask()
  else if (w._tag === "Hang") await new Promise<void>(() => {})
}

const asksPermission = (spec: HookSpec, ctx: HookContext): ctx is HookContext & { readonly toolCall: ToolCall } =>
  ctx.trigger === "BeforeToolUse" && ctx.toolCall !== undefined && !ctx.toolExecutionBlocked && steps(ctx) >= spec.fromStep

// A hand-written permission hook: waits, then allows, denies, fails or never answers.
const permissionHook = (spec: HookSpec, b: Extract<Behaviour, { _tag: "Permission" }>, rec: Recorder) =>
  (ctx: HookContext): Effect.Effect<HookContext, Error> => {
    if (!asksPermission(spec, ctx)) return Effect.succeed(ctx)
    const callId = ctx.toolCall.id
    const decision: Effect.Effect<HookContext, Error> = Effect.suspend(() => {
      rec.push({ _tag: "Permission", hook: spec.name, callId, phase: "asked" })
      switch (b.decision) {
        case "allow":
          return Effect.succeed(ctx)
        case "deny":
          return Effect.succeed(HookContext.withToolExecutionBlocked(ctx, `denied by ${spec.name}`))
        case "fail":
          return Effect.fail(new Error(`${spec.name} cannot decide`))
        case "hang":
          rec.hang()
          return Effect.never
      }
    }).pipe(
      Effect.onExit((exit) =>
        Effect.sync(() =>
          rec.push({ _tag: "Permission", hook: spec.name, callId, phase: Exit.hasInterrupts(exit) ? "interrupted" : "answered" })
        )
      ),
    )
    return b.timeoutMs === undefined
      ? decision
      : decision.pipe(
        Effect.timeoutOrElse({
          duration: b.timeoutMs,
          orElse: () => Effect.succeed(HookContext.withToolExecutionBlocked(ctx, `${spec.name} timed out`)),
        }),
      )
  }

// The same through Permission.make.
const permissionModule = (spec: HookSpec, b: Extract<Behaviour, { _tag: "Permission" }>, rec: Recorder) => {
  const hook = Permission.make({
    timeout: b.timeoutMs,
    decide: (ctx) => {
      const callId = ctx.toolCall?.id ?? "?"
      if (steps(ctx) < spec.fromStep) return true
      return Effect.suspend((): Effect.Effect<boolean, Error> => {
        rec.push({ _tag: "Permission", hook: spec.name, callId, phase: "asked" })
        switch (b.decision) {
          case "allow":
            return Effect.succeed(true)
          case "deny":
            return Effect.succeed(false)
          case "fail":
            return Effect.fail(new Error(`${spec.name} cannot decide`))
          case "hang":
            rec.hang()
            return Effect.never
        }
      }).pipe(
        Effect.onExit((exit) =>
          Effect.sync(() =>
            rec.push({ _tag: "Permission", hook: spec.name, callId, phase: Exit.hasInterrupts(exit) ? "interrupted" : "answered" })
          )
        ),
      )
    },
  })
  return (ctx: HookContext) => hook.run(ctx) as Effect.Effect<HookContext, unknown>
}

const otherTrigger = (ctx: HookContext): Trigger => (ctx.trigger === "OnStop" ? "OnError" : "OnStop")

/** The hook of a spec, wrapped so that it records what it saw and what it returned. */
export const buildHook = (spec: HookSpec, rec: Recorder): Hook.AnyHook<unknown, never> => {
  const b = spec.behaviour
  const enter = (ctx: HookContext) =>
    rec.push({ _tag: "Enter", trigger: ctx.trigger, hook: spec.name, ctx, unfrozen: firstUnfrozen(ctx) })
  const exit = (input: HookContext, output: unknown) => rec.push({ _tag: "Exit", trigger: input.trigger, hook: spec.name, input, output })
  const raise = (ctx: HookContext) => rec.push({ _tag: "Raise", trigger: ctx.trigger, hook: spec.name })

  if (spec.lift === "pure") {
    const pure = (ctx: HookContext): HookContext => {
      enter(ctx)
      let out: unknown
      try {
        out = act(spec, b, ctx)
      } catch (error) {
        raise(ctx)
        throw error
      }
      exit(ctx, out)
      return out as HookContext
    }
    return pure
  }

  if (spec.lift === "asyncPure") {
    // An async function registered as a pure hook: what it returns is a Promise.
    const asyncPure = (ctx: HookContext): HookContext => {
      enter(ctx)
      const out = (async () => act(spec, b, ctx))()
      exit(ctx, out)
      return out as unknown as HookContext
    }
    return asyncPure
  }

  if (spec.lift === "promise") {
    return Hook.promise(async (ctx, signal) => {
      enter(ctx)
      rec.awaitPoint()
      signal.addEventListener("abort", () => rec.push({ _tag: "Interrupted", trigger: ctx.trigger, hook: spec.name }), { once: true })
      await waitPromise(spec.wait)
      let out: unknown
      try {
        out = act(spec, b, ctx)
      } catch (error) {
        if (!signal.aborted) raise(ctx)
        throw error
      }
      if (!signal.aborted) exit(ctx, out)
      return out as HookContext
    })
  }

  const body = (ctx: HookContext): Effect.Effect<unknown, unknown> => {
    if (b._tag === "Permission") return b.impl === "hook" ? permissionHook(spec, b, rec)(ctx) : permissionModule(spec, b, rec)(ctx)
    if (b._tag === "Throw" && b.how === "die") return steps(ctx) < spec.fromStep ? Effect.succeed(ctx) : Effect.die(new Error(`${spec.name} dies`))
    if (b._tag === "Throw" && b.how === "wrongTrigger") {
      return Effect.succeed(steps(ctx) < spec.fromStep ? ctx : { ...ctx, trigger: otherTrigger(ctx) })
    }
    return Effect.try({ try: () => act(spec, b, ctx), catch: (error) => error })
  }
  // An Exit, made while the hook is called: the dispatcher reads it without the runtime.
  const atOnce = (ctx: HookContext): Exit.Exit<unknown, unknown> => {
    if (b._tag === "Throw" && b.how === "die") return steps(ctx) < spec.fromStep ? Exit.succeed(ctx) : Exit.die(new Error(`${spec.name} dies`))
    if (b._tag === "Throw" && b.how === "wrongTrigger") return Exit.succeed(steps(ctx) < spec.fromStep ? ctx : { ...ctx, trigger: otherTrigger(ctx) })
    try {
      return Exit.succeed(act(spec, b, ctx))
    } catch (error) {
      return Exit.fail(error)
    }
  }
  if (spec.wait._tag === "AtOnce" && b._tag !== "Permission") {
    return Hook.effect((ctx: HookContext) => {
      enter(ctx)
      rec.awaitPoint()
      const e = atOnce(ctx)
      if (Exit.isSuccess(e)) exit(ctx, e.value)
      else raise(ctx)
      return e as Exit.Exit<HookContext, unknown>
    })
  }
  return Hook.effect((ctx: HookContext) =>
    Effect.suspend(() => {
      enter(ctx)
      rec.awaitPoint()
      return Effect.andThen(waitEffect(spec.wait), body(ctx))
    }).pipe(
      Effect.onExit((e) =>
        Effect.sync(() => {
          if (Exit.isSuccess(e)) exit(ctx, e.value)
          else if (Cause.hasInterruptsOnly(e.cause)) rec.push({ _tag: "Interrupted", trigger: ctx.trigger, hook: spec.name })
          else raise(ctx)
        })
      ),
      Effect.map((out) => out as HookContext),
    )
  )
}

// -- wrap hooks (issue 16) ------------------------------------------------------------

const isInferenceFailed = (u: unknown): u is AgentError.InferenceFailed =>
  typeof u === "object" && u !== null && (u as { _tag?: unknown })._tag === "InferenceFailed"

const wrapAnswer = (spec: WrapSpec, ctx: HookContext, toolCall: boolean): InferenceResponse =>
  InferenceResponse.make({
    text: `answered by ${spec.name}`,
    toolCalls: toolCall ? [ToolCall.make({ id: `wa_${steps(ctx)}_${spec.name}`, name: "add", arguments: { a: 1, b: 2 } })] : [],
    usage: Usage.make(1, 1),
    modelId: "wrap",
  })

const edited = (point: WrapPoint, ctx: HookContext): HookContext =>
  point === "WrapToolUse"
    ? HookContext.withToolArguments(ctx, { a: 10, b: 20 })
    : ctx.request === undefined
    ? ctx
    : HookContext.withRequest(ctx, { ...ctx.request, messages: ctx.request.messages.slice(-1) })

/** The wrap hook of a spec, recording what it saw, each `next` it called and how it ended. */
export const buildWrap = (spec: WrapSpec, rec: Recorder): WrapHook.WrapHook<unknown> => {
  const b = spec.behaviour
  const point = spec.point
  const enter = (ctx: HookContext) => {
    rec.push({ _tag: "WrapEnter", point, hook: spec.name, ctx, unfrozen: firstUnfrozen(ctx) })
    rec.awaitPoint()
  }
  const exit = (outcome: "answered" | "failed" | "raised" | "interrupted") => rec.push({ _tag: "WrapExit", point, hook: spec.name, outcome })
  // A failing attempt that is an answer: a failed execution (a failed model call is a failure).
  const failed = (out: unknown) => point === "WrapToolUse" && (out as ToolExecution.ToolExecution).status === "failure"
  const own = () => new Error(`${spec.name} throws`)
  if (spec.lift === "promise") {
    // Promise forms: no backoff (a real wait would make the run depend on time).
    const body = async <A>(ctx: HookContext, next: (ctx: HookContext) => Promise<A>, signal: AbortSignal): Promise<A> => {
      enter(ctx)
      signal.addEventListener("abort", () => exit("interrupted"), { once: true })
      const call = (c: HookContext) => {
        rec.push(signal.aborted ? { _tag: "WrapNext", point, hook: spec.name, ctx: c, late: true } : { _tag: "WrapNext", point, hook: spec.name, ctx: c })
        return next(c)
      }
      try {
        let out: A
        switch (b._tag) {
          case "Retry": {
            let left = b.times
            while (true) {
              try {
                out = await call(ctx)
                if (left > 0 && point === "WrapToolUse" && failed(out)) {
                  left--
                  continue
                }
                break
              } catch (error) {
                // Only the call's failure is retried, never another hook's.
                if (left > 0 && isInferenceFailed(error)) {
                  left--
                  continue
                }
                throw error
              }
            }
            break
          }
          case "Answer":
            out = (point === "WrapInference" ? wrapAnswer(spec, ctx, b.toolCall) : toolAnswer(spec, ctx, b.otherCall === true)) as A
            break
          case "Edit":
            out = await call(edited(point, ctx))
            break
          case "Throw":
            throw own()
          case "NextThenThrow":
            await call(ctx)
            throw own()
          case "Timeout":
            // Never generated with the Promise form (scenario.ts): calls next once.
            out = await call(ctx)
            break
        }
        if (!signal.aborted) exit("answered")
        return out
      } catch (error) {
        if (!signal.aborted) exit(isInferenceFailed(error) ? "failed" : "raised")
        throw error
      }
    }
    return point === "WrapInference"
      ? WrapHook.inferencePromise((ctx, next, signal) => body(ctx, (c) => next(c), signal))
      : WrapHook.toolUsePromise((ctx, next, signal) => body(ctx, next, signal))
  }
  const track = <A, E>(effect: Effect.Effect<A, E>): Effect.Effect<A, E> =>
    Effect.onExit(effect, (e) =>
      Effect.sync(() =>
        exit(
          Exit.isSuccess(e)
            ? "answered"
            : Cause.hasInterruptsOnly(e.cause)
            ? "interrupted"
            : isInferenceFailed(e.cause.reasons.find(Cause.isFailReason)?.error)
            ? "failed"
            : "raised",
        )
      ))
  const body = <A, E>(
    ctx: HookContext,
    next: (ctx: HookContext) => Effect.Effect<A, E>,
    answer: () => A,
    timedOut: (ms: number) => Effect.Effect<A, E>,
  ): Effect.Effect<A, E | Error> => {
    const call = (c: HookContext) =>
      Effect.suspend(() => {
        rec.push({ _tag: "WrapNext", point, hook: spec.name, ctx: c })
        return next(c)
      })
    switch (b._tag) {
      case "Retry": {
        const backoff = b.backoffMs > 0 ? Effect.sleep(b.backoffMs) : Effect.void
        const attempt = (left: number): Effect.Effect<A, E> =>
          Effect.flatMap(Effect.result(call(ctx)), (r) => {
            const again = left > 0 && (r._tag === "Failure" ? isInferenceFailed(r.failure) : failed(r.success))
            if (again) return Effect.andThen(backoff, attempt(left - 1))
            return r._tag === "Success" ? Effect.succeed(r.success) : Effect.fail(r.failure)
          })
        return attempt(b.times)
      }
      case "Answer":
        return Effect.sync(answer)
      case "Edit":
        return call(edited(point, ctx))
      case "Throw":
        return Effect.fail(own())
      case "NextThenThrow":
        return Effect.andThen(call(ctx), Effect.fail(own()))
      case "Timeout":
        return Effect.timeoutOrElse(call(ctx), { duration: b.ms, orElse: () => timedOut(b.ms) })
    }
  }
  return point === "WrapInference"
    ? WrapHook.inference((ctx, next) =>
      track(Effect.suspend(() => {
        enter(ctx)
        return body(
          ctx,
          (c) => next(c),
          () => wrapAnswer(spec, ctx, b._tag === "Answer" && b.toolCall),
          (ms) => Effect.fail(AgentError.inferenceFailed(`${spec.name} timed out after ${ms} ms`, { status: 408, retryable: true })),
        )
      }))
    )
    : WrapHook.toolUse((ctx, next) =>
      track(Effect.suspend(() => {
        enter(ctx)
        return body(
          ctx,
          next,
          () => toolAnswer(spec, ctx, b._tag === "Answer" && b.otherCall === true),
          (ms) =>
            Effect.map(Clock.currentTimeMillis, (now) => {
              const call = ctx.toolCall as ToolCall
              return ToolExecution.failure(call, AgentError.toolTimedOut(call.id, call.name, ms), now - ms, now)
            }),
        )
      }))
    )
}

// A wrap hook's own answer to a tool call; with `otherCall`, for a call id of its own
// making (issue 22: the chain must refuse it, or the real call is left unanswered).
const toolAnswer = (spec: WrapSpec, ctx: HookContext, otherCall: boolean): ToolExecution => {
  const call = ctx.toolCall as ToolCall
  const answered = otherCall ? ToolCall.make({ id: `${call.id}-other`, name: call.name, arguments: call.arguments }) : call
  return ToolExecution.success(answered, `answered by ${spec.name}`, ctx.updatedAt)
}

// -- the stack -----------------------------------------------------------------------

// Guard stacks are values: one per set of limits.
const guardStacks = new Map<string, HookStack<never>>()
const guardsOf = (s: Scenario): HookStack<never> => {
  const key = JSON.stringify(s.guards)
  let stack = guardStacks.get(key)
  if (stack === undefined) {
    stack = Guards.useGuards({
      maxSteps: s.guards.maxSteps,
      maxTokens: s.guards.maxTokens,
      maxExecutionTime: s.guards.maxExecutionTime,
      finishReasons: s.guards.finishReasons,
    })
    guardStacks.set(key, stack)
  }
  return stack
}

const triggersOf = (spec: HookSpec): ReadonlyArray<Trigger> | undefined => (spec.triggers === "all" ? undefined : spec.triggers)

const allTriggers: ReadonlyArray<Trigger> = [
  "BeforeExecution",
  "BeforeStep",
  "BeforeInference",
  "AfterInference",
  "BeforeToolUse",
  "AfterToolUse",
  "AfterStep",
  "OnStop",
  "AfterExecution",
  "OnError",
]

/**
 * The scenario's stack: its hooks in registration order, with the guards' stack
 * concatenated at `guardsAt` (`HookStack.make` for each side, then `concat`).
 */
export const buildStack = (s: Scenario, rec: Recorder): HookStack<never> =>
  (s.wraps ?? []).reduce(
    (stack, spec) => HookStack.withWrap(stack, buildWrap(spec, rec), { priority: spec.priority, name: spec.name, onError: spec.onError }),
    hookStack(s, rec),
  )

const hookStack = (s: Scenario, rec: Recorder): HookStack<never> => {
  const side = (specs: ReadonlyArray<HookSpec>, offset: number) =>
    HookStack.make(
      ...specs.map((spec, i) =>
        HookStack.registration(buildHook(spec, rec), {
          triggers: triggersOf(spec) ?? allTriggers,
          priority: spec.priority,
          name: spec.name,
          onError: spec.onError,
        }, offset + i) as HookStack.Registration<never>
      ),
    )
  return HookStack.concat(HookStack.concat(side(s.hooks.slice(0, s.guardsAt), 0), guardsOf(s)), side(s.hooks.slice(s.guardsAt), s.guardsAt))
}

/** The order the registrations imply, by the design's rule: priority descending, then registration. */
export const expectedOrder = (s: Scenario): Partial<Record<Trigger, ReadonlyArray<string>>> => {
  const g = s.guards
  type Reg = { readonly name: string; readonly triggers: ReadonlyArray<Trigger>; readonly priority: number }
  const guards: Array<Reg> = []
  if (g.maxSteps !== null) guards.push({ name: Guards.names.steps, triggers: ["BeforeStep"], priority: 200 })
  if (g.maxTokens !== null) guards.push({ name: Guards.names.tokens, triggers: ["BeforeStep"], priority: 200 })
  if (g.maxExecutionTime !== null) guards.push({ name: Guards.names.time, triggers: ["BeforeStep"], priority: 200 })
  if (g.finishReasons !== null && g.finishReasons.length > 0) guards.push({ name: Guards.names.finishReason, triggers: ["AfterStep"], priority: -200 })
  const hook = (h: HookSpec): Reg => ({ name: h.name, triggers: triggersOf(h) ?? allTriggers, priority: h.priority })
  const regs = [...s.hooks.slice(0, s.guardsAt).map(hook), ...guards, ...s.hooks.slice(s.guardsAt).map(hook)]
  const out: Partial<Record<Trigger, ReadonlyArray<string>>> = {}
  for (const trigger of allTriggers) {
    const list: Array<{ readonly reg: Reg; readonly i: number }> = []
    regs.forEach((reg, i) => {
      if (reg.triggers.includes(trigger)) list.push({ reg, i })
    })
    list.sort((a, b) => b.reg.priority - a.reg.priority || a.i - b.i)
    if (list.length > 0) out[trigger] = list.map((r) => r.reg.name)
  }
  // Wrap hooks: outermost first, by the same rule among themselves.
  for (const point of WrapHook.points) {
    const list = (s.wraps ?? []).map((w, i) => ({ w, i })).filter(({ w }) => w.point === point)
    list.sort((a, b) => b.w.priority - a.w.priority || a.i - b.i)
    if (list.length > 0) (out as Record<string, ReadonlyArray<string>>)[point] = list.map(({ w }) => w.name)
  }
  return out
}

/** Wraps the stack so that every dispatch is recorded with its committed input and its end. */
const marking = (stack: HookStack<never>, rec: Recorder): Interceptor<never> => ({
  interceptSync: (ctx, env) => {
    if (HookStack.isEffectful(stack, ctx.trigger)) return undefined
    rec.push({ _tag: "DispatchStart", trigger: ctx.trigger, ctx })
    try {
      const out = stack.interceptSync(ctx, env)
      rec.push({ _tag: "DispatchEnd", trigger: ctx.trigger, outcome: "success", ctx: out, unfrozen: firstUnfrozen(out) })
      return out
    } catch (error) {
      rec.push({ _tag: "DispatchEnd", trigger: ctx.trigger, outcome: "failure", ctx: undefined, unfrozen: undefined })
      throw error
    }
  },
  intercept: (ctx) =>
    Effect.suspend(() => {
      rec.push({ _tag: "DispatchStart", trigger: ctx.trigger, ctx })
      return stack.intercept(ctx)
    }).pipe(
      Effect.onExit((exit) =>
        Effect.sync(() =>
          rec.push({
            _tag: "DispatchEnd",
            trigger: ctx.trigger,
            outcome: Exit.isSuccess(exit) ? "success" : Cause.hasInterruptsOnly(exit.cause) ? "interrupted" : "failure",
            ctx: Exit.isSuccess(exit) ? exit.value : undefined,
            unfrozen: Exit.isSuccess(exit) ? firstUnfrozen(exit.value) : undefined,
          })
        )
      ),
    ),
})

// -- tools --------------------------------------------------------------------------

// The tools are made once (Tool.make derives a JSON Schema, which takes time); they
// record into the recorder of the scenario that is running. Scenarios run one at a
// time, so one slot is enough.
let active: Recorder | undefined
const recorder = (): Recorder => {
  if (active === undefined) throw new Error("a fuzz tool ran outside a scenario")
  return active
}
const ran = (ctx: Tool.ToolContext, args: unknown) => {
  const rec = recorder()
  rec.push({ _tag: "ToolRun", callId: ctx.toolCall.id, tool: ctx.toolCall.name, args, unfrozen: firstUnfrozen(ctx.state) })
  return rec
}
// Into the recorder of the scenario the tool ran in (a later scenario's, once it ended, ignores it).
const done = (rec: Recorder, ctx: Tool.ToolContext) => rec.push({ _tag: "ToolDone", callId: ctx.toolCall.id, tool: ctx.toolCall.name })

const tools = [
  Tool.make({
    name: "add",
    parameters: t.type({ a: t.number, b: t.number }),
    execute: (args, ctx) => {
      done(ran(ctx, args), ctx)
      return args.a + args.b
    },
  }),
  Tool.make({
    name: "echo",
    parameters: t.type({ text: t.string }),
    execute: async (args, ctx) => {
      const rec = ran(ctx, args)
      rec.awaitPoint()
      await macrotask()
      done(rec, ctx)
      return args.text
    },
  }),
  Tool.make({
    name: "sleepy",
    parameters: t.type({ ms: t.number }),
    execute: (args, ctx) =>
      Effect.suspend(() => {
        const rec = ran(ctx, args)
        rec.awaitPoint()
        return Effect.as(Effect.sleep(args.ms), "slept").pipe(Effect.tap(() => Effect.sync(() => done(rec, ctx))))
      }),
  }),
  Tool.make({
    name: "boom",
    parameters: t.type({}),
    execute: (args, ctx) => {
      done(ran(ctx, args), ctx)
      throw new Error("boom")
    },
  }),
  Tool.make({
    name: "stall",
    parameters: t.type({}),
    execute: (args, ctx) =>
      Effect.suspend(() => {
        const rec = ran(ctx, args)
        rec.awaitPoint()
        rec.hang()
        return Effect.never
      }),
  }),
  Tool.make({
    name: "slow",
    parameters: t.type({}),
    timeout: 10,
    execute: (args, ctx) =>
      Effect.suspend(() => {
        ran(ctx, args).awaitPoint()
        return Effect.as(Effect.sleep(50), "late")
      }),
  }),
  Tool.make({
    name: "quit",
    parameters: t.type({}),
    execute: (args, ctx) => {
      const rec = ran(ctx, args)
      rec.quit()
      done(rec, ctx)
      return "quitting"
    },
  }),
]

/** Tools whose run ends before the loop gets control back: once done, nothing can lose their result. */
export const synchronousTools: ReadonlySet<string> = new Set(["add", "boom", "quit"])

// -- the model ------------------------------------------------------------------------

const validArguments: Record<ToolName, JsonValue> = { add: { a: 2, b: 3 }, echo: { text: "hi" }, sleepy: { ms: 5 }, boom: {}, stall: {}, slow: {}, quit: {} }
const invalidArguments: Record<ToolName, JsonValue> = {
  add: { a: "two", b: 3 },
  echo: { text: 42 },
  sleepy: { ms: "soon" },
  boom: [],
  stall: [],
  slow: [],
  quit: [],
}

const deepArguments = (): JsonValue => {
  let value: JsonValue = 1
  for (let i = 0; i < 2_000; i++) value = { a: value }
  return value
}

const toCall = (c: CallSpec): ScriptedDriver.ScriptedToolCall => {
  switch (c._tag) {
    case "Valid":
      return { name: c.tool, arguments: validArguments[c.tool] }
    case "Malformed":
      return { name: c.tool, arguments: "{\"a\": 2," }
    case "Unknown":
      return { name: "no_such_tool", arguments: {} }
    case "Invalid":
      return { name: c.tool, arguments: invalidArguments[c.tool] }
    case "Deep":
      return { name: c.tool, arguments: deepArguments() }
  }
}

const toTurn = (turn: TurnSpec): ScriptedDriver.Turn => {
  switch (turn._tag) {
    case "Text":
      return ScriptedDriver.text(turn.text, {
        finishReason: turn.finishReason,
        usage: turn.usage,
        chunks: turn.chunked && turn.text !== "" ? turn.text.split(/(?<= )/) : undefined,
        reasoning: turn.reasoning,
        reasoningChunks: turn.chunked && turn.reasoning !== undefined ? turn.reasoning.split(/(?<= )/) : undefined,
      })
    case "ToolCalls":
      return ScriptedDriver.toolCalls(turn.calls.map(toCall), { text: turn.text, usage: turn.usage })
    case "Failure":
      return ScriptedDriver.failure("the model is down")
    case "Delay":
      return ScriptedDriver.delay(turn.ms, toTurn(turn.turn))
    case "Hang":
      return ScriptedDriver.hang()
    case "Stall":
    case "Garbage":
      // Placeholders: makeDriver answers these turns itself.
      return ScriptedDriver.text("placeholder")
  }
}

const good = InferenceResponse.make({ text: "ok", modelId: "garbage" })

const garbageResponse = (kind: GarbageKind): unknown => {
  const base = { text: "", toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, finishReason: "stop", modelId: "garbage", metadata: {} }
  switch (kind) {
    case "undefined":
      return undefined
    case "null":
    case "nullPart":
      return null
    case "nullCall":
      return { ...base, toolCalls: [null] }
    case "stringCalls":
      return { ...base, toolCalls: "abc" }
    case "emptyCall":
      return { ...base, toolCalls: [{}] }
    case "noToolCalls":
      return { ...base, toolCalls: undefined }
    case "numberText":
    case "stringPart":
      return { ...base, text: 42 }
    case "nanUsage":
      return { ...base, usage: NaN }
    case "bananaFinish":
      return { ...base, finishReason: "banana" }
    case "circularMetadata": {
      const metadata: Record<string, unknown> = {}
      metadata["self"] = metadata
      return { ...base, metadata }
    }
    case "otherText":
      return { ...base, text: 7 }
    case "numberReasoning":
    case "reasoningPart":
      return { ...base, reasoning: 42 }
    case "otherReasoning":
      return { ...base, reasoning: { text: "not a string" } }
    case "afterFinish":
      return good
    case "longText":
      return { ...base, text: longString() }
    case "longModelId":
      return { ...base, modelId: longString() }
  }
}

// One string past the bound; a rope (`repeat`), so no 32 MB is made.
const longString = (): string => "x".repeat(Json.maxStringLength + 1)

const garbageParts = (kind: GarbageKind): ReadonlyArray<unknown> => {
  switch (kind) {
    case "nullPart":
      return [null]
    case "stringPart":
      return ["ok"]
    case "otherText":
      return [{ _tag: "TextDelta", text: "other" }, { _tag: "Finish", response: good }]
    case "reasoningPart":
      return [{ _tag: "ReasoningDelta", text: 42 }, { _tag: "Finish", response: good }]
    case "otherReasoning":
      return [{ _tag: "ReasoningDelta", text: "other" }, { _tag: "Finish", response: good }]
    case "afterFinish":
      return [{ _tag: "TextDelta", text: "ok" }, { _tag: "Finish", response: good }, null, { _tag: "Finish", response: InferenceResponse.make({ text: "never" }) }]
    default:
      return [{ _tag: "Finish", response: garbageResponse(kind) }]
  }
}

/** The model of a run and of every run call that resumes it: its script goes on, into the recorder of the call that runs. */
interface Model {
  readonly driver: Driver.DriverShape
  rec: Recorder | undefined
  /** Where a run call's clock starts: EPOCH, then a day after the last call ended. */
  time: number
}

const modelOf = (script: ReadonlyArray<TurnSpec>): Model => {
  const model: { driver: Driver.DriverShape | undefined; rec: Recorder | undefined; time: number } = { driver: undefined, rec: undefined, time: EPOCH }
  model.driver = makeDriver(script, () => model.rec as Recorder)
  return model as Model
}

const makeDriver = (script: ReadonlyArray<TurnSpec>, recorder: () => Recorder): Driver.DriverShape => {
  const scripted = ScriptedDriver.make(script.map(toTurn))
  let calls = 0
  const begin = (request: InferenceRequest) => {
    const rec = recorder()
    const index = calls++
    const turn = script[index]
    rec.push({ _tag: "DriverCall", index, turn, request, unfrozen: firstUnfrozen(request) })
    rec.awaitPoint()
    if (turn?._tag === "Hang") rec.hang()
    return index
  }
  // How a call ended, for the properties (a timeout or an abort may cut it: issue 22).
  const end = (index: number, outcome: "answered" | "failed" | "interrupted") => recorder().push({ _tag: "DriverEnd", index, outcome })
  const outcomeOf = (exit: Exit.Exit<unknown, unknown>) =>
    Exit.isSuccess(exit) ? "answered" as const : Cause.hasInterruptsOnly(exit.cause) ? "interrupted" as const : "failed" as const
  // A garbage or stalling turn still uses up its placeholder in the script.
  const own = (turn: TurnSpec | undefined) => turn?._tag === "Garbage" || turn?._tag === "Stall" ? turn : undefined
  return {
    generate: (request, options) =>
      Effect.suspend(() => {
        const turn = own(script[calls])
        const index = begin(request)
        const answer = scripted.generate(request, options)
        const ended = <A, E>(effect: Effect.Effect<A, E>) => Effect.onExit(effect, (exit) => Effect.sync(() => end(index, outcomeOf(exit))))
        if (turn === undefined) return ended(answer)
        return ended(Effect.flatMap(answer, () => turn._tag === "Stall" ? Effect.never : Effect.succeed(garbageResponse(turn.kind) as InferenceResponse)))
      }),
    stream: (request, options) =>
      Stream.unwrap(Effect.sync(() => {
        const turn = own(script[calls])
        const index = begin(request)
        // A stream is read up to its Finish: ended there, it answered, whatever happens after.
        let finished = false
        const ended = (stream: Stream.Stream<Driver.StreamPart, AgentError.InferenceFailed>) =>
          stream.pipe(
            Stream.tap((part) => Effect.sync(() => void (finished ||= part?._tag === "Finish"))),
            Stream.onExit((exit) => Effect.sync(() => end(index, finished ? "answered" : outcomeOf(exit)))),
          )
        const parts = scripted.stream(request, options)
        if (turn === undefined) return ended(parts)
        return ended(Stream.unwrap(Effect.map(
          Stream.runDrain(parts),
          () => turn._tag === "Stall" ? Stream.never : Stream.fromIterable(garbageParts(turn.kind) as ReadonlyArray<Driver.StreamPart>),
        )))
      })),
  }
}

// -- running ----------------------------------------------------------------------------

const explainOf = (stack: HookStack<never>) =>
  Object.fromEntries(HookStack.explain(stack).map((e) => [e.trigger, e.hooks.map((h) => h.name)])) as Partial<
    Record<Trigger, ReadonlyArray<string>>
  >

/** Whether the scenario passes a signal to the run (always when the abort goes through it). */
export const passesSignal = (s: Scenario): boolean => s.abort === undefined ? s.hooks.length % 2 === 0 : s.abort.via === "signal"

/** Real milliseconds a scenario may take before it counts as not terminating. */
export const DEADLINE_MS = 5_000

const question = AgentState.make({ id: "fuzz", messages: [Message.user("What is 2+2?")] })

// A run that ended: two messages, one step, a stop signal and an error from before.
const finished = (() => {
  const response = InferenceResponse.make({ text: "4", usage: Usage.make(3, 1), modelId: "earlier" })
  let state = AgentState.make({ id: "fuzz", messages: [Message.user("What is 2+2?"), Message.assistant("4")] })
  state = AgentState.withStatus(state, "running", EPOCH - 1000)
  state = AgentState.appendStep(state, Step.make({ index: 0, startedAt: EPOCH - 1000, response, completedAt: EPOCH - 900 }))
  state = AgentState.withStopSignal(state, StopSignal.make("Completed", "the model answered without tool calls", "loop"))
  state = AgentState.addError(state, AgentError.inferenceFailed("an earlier failure"))
  return AgentState.withStatus(state, "completed", EPOCH - 900)
})()

const inputOf = (s: Scenario): AgentState => (s.input === "finished" ? finished : question)

/** Runs the scenario (and its twin, if it has one) and records it. Never rejects. */
export const runScenario = async (s: Scenario): Promise<Recording> => {
  const first = await runChain(s)
  const aborted = (r: Recording) => chainOf(r).some((c) => c.log.some((e) => e._tag === "Abort"))
  if (!s.twin || aborted(first)) return first
  const twin = await runChain({ ...s, mode: "stream", twin: false, abort: undefined })
  if (aborted(twin)) return first
  // Each run call is compared with its twin's.
  const pair = (r: Recording, t: Recording | undefined): Recording => ({
    ...r,
    twin: t,
    resumed: r.resumed === undefined ? undefined : { ...r.resumed, recording: pair(r.resumed.recording, t?.resumed?.recording) },
  })
  return { ...pair(first, twin), twinCalls: chainOf(twin).length }
}

/** Resumes at most this many times (each resume decides at least one call, so a run ends). */
export const MAX_RESUMES = 8

// What a JavaScript caller or a parsed HTTP body may send instead of a decision (issue 22).
const forgedDecision = (kind: ForgedDecision, id: string): unknown => {
  switch (kind) {
    case "unknownTag":
      return { _tag: "Deny", toolCallId: id }
    case "lowercaseTag":
      return { _tag: "approve", toolCallId: id }
    case "noTag":
      return { toolCallId: id }
    case "rejectWithoutMessage":
      return { _tag: "Reject", toolCallId: id }
    case "rejectNumberMessage":
      return { _tag: "Reject", toolCallId: id, message: 42 }
    case "editWithoutArguments":
      return { _tag: "Edit", toolCallId: id }
    case "editDeep": {
      let deep: JsonValue = 1
      for (let i = 0; i < 10_000; i++) deep = [deep]
      return { _tag: "Edit", toolCallId: id, arguments: { a: deep, b: 1 } }
    }
    case "editTooLarge":
      return { _tag: "Edit", toolCallId: id, arguments: { a: 1, b: 2, pad: Array.from({ length: 100_001 }, () => 0) } }
    case "editNaN":
      return { _tag: "Edit", toolCallId: id, arguments: { a: Number.NaN, b: 2 } }
    case "numberId":
      return { _tag: "Approve", toolCallId: 7 }
    case "null":
      return null
    case "string":
      return "Approve"
  }
}

// A probe goes through the public door, agent.resume, with the scenario's own hooks,
// model and tools: what it ran anyway (any hook, model call or tool) is recorded.
const probeResume = async (s: Scenario, model: Model, input: AgentState, decisions: ReadonlyArray<unknown>) => {
  const rec = new Recorder(undefined, false, s.mode)
  const before = Codecs.stringifyState(input)
  const loop = AgentLoop.make({ interceptor: buildStack(s, rec), tools, toolConcurrency: s.toolConcurrency })
  const agent = Agent.make(loop, model.driver)
  const previous = model.rec
  model.rec = rec
  active = rec
  const kill = new AbortController()
  const deadline = setTimeout(() => kill.abort(), DEADLINE_MS)
  const exit = await Effect.runPromiseExit(agent.resumeEffect(input, decisions as ReadonlyArray<Decision.Decision>), { signal: kill.signal })
  clearTimeout(deadline)
  rec.ended = true
  active = undefined
  model.rec = previous
  const error = Exit.isFailure(exit) ? exit.cause.reasons.find(Cause.isFailReason)?.error : undefined
  const got = Exit.isSuccess(exit)
    ? "accepted"
    : typeof error === "object" && error !== null && "_tag" in error
    ? `${String(error._tag)}:${String((error as { reason?: unknown }).reason)}`
    : `defect: ${Cause.pretty(exit.cause).slice(0, 200)}`
  const ran = rec.log.flatMap((e) =>
    e._tag === "Enter" ? [`hook ${e.hook} on ${e.trigger}`] : e._tag === "DriverCall" ? ["a model call"] : e._tag === "ToolRun" ? [`tool ${e.tool} for ${e.callId}`] : []
  )
  return { got, ran, written: Codecs.stringifyState(input) !== before }
}

const decisionOf = (kind: Exclude<DecisionKind, "leave">, id: string): Decision.Decision =>
  kind === "approve" ? Decision.approve(id) : kind === "edit" ? Decision.edit(id, { a: 10, b: 20 }) : Decision.reject(id, "rejected by the fuzzer")

// The `decided` probe repeats the last decision on odd resumes (a no-op), and sends a
// different one on even resumes (refused): the scenario's arbitrary stays as recorded.
const repeats = (n: number): boolean => n % 2 === 1

// A decision for the same call that differs from `d` (issue 26: refused as `decided`).
const otherDecision = (d: Decision.Decision): Decision.Decision =>
  d._tag === "Approve" ? Decision.reject(d.toolCallId, "changed my mind") : Decision.approve(d.toolCallId)

/** The run, then (issue 13) while it ends suspended, resumes with the scenario's decisions. */
const runChain = async (s: Scenario): Promise<Recording> => {
  // One model for the whole conversation: a resumed call gets the script's next turns (and new call ids).
  const model = modelOf(s.script)
  const calls: Array<Recording> = [await runOnce(s, model)]
  const resumptions: Array<Omit<Resumption, "recording">> = []
  const spec = s.resume ?? { plans: [], encode: false, probe: "none" as const }
  const decided: Array<Decision.Decision> = []
  for (let n = 0; n < MAX_RESUMES; n++) {
    const last = calls[calls.length - 1] as Recording
    const state = last.final
    const pending = state?.execution.pendingCalls ?? []
    if (state === undefined || state.execution.status !== "suspended" || pending.length === 0) break
    const plan = spec.plans[n] ?? ["approve"]
    const decisions = pending.flatMap((p, i) => {
      const kind = plan[i % plan.length] as DecisionKind
      return kind === "leave" ? [] : [decisionOf(kind, p.toolCall.id)]
    })
    if (decisions.length === 0) decisions.push(Decision.approve((pending[0] as AgentState.PendingCall).toolCall.id))
    const input = spec.encode ? Codecs.parseStateUnsafe(Codecs.stringifyState(state)) : state
    // A list the run cannot take: an unknown call, one call twice, a call decided before.
    const probeDecisions: ReadonlyArray<unknown> | undefined = spec.probe === "malformed"
      ? [forgedDecision(spec.forged ?? "unknownTag", (pending[0] as AgentState.PendingCall).toolCall.id)]
      : spec.probe === "unknown"
      ? [Decision.approve("call_that_never_was")]
      : spec.probe === "repeated"
      ? [decisions[0] as Decision.Decision, decisions[0] as Decision.Decision]
      : spec.probe === "decided" && decided.length > 0
      ? [repeats(n) ? decided[decided.length - 1] as Decision.Decision : otherDecision(decided[decided.length - 1] as Decision.Decision)]
      : undefined
    const kind = spec.probe === "decided" && repeats(n) ? "repeat" as const : spec.probe
    const probe = probeDecisions === undefined || kind === "none"
      ? undefined
      : { kind, decisions: probeDecisions, ...(await probeResume(s, model, input, probeDecisions)) }
    const valid = Decision.validate(input, decisions)
    if (valid._tag === "Failure") throw new Error(`the fuzzer made invalid decisions: ${valid.failure.message}`)
    decided.push(...decisions)
    resumptions.push({ decisions, encoded: spec.encode, probe })
    // Resumed calls are not aborted at an await point (hangs still abort them).
    calls.push(await runOnce({ ...s, abort: undefined, input: "question" }, model, input, valid.success))
  }
  let out: Recording | undefined
  for (let i = calls.length - 1; i >= 0; i--) {
    const call = calls[i] as Recording
    out = out === undefined ? call : { ...call, resumed: { ...(resumptions[i] as Omit<Resumption, "recording">), recording: out } }
  }
  return out as Recording
}

const runOnce = async (
  s: Scenario,
  model: Model,
  from?: AgentState,
  decisions?: ReadonlyMap<string, Decision.Decision>,
): Promise<Recording> => {
  const signalPassed = passesSignal(s)
  const rec = new Recorder(s.abort, signalPassed, s.mode)
  model.rec = rec
  const clock = new VirtualClock(s.guards.maxExecutionTime, () => rec.push({ _tag: "Abort", via: "timeLimit", timing: "now" }), model.time)
  const stack = buildStack(s, rec)
  const loop = AgentLoop.make({
    interceptor: s.interceptor === "marked" ? marking(stack, rec) : stack,
    tools,
    toolConcurrency: s.toolConcurrency,
    textDeltas: s.textDeltas,
    // The guards' time and steps limits are held by the loop too, as AgentBuilder sets them.
    maxExecutionTime: s.guards.maxExecutionTime,
    maxSteps: s.guards.maxSteps,
  })
  const input = from ?? inputOf(s)
  const options: AgentLoop.RunOptions = { signal: signalPassed ? rec.run.signal : undefined, sink: rec.sink, decisions, hookEvents: true }
  const streamEvents: Array<AgentEvent> = []
  const states: Array<AgentState> = []
  const leaving = <A>(stream: Stream.Stream<A, never, Driver.Driver>) => Stream.interruptWhen(stream, rec.leave)
  const program: Effect.Effect<AgentState | undefined, never, Driver.Driver> = s.mode === "run"
    ? AgentLoop.run(loop, input, options)
    : s.mode === "stream"
    ? Effect.map(
      Stream.runForEach(leaving(AgentLoop.stream(loop, input, options)), (e) => Effect.sync(() => void streamEvents.push(e))),
      () => {
        const last = streamEvents.at(-1)
        return last?._tag === "RunEnded" ? last.state : undefined
      },
    )
    : Effect.map(
      Stream.runForEach(leaving(AgentLoop.iterate(loop, input, options)), (state) => Effect.sync(() => void states.push(state))),
      () => undefined,
    )
  active = rec
  const startedAt = performance.now()
  const kill = new AbortController()
  const deadline = setTimeout(() => kill.abort(), DEADLINE_MS)
  const exit = await Effect.runPromiseExit(
    program.pipe(
      Effect.provideService(Driver.Driver, model.driver),
      // The loop's deadline is the run's first sleep: when it ends, the time limit cut the run.
      Effect.provideService(Clock.Clock, clock),
    ),
    { signal: AbortSignal.any([rec.fiber.signal, kill.signal]) },
  )
  clearTimeout(deadline)
  // The next run call (a resume) starts a day after this one ended: its time limit
  // counts from its own start (execution.runningSince), so it gets the whole budget.
  model.time = clock.currentTimeMillisUnsafe() + RESUME_GAP_MS
  const endedAt = performance.now()
  rec.ended = true
  active = undefined
  let final: AgentState | undefined
  let outcome: Recording["exit"] = "done"
  let defect: string | undefined
  if (Exit.isSuccess(exit)) {
    final = exit.value
    if (s.mode === "iterate") {
      // iterate yields the state after each step, then the final state; left early, no final state.
      final = rec.leaveRequested ? undefined : states.at(-1)
    }
  } else if (Cause.hasInterruptsOnly(exit.cause)) outcome = "interrupted"
  else {
    outcome = "defect"
    defect = Cause.pretty(exit.cause)
  }
  if (rec.runaway) outcome = "runaway"
  else if (kill.signal.aborted) outcome = "timeout"
  const explain = explainOf(stack)
  const onError: Record<string, "fail" | "skip"> = {}
  for (const e of HookStack.explain(stack)) for (const h of e.hooks) onError[h.name] = h.onError
  return {
    onError,
    toolConcurrency: s.toolConcurrency,
    // "auto" checks the text when something could rewrite it: an AfterInference hook, or an interceptor that is not a stack.
    checkedText: s.textDeltas === "checked" || (s.textDeltas === "auto" && (s.interceptor === "marked" || (explain.AfterInference?.length ?? 0) > 0)),
    maxSteps: s.guards.maxSteps,
    suspends: s.hooks.some((h) => h.behaviour._tag === "Suspend"),
    marked: s.interceptor === "marked",
    mode: s.mode,
    explain,
    expectedOrder: expectedOrder(s),
    log: rec.log,
    input,
    final,
    exit: outcome,
    defect,
    streamEvents: s.mode === "stream" ? streamEvents : undefined,
    finalUnfrozen: final === undefined ? undefined : firstUnfrozen(final),
    times: rec.times,
    startedAt,
    endedAt,
  }
}

/** The log as short lines, for failure reports. */
export const trace = (r: Recording, limit = 400): string => {
  const line = (e: Entry, i: number): string => {
    switch (e._tag) {
      case "Enter":
        return `${i} enter ${e.trigger} ${e.hook}${e.ctx.toolCall === undefined ? "" : ` [${e.ctx.toolCall.id} ${e.ctx.toolCall.name}]`} steps=${e.ctx.state.execution.steps.length} msgs=${e.ctx.state.context.messages.length} errors=${e.ctx.errors.length}`
      case "Exit":
        return `${i} exit ${e.trigger} ${e.hook}${e.output === e.input ? " (same)" : HookContext.isHookContext(e.output) ? ` (changed${e.output.toolExecutionBlocked ? ", blocked" : ""})` : " (not a context)"}`
      case "Raise":
      case "Interrupted":
        return `${i} ${e._tag.toLowerCase()} ${e.trigger} ${e.hook}`
      case "Event":
        return `${i} event ${e.event.trigger} ${e.event.hook} ${e.event.outcome}${e.event.error === undefined ? "" : `: ${e.event.error}`}`
      case "DispatchStart":
        return `${i} dispatch ${e.trigger} (status ${e.ctx.state.execution.status}, steps ${e.ctx.state.execution.steps.length})`
      case "DispatchEnd":
        return `${i} dispatch-end ${e.trigger} ${e.outcome}`
      case "ToolRun":
        return `${i} tool ${e.tool} ${e.callId}`
      case "ToolDone":
        return `${i} tool ${e.tool} ${e.callId} done`
      case "DriverCall":
        return `${i} model call #${e.index}: ${e.turn === undefined ? "(script exhausted)" : e.turn._tag}`
      case "DriverEnd":
        return `${i} model call #${e.index} ${e.outcome}`
      case "Permission":
        return `${i} permission ${e.hook} ${e.callId} ${e.phase}`
      case "Abort":
        return `${i} ABORT via ${e.via} (${e.timing})`
      case "WrapEnter":
        return `${i} wrap ${e.point} ${e.hook}${e.ctx.toolCall === undefined ? "" : ` [${e.ctx.toolCall.id} ${e.ctx.toolCall.name}]`}`
      case "WrapNext":
        return `${i} wrap ${e.point} ${e.hook} calls next${e.late === true ? " (after its abort)" : ""}`
      case "WrapExit":
        return `${i} wrap ${e.point} ${e.hook} ${e.outcome}`
    }
  }
  const lines = r.log.slice(0, limit).map(line)
  if (r.log.length > limit) lines.push(`… ${r.log.length - limit} more entries`)
  const final = r.final
  lines.push(
    `exit: ${r.exit}; final: ${
      final === undefined
        ? "none"
        : `${final.execution.status}, ${final.execution.steps.length} steps, ${final.context.messages.length} messages, signals [${
          final.execution.stopSignals.map((s) => `${s.reason}/${s.source}`).join(", ")
        }]`
    }`,
  )
  return lines.join("\n")
}
