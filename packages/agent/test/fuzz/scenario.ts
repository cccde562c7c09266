// Model-based fuzzing of the agent loop: a scenario is plain data that fast-check
// generates and shrinks. It says which hooks sit on which triggers and what they do,
// what the model answers call after call, which guards apply, how the tools of a step
// run, how the run is consumed (run, stream, iterate) and where it is aborted.
// run.ts turns a scenario into a real run and records it; properties.ts judges the
// recording.
import fc from "fast-check"
import { HookTrigger, type StopReason } from "@hookline/core"

export type Trigger = HookTrigger.HookTrigger

/**
 * How a hook is lifted: a plain function, `Hook.effect` or `Hook.promise`; `asyncPure`
 * is an async function registered as a pure hook, a mistake the dispatcher must report
 * as HookFailed without an unhandled rejection (issue 12, item 1).
 */
export type Lift = "pure" | "effect" | "promise" | "asyncPure"

/**
 * What an effectful hook awaits before it acts: nothing, `Effect.yieldNow`, a sleep
 * on the (virtual) Effect clock, a resolved promise, or a macrotask (`setImmediate`).
 * `AtOnce`: a `Hook.effect` that acts while it is called and returns an `Exit`
 * (`Effect.succeed`), which the dispatcher reads without the runtime.
 */
export type Wait =
  | { readonly _tag: "None" }
  | { readonly _tag: "AtOnce" }
  | { readonly _tag: "Yield" }
  | { readonly _tag: "Sleep"; readonly ms: number }
  | { readonly _tag: "Microtask" }
  | { readonly _tag: "Macrotask" }
  /** Never ends, and nothing aborts it: only the run's time limit does (issue 12, item 7). */
  | { readonly _tag: "Hang" }

/** What a hook does to the context it gets. */
export type Behaviour =
  | { readonly _tag: "Pass" }
  /** Writes its name into metadata: the context's (api), the state's (persist), by hand (spread) or with immer. */
  | { readonly _tag: "Annotate"; readonly how: "context" | "state" | "spread" | "immer" }
  /** BeforeToolUse: blocks the call. */
  | { readonly _tag: "Block" }
  /** Returns a context built by hand (unfrozen) with any block lifted: the dispatcher must restore it and freeze. */
  | { readonly _tag: "Unblock" }
  /** BeforeInference/AfterInference: sets a response (with or without a tool call); tool triggers: sets a result. */
  | { readonly _tag: "ShortCircuit"; readonly toolCall: boolean }
  | { readonly _tag: "Stop"; readonly reason: StopReason.StopReason }
  /** Asks the loop to go on (meant for OnStop), optionally with a new user message. */
  | { readonly _tag: "Continue"; readonly message: string | undefined }
  /**
   * Returns a hand-built context (issue 12, item 4): the history as a plain array, a null
   * state, a response or execution missing a part, `Object.create(ctx)`; or (`splitRound`)
   * a well-built context whose history has a user message appended, which splits a tool
   * round where a call still waits for its result (a tool hook; BeforeExecution,
   * OnStop and AfterExecution of a suspended run). The dispatcher must refuse it
   * (HookFailed for that hook) or take it normalised, never crash later.
   */
  | { readonly _tag: "HandBuilt"; readonly how: HandBuiltHow }
  /** OnError: marks the errors handled. */
  | { readonly _tag: "Handle" }
  /** BeforeToolUse: replaces the call's arguments (valid for `add`, invalid for the others). */
  | { readonly _tag: "EditArguments" }
  /** BeforeInference: sends only the last message (a sliding window; not persisted). */
  | { readonly _tag: "Window" }
  /**
   * Fails: a throw (or Effect.fail / die / a rejection), or a return that is not a context
   * of the trigger; `hostile` throws an error whose `message` getter throws, `proxy` a Proxy
   * whose every trap throws (issue 12, item 5).
   */
  | { readonly _tag: "Throw"; readonly how: "throw" | "die" | "undefined" | "wrongTrigger" | "hostile" | "proxy" }
  /**
   * BeforeToolUse: waits, then allows or denies the call; `hang` waits until the run is
   * aborted. `impl: "Permission"` uses `Permission.make` (with an optional timeout on
   * the virtual clock), `impl: "hook"` a hand-written effectful hook.
   */
  | {
    readonly _tag: "Permission"
    readonly impl: "hook" | "Permission"
    readonly decision: "allow" | "deny" | "hang" | "fail"
    readonly timeoutMs: number | undefined
  }
  /**
   * BeforeToolUse: suspends the run on every call of these tools for a person's decision
   * (what `Approval.make` of @hookline/middleware does: `HookContext.suspend`; issue 13).
   * `forged` (issue 22): suspends with data a store cannot keep, which the hook's return
   * check must refuse (its HookFailed, under its error policy).
   */
  | { readonly _tag: "Suspend"; readonly tools: ReadonlyArray<ToolName>; readonly forged?: ForgedSuspension | undefined }
  /**
   * Issue 22: gives a public constructor of core a non-finite number and puts what it
   * built in the context; a constructor refuses it (a throw: the hook's failure) or
   * normalises it (an error constructor), so the state always reads back.
   */
  | { readonly _tag: "NonFinite"; readonly ctor: NonFiniteCtor; readonly value: "NaN" | "Infinity" | "-Infinity" }

/**
 * How a hand-built return is built. Past `splitRound`, not plain data in what it changed
 * (branch plaindata, which `withOddReturns` deals): a getter in the state's metadata, a
 * Proxy there, a hidden property on the execution, a stop-signal array of another
 * prototype, a system prompt past `Json.maxStringLength`; each a HookFailed of the hook.
 */
export type HandBuiltHow =
  | "arrayMessages" | "nullState" | "missingPart" | "objectCreate" | "splitRound"
  | "getter" | "proxyPart" | "hiddenPart" | "oddArray" | "longPrompt"

/** The hand-built returns that are not plain data (branch plaindata). */
export const oddReturnKinds: ReadonlyArray<HandBuiltHow> = ["getter", "proxyPart", "hiddenPart", "oddArray", "longPrompt"]

/** Suspension data a hook may forge (issue 22). */
export type ForgedSuspension = "cyclicPayload" | "nanPayload" | "numberReason"

/** The public constructors the NonFinite behaviour calls (issue 22). */
export type NonFiniteCtor = "inferenceFailed" | "toolTimedOut" | "usage" | "blocked" | "withStatus" | "toolExecution"

export interface HookSpec {
  readonly name: string
  readonly triggers: ReadonlyArray<Trigger> | "all"
  readonly priority: number
  readonly onError: "fail" | "skip"
  readonly lift: Lift
  readonly wait: Wait
  readonly behaviour: Behaviour
  /** The behaviour applies once at least this many steps are recorded (waits happen regardless). */
  readonly fromStep: number
}

/** `quit` fires the run's abort from inside a synchronous tool and returns (issue 12, item 6). */
export type ToolName = "add" | "echo" | "sleepy" | "boom" | "stall" | "slow" | "quit"

export type CallSpec =
  | { readonly _tag: "Valid"; readonly tool: ToolName }
  /** Arguments that are not JSON (a driver passes the raw text on as a string). */
  | { readonly _tag: "Malformed"; readonly tool: ToolName }
  | { readonly _tag: "Unknown" }
  /** JSON arguments that violate the tool's schema. */
  | { readonly _tag: "Invalid"; readonly tool: ToolName }
  /** Arguments nested 2,000 levels deep: a ToolArgumentsInvalid for the model (issue 12, item 3). */
  | { readonly _tag: "Deep"; readonly tool: ToolName }

export interface Usage {
  readonly inputTokens: number
  readonly outputTokens: number
}

export type TurnSpec =
  | {
    readonly _tag: "Text"
    readonly text: string
    readonly chunked: boolean
    readonly finishReason: "stop" | "length"
    readonly usage: Usage
    /** The model's reasoning (issue 25), streamed before the text (chunked with it). */
    readonly reasoning?: string | undefined
  }
  | { readonly _tag: "ToolCalls"; readonly calls: ReadonlyArray<CallSpec>; readonly text: string; readonly usage: Usage }
  | { readonly _tag: "Failure" }
  | { readonly _tag: "Delay"; readonly ms: number; readonly turn: TurnSpec }
  /** Never answers: only an abort ends it (reaching it aborts the run). */
  | { readonly _tag: "Hang" }
  /** Never answers and nothing aborts it: only the run's time limit ends it (issue 12, item 7). */
  | { readonly _tag: "Stall" }
  /** The driver answers garbage (issue 12, item 2); every kind but `afterFinish` is an InferenceFailed. */
  | { readonly _tag: "Garbage"; readonly kind: GarbageKind }

/** What a garbage driver answers (generate: the response; stream: its parts). */
export type GarbageKind =
  | "undefined"
  | "null"
  | "nullCall"
  | "stringCalls"
  | "emptyCall"
  | "noToolCalls"
  | "numberText"
  | "nanUsage"
  | "bananaFinish"
  | "circularMetadata"
  | "nullPart"
  | "stringPart"
  | "otherText"
  /** Reasoning that is not a string (issue 25): in the response, in a ReasoningDelta part. */
  | "numberReasoning"
  | "reasoningPart"
  /** Reasoning deltas that are not the Finish's reasoning. */
  | "otherReasoning"
  /** A good answer, then parts after the Finish (null, a second Finish): those are never read. */
  | "afterFinish"
  /** A string past `Json.maxStringLength` (branch entrycheck): the text, the model id. */
  | "longText"
  | "longModelId"

export const garbageKinds: ReadonlyArray<GarbageKind> = [
  "undefined",
  "null",
  "nullCall",
  "stringCalls",
  "emptyCall",
  "noToolCalls",
  "numberText",
  "nanUsage",
  "bananaFinish",
  "circularMetadata",
  "nullPart",
  "stringPart",
  "otherText",
  "afterFinish",
]

/** The garbage of one string past the bound (branch entrycheck), which `withLongStrings` deals. */
export const longStringKinds: ReadonlyArray<GarbageKind> = ["longText", "longModelId"]

/** The garbage of a model's reasoning (issue 25), which `withReasoning` deals. */
export const reasoningGarbageKinds: ReadonlyArray<GarbageKind> = ["numberReasoning", "reasoningPart", "otherReasoning"]
export interface Guards {
  readonly maxSteps: number
  readonly maxTokens: number | null
  /** Virtual milliseconds. */
  readonly maxExecutionTime: number | null
  readonly finishReasons: ReadonlyArray<"length"> | null
}

/**
 * Where the run is aborted: at the `at`-th await point (an effectful hook, a model call,
 * an asynchronous tool, a scripted delay), through the run's `AbortSignal`, by
 * interrupting the run's fiber, or (stream, iterate) by the consumer leaving the
 * stream; `now` aborts inside that await point, `soon` on the next macrotask.
 * Reaching a hang aborts the run too (through the signal when no abort is given).
 */
export interface AbortSpec {
  readonly at: number
  /** `timeLimit` is never generated: the log records the loop's deadline that way. */
  readonly via: "signal" | "interrupt" | "leave" | "timeLimit"
  readonly timing: "now" | "soon"
}

/** Where a wrap hook sits: around each model call, or around each tool execution. */
export type WrapPoint = "WrapInference" | "WrapToolUse"

/** What a wrap hook does with `next` (issue 16). */
export type WrapBehaviour =
  /** Calls `next`; after a failing attempt (a failed model call, a failed execution) calls it again, up to `times` more, after `backoffMs` on the (virtual) Effect clock. */
  | { readonly _tag: "Retry"; readonly times: number; readonly backoffMs: number }
  /**
   * Never calls `next`: answers itself (a response, with a tool call or not; a successful
   * execution, for another call id with `otherCall`, which the chain must refuse).
   */
  | { readonly _tag: "Answer"; readonly toolCall: boolean; readonly otherCall?: boolean | undefined }
  /** Edits the context and calls `next` once: the request's last message only; the arguments `{ a: 10, b: 20 }`. */
  | { readonly _tag: "Edit" }
  /** Fails before calling `next` (its own failure, for its error policy). */
  | { readonly _tag: "Throw" }
  /** Calls `next`, then fails. */
  | { readonly _tag: "NextThenThrow" }
  /**
   * Interrupts `next` after `ms` on the (virtual) Effect clock, as the built-in timeouts do:
   * a model call then fails with a retryable 408, a tool run ends with a failed execution
   * (`ToolTimedOut`) (issue 22: the call it cut is still an attempt).
   */
  | { readonly _tag: "Timeout"; readonly ms: number }

export interface WrapSpec {
  readonly name: string
  readonly point: WrapPoint
  readonly priority: number
  readonly onError: "fail" | "skip"
  /** `WrapHook.inference`/`toolUse` (Effect), or their Promise forms. */
  readonly lift: "effect" | "promise"
  readonly behaviour: WrapBehaviour
}

/** A decision on one pending call; `leave` decides nothing (a partial resume). */
export type DecisionKind = "approve" | "edit" | "reject" | "leave"

/**
 * How a suspended run is resumed (issue 13): one plan per resume, its kinds applied in
 * turn to the pending calls (at least one is decided, so the run goes on); past the
 * last plan, every call is approved.
 */
export interface ResumeSpec {
  readonly plans: ReadonlyArray<ReadonlyArray<DecisionKind>>
  /** Encode the suspended state to JSON and decode it (Codecs) before resuming. */
  readonly encode: boolean
  /**
   * Before each resume, an invalid list of decisions given to `agent.resume`: it must be
   * a DecisionInvalid of this reason, before any hook, model call or tool runs, and with
   * the state unchanged. `malformed` (issue 22) sends the `forged` decision. `decided`
   * (issue 26), on alternate resumes: a decision different from the one a call was
   * decided with (refused), or the same one again, a repeat (a no-op: accepted, nothing
   * run, the state unchanged; the probe's kind is then `repeat`).
   */
  readonly probe: "none" | "unknown" | "repeated" | "decided" | "malformed"
  /** What the `malformed` probe sends (absent in scenarios recorded before). */
  readonly forged?: ForgedDecision | undefined
}

/**
 * Decisions as a JavaScript caller or a parsed HTTP body may send them (issue 22): an
 * unknown tag, a tag in the wrong case, a missing or ill-typed field, edited arguments
 * too deep or too large, or no decision object at all.
 */
export type ForgedDecision =
  | "unknownTag"
  | "lowercaseTag"
  | "noTag"
  | "rejectWithoutMessage"
  | "rejectNumberMessage"
  | "editWithoutArguments"
  | "editDeep"
  | "editTooLarge"
  | "editNaN"
  | "numberId"
  | "null"
  | "string"

export const forgedDecisions: ReadonlyArray<ForgedDecision> = [
  "unknownTag",
  "lowercaseTag",
  "noTag",
  "rejectWithoutMessage",
  "rejectNumberMessage",
  "editWithoutArguments",
  "editDeep",
  "editTooLarge",
  "editNaN",
  "numberId",
  "null",
  "string",
]

export interface Scenario {
  readonly hooks: ReadonlyArray<HookSpec>
  /** Wrap hooks, in registration order (issue 16; absent in scenarios recorded before). */
  readonly wraps?: ReadonlyArray<WrapSpec> | undefined
  /** Where the guards' stack is concatenated among the hooks (registration order). */
  readonly guardsAt: number
  readonly guards: Guards
  readonly script: ReadonlyArray<TurnSpec>
  readonly toolConcurrency: "sequential" | "concurrent"
  readonly mode: "run" | "stream" | "iterate"
  /** `marked` wraps the stack in an interceptor that records dispatch boundaries. */
  readonly interceptor: "stack" | "marked"
  /** When a stream emits the model's text (AgentLoop.make's `textDeltas`). */
  readonly textDeltas: "auto" | "live" | "checked"
  readonly abort: AbortSpec | undefined
  /** What the run starts from: a question, or a finished state (a new execution on the same conversation). */
  readonly input: "question" | "finished"
  /** Also run it as a stream (when nothing aborts it) and compare every context the hooks saw. */
  readonly twin: boolean
  /** How a run that ends suspended is resumed (absent in scenarios recorded before: approve all, no probe). */
  readonly resume?: ResumeSpec | undefined
}

// -- arbitraries ----------------------------------------------------------------

const triggers = HookTrigger.all

// Ties with the guards (200, -200) and with each other are the interesting cases.
const priority = fc.constantFrom(-300, -200, -1, 0, 0, 0, 1, 100, 200, 250)

const wait = (lift: Lift): fc.Arbitrary<Wait> =>
  lift === "pure" || lift === "asyncPure"
    ? fc.constant({ _tag: "None" } as const)
    : lift === "effect"
    ? fc.oneof(
      { weight: 3, arbitrary: fc.constant({ _tag: "None" } as const) },
      { weight: 3, arbitrary: fc.constant({ _tag: "Yield" } as const) },
      { weight: 3, arbitrary: fc.record({ _tag: fc.constant("Sleep" as const), ms: fc.constantFrom(1, 5, 20) }) },
      { weight: 1, arbitrary: fc.constant({ _tag: "Hang" } as const) },
    )
    : fc.oneof(
      { weight: 3, arbitrary: fc.constant({ _tag: "None" } as const) },
      { weight: 3, arbitrary: fc.constant({ _tag: "Microtask" } as const) },
      { weight: 3, arbitrary: fc.constant({ _tag: "Macrotask" } as const) },
      { weight: 1, arbitrary: fc.constant({ _tag: "Hang" } as const) },
    )

const stopReason = fc.constantFrom<StopReason.StopReason>("StopRequested", "FinishReasonReceived", "ErrorForbade", "TokenLimitReached")

const behaviour: fc.Arbitrary<Behaviour> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ _tag: "Pass" } as const) },
  { weight: 3, arbitrary: fc.record({ _tag: fc.constant("Annotate" as const), how: fc.constantFrom("context", "state", "spread", "immer") }) },
  { weight: 3, arbitrary: fc.constant({ _tag: "Block" } as const) },
  { weight: 1, arbitrary: fc.constant({ _tag: "Unblock" } as const) },
  { weight: 2, arbitrary: fc.record({ _tag: fc.constant("ShortCircuit" as const), toolCall: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ _tag: fc.constant("Stop" as const), reason: stopReason }) },
  {
    weight: 3,
    arbitrary: fc.record({ _tag: fc.constant("Continue" as const), message: fc.option(fc.constantFrom("go on", "and now?"), { nil: undefined }) }),
  },
  { weight: 3, arbitrary: fc.constant({ _tag: "Handle" } as const) },
  {
    weight: 2,
    arbitrary: fc.record({ _tag: fc.constant("HandBuilt" as const), how: fc.constantFrom("arrayMessages", "nullState", "missingPart", "objectCreate", "splitRound") }),
  },
  { weight: 1, arbitrary: fc.constant({ _tag: "EditArguments" } as const) },
  { weight: 1, arbitrary: fc.constant({ _tag: "Window" } as const) },
  { weight: 2, arbitrary: fc.record({ _tag: fc.constant("Throw" as const), how: fc.constantFrom("throw", "throw", "die", "undefined", "wrongTrigger", "hostile", "proxy") }) },
  {
    weight: 2,
    arbitrary: fc.record({
      _tag: fc.constant("Suspend" as const),
      tools: fc.subarray<ToolName>(["add", "echo", "sleepy", "boom", "slow"], { minLength: 1 }),
      forged: fc.constantFrom<ForgedSuspension | undefined>(undefined, undefined, undefined, "cyclicPayload", "nanPayload", "numberReason"),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      _tag: fc.constant("NonFinite" as const),
      ctor: fc.constantFrom<NonFiniteCtor>("inferenceFailed", "toolTimedOut", "usage", "blocked", "withStatus", "toolExecution"),
      value: fc.constantFrom("NaN" as const, "Infinity" as const, "-Infinity" as const),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      _tag: fc.constant("Permission" as const),
      impl: fc.constantFrom("hook", "Permission"),
      decision: fc.constantFrom("allow", "allow", "deny", "hang", "fail"),
      timeoutMs: fc.option(fc.constantFrom(3, 10, 50), { nil: undefined }),
    }),
  },
)

// The triggers where a behaviour means something; a hook lands there most of the time.
const natural: Record<Behaviour["_tag"], ReadonlyArray<Trigger>> = {
  Pass: triggers,
  Annotate: triggers,
  Block: ["BeforeToolUse"],
  Unblock: ["BeforeToolUse", "AfterToolUse"],
  ShortCircuit: ["BeforeInference", "AfterInference", "BeforeToolUse", "AfterToolUse"],
  Stop: ["BeforeExecution", "BeforeStep", "AfterInference", "BeforeToolUse", "AfterToolUse", "AfterStep"],
  Continue: ["OnStop"],
  Handle: ["OnError"],
  HandBuilt: triggers,
  EditArguments: ["BeforeToolUse"],
  Window: ["BeforeInference"],
  Throw: triggers,
  Permission: ["BeforeToolUse"],
  Suspend: ["BeforeToolUse"],
  NonFinite: ["BeforeStep", "BeforeToolUse", "AfterToolUse", "AfterStep", "OnError"],
}

const someOf = (list: ReadonlyArray<Trigger>) => fc.subarray([...list], { minLength: 1, maxLength: Math.min(3, list.length) })

const triggersFor = (b: Behaviour): fc.Arbitrary<ReadonlyArray<Trigger> | "all"> =>
  fc.oneof(
    { weight: 7, arbitrary: someOf(natural[b._tag]) },
    { weight: 2, arbitrary: someOf(triggers) },
    { weight: 1, arbitrary: fc.constant("all" as const) },
  )

const liftFor = (b: Behaviour): fc.Arbitrary<Lift> =>
  b._tag === "Permission" ? fc.constant("effect") : fc.constantFrom<Lift>("pure", "pure", "effect", "promise", "asyncPure")

const hookSpec = (index: number): fc.Arbitrary<HookSpec> =>
  behaviour.chain((b) =>
    fc.record({ triggers: triggersFor(b), lift: liftFor(b) }).chain(({ triggers, lift }) =>
      fc.record({
        name: fc.constant(`h${index}:${b._tag.toLowerCase()}`),
        triggers: fc.constant(triggers),
        priority,
        onError: fc.constantFrom<"fail" | "skip">("fail", "skip"),
        lift: fc.constant(lift),
        wait: wait(lift),
        behaviour: fc.constant(b),
        fromStep: fc.constantFrom(0, 0, 0, 1, 2),
      })
    )
  )

/**
 * An observer on every trigger (so every dispatch has a hook that records its input),
 * or on some and AfterExecution (so the loop skips the others when no hook is there).
 */
const observerSpec: fc.Arbitrary<HookSpec> = fc.record({
  name: fc.constant("fuzz:observer"),
  triggers: fc.oneof(
    { weight: 3, arbitrary: fc.constant("all" as const) },
    { weight: 1, arbitrary: fc.subarray([...triggers]).map((list) => [...new Set<Trigger>([...list, "AfterExecution"])]) },
  ),
  priority,
  onError: fc.constant("fail" as const),
  lift: fc.constantFrom<Lift>("pure", "pure", "effect"),
  wait: fc.constant({ _tag: "None" } as const),
  behaviour: fc.constant({ _tag: "Pass" } as const),
  fromStep: fc.constant(0),
})

const hooks: fc.Arbitrary<ReadonlyArray<HookSpec>> = fc.integer({ min: 0, max: 6 }).chain((n) =>
  fc.tuple(observerSpec, ...Array.from({ length: n }, (_, i) => hookSpec(i + 1))).chain((list) =>
    // The observer's registration position is random too.
    fc.integer({ min: 0, max: list.length - 1 }).map((at) => {
      const [observer, ...rest] = list
      return [...rest.slice(0, at), observer as HookSpec, ...rest.slice(at)]
    })
  )
)

const wrapBehaviour: fc.Arbitrary<WrapBehaviour> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ _tag: fc.constant("Retry" as const), times: fc.integer({ min: 1, max: 3 }), backoffMs: fc.constantFrom(0, 0, 5) }) },
  // `otherCall` (issue 22): a WrapToolUse answer for another call id, which must be refused.
  { weight: 2, arbitrary: fc.record({ _tag: fc.constant("Answer" as const), toolCall: fc.boolean(), otherCall: fc.constantFrom(false, false, true) }) },
  { weight: 2, arbitrary: fc.constant({ _tag: "Edit" } as const) },
  { weight: 1, arbitrary: fc.constant({ _tag: "Throw" } as const) },
  { weight: 1, arbitrary: fc.constant({ _tag: "NextThenThrow" } as const) },
  // Never equal to a scripted delay, a backoff or a time limit: which sleeper wakes first is then clear.
  { weight: 2, arbitrary: fc.record({ _tag: fc.constant("Timeout" as const), ms: fc.constantFrom(7, 25) }) },
)

const wrapSpec = (index: number): fc.Arbitrary<WrapSpec> =>
  fc.record({
    point: fc.constantFrom<WrapPoint>("WrapInference", "WrapToolUse"),
    priority,
    onError: fc.constantFrom<"fail" | "skip">("fail", "skip"),
    lift: fc.constantFrom<WrapSpec["lift"]>("effect", "effect", "promise"),
    behaviour: wrapBehaviour,
  }).map((w) => ({
    name: `w${index}:${w.behaviour._tag.toLowerCase()}`,
    ...w,
    // A timeout waits on the Effect clock: its Promise form would need a real timer.
    lift: w.behaviour._tag === "Timeout" ? "effect" as const : w.lift,
  }))

// Most scenarios have no wrap hooks (the loop's path without them is the common one).
const wraps: fc.Arbitrary<ReadonlyArray<WrapSpec>> = fc.oneof(
  { weight: 3, arbitrary: fc.constant([]) },
  { weight: 2, arbitrary: fc.integer({ min: 1, max: 3 }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => wrapSpec(i + 1)))) },
)

const resumeSpec: fc.Arbitrary<ResumeSpec> = fc.record({
  plans: fc.array(fc.array(fc.constantFrom<DecisionKind>("approve", "approve", "edit", "reject", "leave", "leave"), { minLength: 1, maxLength: 3 }), { maxLength: 4 }),
  encode: fc.boolean(),
  probe: fc.constantFrom<ResumeSpec["probe"]>("none", "unknown", "repeated", "decided", "malformed", "malformed"),
  forged: fc.constantFrom(...forgedDecisions),
})

const toolName = fc.constantFrom<ToolName>("add", "add", "echo", "echo", "sleepy", "boom", "stall", "slow", "quit")

const callSpec: fc.Arbitrary<CallSpec> = fc.oneof(
  { weight: 12, arbitrary: fc.record({ _tag: fc.constant("Valid" as const), tool: toolName }) },
  { weight: 2, arbitrary: fc.record({ _tag: fc.constant("Malformed" as const), tool: toolName }) },
  { weight: 2, arbitrary: fc.constant({ _tag: "Unknown" } as const) },
  { weight: 2, arbitrary: fc.record({ _tag: fc.constant("Invalid" as const), tool: fc.constantFrom<ToolName>("add", "echo", "sleepy") }) },
  { weight: 1, arbitrary: fc.record({ _tag: fc.constant("Deep" as const), tool: fc.constantFrom<ToolName>("add", "echo") }) },
)

const usage: fc.Arbitrary<Usage> = fc.record({ inputTokens: fc.integer({ min: 0, max: 40 }), outputTokens: fc.integer({ min: 0, max: 20 }) })

const answer: fc.Arbitrary<TurnSpec> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      _tag: fc.constant("Text" as const),
      text: fc.constantFrom("done", "It is 4.", ""),
      chunked: fc.boolean(),
      finishReason: fc.constantFrom<"stop" | "length">("stop", "stop", "length"),
      usage,
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      _tag: fc.constant("ToolCalls" as const),
      calls: fc.array(callSpec, { minLength: 1, maxLength: 3 }),
      text: fc.constantFrom("", "Let me see."),
      usage,
    }),
  },
  { weight: 1, arbitrary: fc.constant({ _tag: "Failure" } as const) },
)

const turn: fc.Arbitrary<TurnSpec> = fc.oneof(
  { weight: 12, arbitrary: answer },
  { weight: 2, arbitrary: fc.record({ _tag: fc.constant("Delay" as const), ms: fc.constantFrom(1, 10, 40), turn: answer }) },
  { weight: 1, arbitrary: fc.constant({ _tag: "Hang" } as const) },
  { weight: 1, arbitrary: fc.constant({ _tag: "Stall" } as const) },
  { weight: 2, arbitrary: fc.record({ _tag: fc.constant("Garbage" as const), kind: fc.constantFrom(...garbageKinds) }) },
)

const guards: fc.Arbitrary<Guards> = fc.record({
  maxSteps: fc.integer({ min: 1, max: 8 }),
  maxTokens: fc.option(fc.integer({ min: 10, max: 300 }), { nil: null, freq: 2 }),
  maxExecutionTime: fc.option(fc.constantFrom(5, 30, 100), { nil: null, freq: 2 }),
  finishReasons: fc.option(fc.constant(["length"] as const), { nil: null }),
})

const abortSpec = (mode: Scenario["mode"]): fc.Arbitrary<AbortSpec | undefined> =>
  fc.option(
    fc.record({
      at: fc.integer({ min: 1, max: 10 }),
      via: mode === "run" ? fc.constantFrom<AbortSpec["via"]>("signal", "signal", "interrupt") : fc.constantFrom<AbortSpec["via"]>("signal", "interrupt", "leave"),
      timing: fc.constantFrom<AbortSpec["timing"]>("now", "soon"),
    }),
    { nil: undefined, freq: 2 },
  )

export const scenario: fc.Arbitrary<Scenario> = fc.constantFrom<Scenario["mode"]>("run", "run", "stream", "iterate").chain((mode) =>
  fc.record({
    hooks,
    wraps,
    guards,
    script: fc.array(turn, { minLength: 1, maxLength: 7 }),
    toolConcurrency: fc.constantFrom<Scenario["toolConcurrency"]>("sequential", "concurrent"),
    mode: fc.constant(mode),
    interceptor: fc.constantFrom<Scenario["interceptor"]>("stack", "marked"),
    textDeltas: fc.constantFrom<Scenario["textDeltas"]>("auto", "auto", "live", "checked"),
    abort: abortSpec(mode),
    input: fc.constantFrom<Scenario["input"]>("question", "question", "question", "finished"),
    twin: mode === "run" ? fc.constantFrom(false, false, false, true) : fc.constant(false),
    resume: resumeSpec,
  }).map(withinTimeLimit).map(wrapsNeedAStack).chain((s) =>
    fc.integer({ min: 0, max: s.hooks.length }).map((guardsAt) => ({ ...s, guardsAt }))
  )
)

/**
 * Issue 27: Effect hooks that answer at once. Some `Hook.effect` hooks that wait for
 * nothing (`None`) answer with an `Exit` instead, which the dispatcher reads without the
 * runtime. A layer over `scenario`, as `withReasoning`, so the golden traces' sample
 * stays as recorded.
 */
export const withAtOnce = (base: fc.Arbitrary<Scenario>): fc.Arbitrary<Scenario> =>
  fc.tuple(base, fc.array(fc.boolean(), { minLength: 1, maxLength: 8 })).map(([s, picks]) => ({
    ...s,
    hooks: s.hooks.map((h, i) =>
      h.lift === "effect" && h.wait._tag === "None" && h.behaviour._tag !== "Permission" && picks[i % picks.length] === true
        ? { ...h, wait: { _tag: "AtOnce" } as const }
        : h
    ),
  }))

/**
 * Issue 25: the model's reasoning, dealt over a scenario's script: a text answer may
 * come with reasoning (streamed in chunks with a chunked text), a garbage turn may be
 * reasoning garbage (not a string, a bad ReasoningDelta part, deltas that are not the
 * Finish's reasoning). A layer over `scenario`, not part of it, so that the golden
 * traces' fixed sample (`scenario` from seed 23) stays as recorded.
 */
export const withReasoning = (base: fc.Arbitrary<Scenario>): fc.Arbitrary<Scenario> =>
  fc.tuple(base, fc.array(fc.nat({ max: 5 }), { minLength: 1, maxLength: 8 })).map(([s, picks]) => {
    let i = 0
    const deal = (t: TurnSpec): TurnSpec => {
      const pick = picks[i++ % picks.length] as number
      switch (t._tag) {
        case "Text":
          return pick < 3 ? { ...t, reasoning: pick === 0 ? "Two and two make four." : "Hm. Let me see it through." } : t
        case "Garbage":
          return pick < reasoningGarbageKinds.length ? { ...t, kind: reasoningGarbageKinds[pick] as GarbageKind } : t
        case "Delay":
          return { ...t, turn: deal(t.turn) }
        default:
          return t
      }
    }
    return { ...s, script: s.script.map(deal) }
  })

/**
 * Branch entrycheck: a garbage turn may be an answer holding one string past
 * `Json.maxStringLength` (its text, its model id), which the boundary refuses as any
 * garbage. A layer over `scenario`, as `withReasoning`, so the golden traces' sample
 * stays as recorded.
 */
export const withLongStrings = (base: fc.Arbitrary<Scenario>): fc.Arbitrary<Scenario> =>
  fc.tuple(base, fc.array(fc.nat({ max: 5 }), { minLength: 1, maxLength: 8 })).map(([s, picks]) => {
    let i = 0
    const deal = (t: TurnSpec): TurnSpec => {
      const pick = picks[i++ % picks.length] as number
      if (t._tag === "Garbage") return pick < longStringKinds.length ? { ...t, kind: longStringKinds[pick] as GarbageKind } : t
      return t._tag === "Delay" ? { ...t, turn: deal(t.turn) } : t
    }
    return { ...s, script: s.script.map(deal) }
  })

/**
 * Branch plaindata: a hand-built return may hold what is not plain data, or a string past
 * the bound (`oddReturnKinds`). A layer over `scenario`, as `withLongStrings`, so the
 * golden traces' sample stays as recorded.
 */
export const withOddReturns = (base: fc.Arbitrary<Scenario>): fc.Arbitrary<Scenario> =>
  fc.tuple(base, fc.array(fc.nat({ max: 7 }), { minLength: 1, maxLength: 8 })).map(([s, picks]) => {
    let i = 0
    const deal = (h: HookSpec): HookSpec => {
      const pick = picks[i++ % picks.length] as number
      return h.behaviour._tag === "HandBuilt" && pick < oddReturnKinds.length
        ? { ...h, behaviour: { ...h.behaviour, how: oddReturnKinds[pick] as HandBuiltHow } }
        : h
    }
    return { ...s, hooks: s.hooks.map(deal) }
  })

/**
 * The loop runs wrap hooks only when its interceptor is a stack: a custom interceptor
 * (the marking one) around a stack would drop them (docs: wrap hooks belong to the
 * stack). Scenarios with wrap hooks use the stack itself.
 */
const wrapsNeedAStack = <S extends Pick<Scenario, "wraps" | "interceptor">>(s: S): S => ((s.wraps ?? []).length > 0 ? { ...s, interceptor: "stack" } : s)

const hangsOnAfterExecution = (h: HookSpec): boolean => h.triggers === "all" || h.triggers.includes("AfterExecution")

/**
 * Hangs nothing aborts end only by the time limit, which bounds the run but not its
 * AfterExecution (the `finally`, bounded by its hooks' own timeouts): without a limit,
 * or on AfterExecution, a hang waits for nothing. A run with a garbage answer is not
 * compared with its streamed twin (the paths name different parts in their errors).
 */
const withinTimeLimit = <S extends Omit<Scenario, "guardsAt">>(s: S): S => {
  const limited = s.guards.maxExecutionTime !== null
  return {
    ...s,
    hooks: s.hooks.map((h) => h.wait._tag === "Hang" && (!limited || hangsOnAfterExecution(h)) ? { ...h, wait: { _tag: "None" } as const } : h),
    script: limited ? s.script : s.script.map((t) => (t._tag === "Stall" ? ({ _tag: "Hang" } as const) : t)),
    twin: s.twin && !s.script.some((t) => t._tag === "Garbage"),
  }
}

// -- a readable form ----------------------------------------------------------

const showWait = (w: Wait): string =>
  w._tag === "None" ? "" : w._tag === "AtOnce" ? " at once (an Exit)" : w._tag === "Sleep" ? ` after sleep(${w.ms}ms)` : w._tag === "Hang" ? " after a hang (no abort)" : ` after ${w._tag.toLowerCase()}`

const showBehaviour = (b: Behaviour): string => {
  switch (b._tag) {
    case "Annotate":
      return `annotate(${b.how})`
    case "ShortCircuit":
      return `short-circuit${b.toolCall ? "(with a tool call)" : ""}`
    case "Stop":
      return `stop(${b.reason})`
    case "Continue":
      return `continue(${b.message === undefined ? "" : JSON.stringify(b.message)})`
    case "Throw":
      return `throw(${b.how})`
    case "HandBuilt":
      return `hand-built(${b.how})`
    case "Suspend":
      return `suspend(${b.tools.join(", ")}${b.forged === undefined ? "" : `, forged ${b.forged}`})`
    case "NonFinite":
      return `non-finite(${b.ctor}, ${b.value})`
    case "Permission":
      return `permission(${b.impl}, ${b.decision}${b.timeoutMs === undefined ? "" : `, timeout ${b.timeoutMs}ms`})`
    default:
      return b._tag.toLowerCase()
  }
}

const showWrap = (w: WrapSpec): string => {
  const b = w.behaviour
  const what = b._tag === "Retry"
    ? `retry(${b.times} more${b.backoffMs > 0 ? `, after ${b.backoffMs}ms` : ""})`
    : b._tag === "Answer"
    ? `answer itself${b.toolCall ? " (with a tool call)" : ""}${b.otherCall === true && w.point === "WrapToolUse" ? " for another call id" : ""}`
    : b._tag === "Edit"
    ? "edit, then next"
    : b._tag === "Throw"
    ? "throw"
    : b._tag === "Timeout"
    ? `timeout(${b.ms}ms)`
    : "next, then throw"
  return `  ${w.name} on ${w.point} priority ${w.priority}, ${w.lift}, onError ${w.onError}: ${what}`
}

const showCall = (c: CallSpec): string => (c._tag === "Unknown" ? "unknown_tool()" : `${c.tool}(${c._tag === "Valid" ? "" : c._tag.toLowerCase()})`)

const showTurn = (t: TurnSpec): string => {
  switch (t._tag) {
    case "Text":
      return `text(${JSON.stringify(t.text)}${t.chunked ? ", chunked" : ""}${t.reasoning === undefined ? "" : `, reasoning ${JSON.stringify(t.reasoning)}`}, ${t.finishReason}, ${t.usage.inputTokens}+${t.usage.outputTokens} tokens)`
    case "ToolCalls":
      return `calls[${t.calls.map(showCall).join(", ")}]${t.text === "" ? "" : ` + text ${JSON.stringify(t.text)}`} (${t.usage.inputTokens}+${t.usage.outputTokens} tokens)`
    case "Failure":
      return "failure"
    case "Delay":
      return `delay(${t.ms}ms, ${showTurn(t.turn)})`
    case "Hang":
      return "hang"
    case "Stall":
      return "stall (no abort: the time limit ends it)"
    case "Garbage":
      return `garbage(${t.kind})`
  }
}

/** The scenario as a few readable lines, for failure reports. */
export const describe = (s: Scenario): string => {
  const g = s.guards
  const lines = [
    `mode: ${s.mode}, interceptor: ${s.interceptor}, tools: ${s.toolConcurrency}, textDeltas: ${s.textDeltas}`,
    `guards: maxSteps ${g.maxSteps}, maxTokens ${g.maxTokens ?? "off"}, maxExecutionTime ${g.maxExecutionTime === null ? "off" : `${g.maxExecutionTime}ms`}, finishReasons ${g.finishReasons === null ? "off" : g.finishReasons.join(",")} (registered after ${s.guardsAt} hook${s.guardsAt === 1 ? "" : "s"})`,
    `input: ${s.input === "question" ? "a question" : "a finished state (2 messages, 1 step, completed)"}${s.twin ? "; run twice: run and stream, compared" : ""}`,
    `abort: ${s.abort === undefined ? "none (hangs abort through the signal)" : `${s.abort.via} ${s.abort.timing} at await point ${s.abort.at}`}`,
    "hooks (registration order):",
    ...s.hooks.map((h) =>
      `  ${h.name} on ${h.triggers === "all" ? "all" : h.triggers.join("+")} priority ${h.priority}, ${h.lift}, onError ${h.onError}: ${showBehaviour(h.behaviour)}${
        h.fromStep > 0 ? ` from step ${h.fromStep}` : ""
      }${showWait(h.wait)}`
    ),
    ...((s.wraps ?? []).length === 0 ? [] : ["wrap hooks (registration order):", ...(s.wraps ?? []).map(showWrap)]),
    ...(s.resume === undefined
      ? []
      : [`resume: plans [${s.resume.plans.map((p) => p.join("/")).join("; ")}], then approve all; ${s.resume.encode ? "encoded and decoded" : "as is"}; probe ${s.resume.probe}${s.resume.probe === "malformed" ? ` (${s.resume.forged})` : ""}`]),
    "script:",
    ...(s.script.length === 0 ? ["  (empty: every call fails as exhausted)"] : s.script.map((t, i) => `  ${i}: ${showTurn(t)}`)),
  ]
  return lines.join("\n")
}
