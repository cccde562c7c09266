/**
 * The whole of an agent run as frozen data: conversation context, execution record
 * and metadata. Users change it with immer recipes (`update`); the library's own
 * transitions copy only the changed path, and history is an `AppendLog`.
 *
 * @since 0.1.0
 */
import { dual } from "effect/Function"
import type { Draft } from "immer"
import { bounded, type AgentError } from "./AgentError.js"
import * as AppendLog from "./AppendLog.js"
import type { ResponseFormat } from "./InferenceRequest.js"
import type { JsonValue, Metadata } from "./Json.js"
import { emptyMetadata } from "./Json.js"
import type { Message } from "./Message.js"
import type { Decision as StepDecision, Step } from "./Step.js"
import type { StopSignal } from "./StopSignal.js"
import type { ToolCall } from "./ToolCall.js"
import type * as StopReason from "./StopReason.js"
import * as Usage from "./Usage.js"
import { finiteOptional } from "./internal/finite.js"
import { deepFreeze, immer } from "./internal/immer.js"

/**
 * @since 0.1.0
 * @category models
 */
export type ExecutionStatus = "pending" | "running" | "suspended" | "completed" | "stopped" | "failed"

/**
 * A tool call a BeforeToolUse hook suspended the run on (a person must approve it):
 * the call, the hook's reason and its payload (what to show the person).
 *
 * @since 0.1.0
 * @category models
 */
export interface PendingCall {
  readonly toolCall: ToolCall
  readonly reason: string
  readonly payload?: JsonValue | undefined
  /**
   * The person's decision, once a resume took it: written into the state before the
   * resumed run's first hook (so a checkpoint keeps it), the call is no longer open to
   * another decision, and a resume after a crash carries it out without asking again.
   */
  readonly decision?: PendingDecision | undefined
  /**
   * When the approval expires (epoch ms, Effect's clock): the next resume at or after
   * it rejects the call by `"hookline"` with "the approval expired at <ISO time>", and
   * refuses a caller's approval of it (`DecisionInvalid`, `expired`). `undefined`: never.
   */
  readonly expiresAt?: number | undefined
}

/**
 * A decision kept with its call: approve, approve with edited arguments, or reject
 * with a message the model reads.
 *
 * @since 0.1.0
 * @category models
 */
export type PendingDecision = StepDecision

/**
 * What the model is told: system prompt, response format, the message history.
 *
 * @since 0.1.0
 * @category models
 */
export interface AgentContext {
  readonly systemPrompt: string
  readonly responseFormat?: ResponseFormat | undefined
  readonly messages: AppendLog.AppendLog<Message>
  readonly metadata: Metadata
}

/**
 * What happened: status, times (epoch ms), steps, stop signals, usage and errors.
 *
 * @since 0.1.0
 * @category models
 */
export interface Execution {
  readonly status: ExecutionStatus
  /** When the run first started running (a resume keeps it). */
  readonly startedAt?: number | undefined
  /**
   * When the current call of run or resume started running it: the time limit counts
   * from here, so a run resumed the next day gets its whole time budget again (its
   * steps, tokens and cost carry over). `undefined` in a state no run call started.
   */
  readonly runningSince?: number | undefined
  readonly completedAt?: number | undefined
  readonly steps: AppendLog.AppendLog<Step>
  readonly stopSignals: ReadonlyArray<StopSignal>
  readonly continuationRequested: boolean
  readonly usage: Usage.Usage
  readonly errors: ReadonlyArray<AgentError>
  /**
   * How the run ended: the reason of the highest stop signal when it ended (a built-in
   * reason or a custom one's name), set by the loop with the final status; `undefined`
   * while it runs. A run that completed after errors it survived (handled by OnError
   * hooks, or tool failures fed back to the model) reads `Completed` with a non-empty
   * `errors`: see `outcome`.
   */
  readonly stopReason?: StopReason.Name | undefined
  /**
   * Per-execution data for hooks (counters such as "calls of search in this run"):
   * persisted with the state, so a resumed checkpoint keeps it, and empty again when a
   * finished state starts a new execution. See `withExecutionMetadata`.
   */
  readonly metadata: Metadata
  /**
   * The calls waiting for a decision while the run is `suspended`. A `Decision` names one
   * by its `toolCall.id`; a subagent's call (`Tool.fromAgent`) lists in its payload the
   * child's waiting calls, named by their path from this call (`<callId>/<childCallId>`).
   */
  readonly pendingCalls?: ReadonlyArray<PendingCall> | undefined
  /**
   * While the run is `suspended`: the step it was suspended in, as far as it went (the
   * model's answer and the calls that ran). Resuming ends that step with the decided
   * calls, so its record lists every call of the step.
   */
  readonly suspendedStep?: Step | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface AgentState {
  readonly id: string
  readonly parentId?: string | undefined
  readonly context: AgentContext
  readonly execution: Execution
  readonly metadata: Metadata
}

const noSignals: ReadonlyArray<StopSignal> = Object.freeze([])
const noErrors: ReadonlyArray<AgentError> = Object.freeze([])

/**
 * A fresh, pending execution.
 *
 * @since 0.1.0
 * @category constructors
 */
export const emptyExecution: Execution = Object.freeze({
  status: "pending",
  startedAt: undefined,
  runningSince: undefined,
  completedAt: undefined,
  steps: AppendLog.empty<Step>(),
  stopSignals: noSignals,
  continuationRequested: false,
  usage: Usage.empty,
  errors: noErrors,
  stopReason: undefined,
  metadata: emptyMetadata,
})

/**
 * A new frozen state. Without an `id` one is drawn with `crypto.randomUUID`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (input: {
  readonly id?: string | undefined
  readonly parentId?: string | undefined
  readonly systemPrompt?: string | undefined
  readonly responseFormat?: ResponseFormat | undefined
  readonly messages?: Iterable<Message> | undefined
  readonly contextMetadata?: Metadata | undefined
  readonly metadata?: Metadata | undefined
} = {}): AgentState =>
  Object.freeze({
    id: input.id ?? globalThis.crypto.randomUUID(),
    parentId: input.parentId,
    context: Object.freeze({
      systemPrompt: input.systemPrompt ?? "",
      responseFormat: input.responseFormat === undefined ? undefined : deepFreeze(input.responseFormat),
      messages: input.messages === undefined
        ? AppendLog.empty<Message>()
        : AppendLog.fromIterable(Array.from(input.messages, deepFreeze)),
      metadata: input.contextMetadata === undefined ? emptyMetadata : deepFreeze(input.contextMetadata),
    }),
    execution: emptyExecution,
    metadata: input.metadata === undefined ? emptyMetadata : deepFreeze(input.metadata),
  })

/**
 * Changes a state with an immer recipe; returns the same state when nothing changed,
 * shares every part the recipe did not touch, and freezes what is new. Replace the
 * history with `draft.context.messages = AppendLog.append(draft.context.messages, m)`
 * (an `AppendLog` is a value, not a draft).
 *
 * @since 0.1.0
 * @category combinators
 */
export const update: {
  (recipe: (draft: Draft<AgentState>) => void): (self: AgentState) => AgentState
  (self: AgentState, recipe: (draft: Draft<AgentState>) => void): AgentState
} = dual(2, (self: AgentState, recipe: (draft: Draft<AgentState>) => void): AgentState =>
  immer.produce(self, (draft) => {
    recipe(draft)
  }))

/**
 * Replaces the context, copying only the root.
 *
 * @since 0.1.0
 * @category combinators
 */
export const withContext: {
  (context: AgentContext): (self: AgentState) => AgentState
  (self: AgentState, context: AgentContext): AgentState
} = dual(2, (self: AgentState, context: AgentContext): AgentState =>
  context === self.context ? self : Object.freeze({ ...self, context: deepFreeze(context) }))

/**
 * Replaces the execution record, copying only the root.
 *
 * @since 0.1.0
 * @category combinators
 */
export const withExecution: {
  (execution: Execution): (self: AgentState) => AgentState
  (self: AgentState, execution: Execution): AgentState
} = dual(2, (self: AgentState, execution: Execution): AgentState =>
  execution === self.execution ? self : Object.freeze({ ...self, execution: deepFreeze(execution) }))

// The loop's own transitions: new frozen objects on the path to the change, every
// field listed (a spread of a frozen object is slower in V8), nothing else copied.
const withParts = (self: AgentState, context: AgentContext, execution: Execution): AgentState =>
  Object.freeze({ id: self.id, parentId: self.parentId, context, execution, metadata: self.metadata })

const patchContext = (self: AgentState, patch: Partial<AgentContext>): AgentState => {
  const c = self.context
  return withParts(
    self,
    Object.freeze({
      systemPrompt: patch.systemPrompt ?? c.systemPrompt,
      responseFormat: "responseFormat" in patch ? patch.responseFormat : c.responseFormat,
      messages: patch.messages ?? c.messages,
      metadata: patch.metadata ?? c.metadata,
    }),
    self.execution,
  )
}

const patchExecution = (self: AgentState, patch: Partial<Execution>): AgentState => {
  const e = self.execution
  return withParts(
    self,
    self.context,
    Object.freeze({
      status: patch.status ?? e.status,
      startedAt: "startedAt" in patch ? patch.startedAt : e.startedAt,
      runningSince: "runningSince" in patch ? patch.runningSince : e.runningSince,
      completedAt: "completedAt" in patch ? patch.completedAt : e.completedAt,
      steps: patch.steps ?? e.steps,
      stopSignals: patch.stopSignals ?? e.stopSignals,
      continuationRequested: patch.continuationRequested ?? e.continuationRequested,
      usage: patch.usage ?? e.usage,
      errors: patch.errors ?? e.errors,
      stopReason: "stopReason" in patch ? patch.stopReason : e.stopReason,
      metadata: patch.metadata ?? e.metadata,
      pendingCalls: "pendingCalls" in patch ? patch.pendingCalls : e.pendingCalls,
      ...(("suspendedStep" in patch ? patch.suspendedStep : e.suspendedStep) === undefined
        ? {}
        : { suspendedStep: "suspendedStep" in patch ? patch.suspendedStep : e.suspendedStep }),
    }),
  )
}

// The two transitions of every step (a message appended, a step recorded) build their
// new parts field by field, with the shapes patchContext and patchExecution give, but
// with no patch object, no `in` tests and no spread: they are most of the state's cost
// in a step.
const withMessages = (self: AgentState, messages: AppendLog.AppendLog<Message>): AgentState => {
  const c = self.context
  return withParts(
    self,
    Object.freeze({ systemPrompt: c.systemPrompt, responseFormat: c.responseFormat, messages, metadata: c.metadata }),
    self.execution,
  )
}

const withStep = (self: AgentState, steps: AppendLog.AppendLog<Step>, usage: Usage.Usage): AgentState => {
  const e = self.execution
  // A suspended step's record is rare here (a resume clears it first): the general path.
  if (e.suspendedStep !== undefined) return patchExecution(self, { steps, usage })
  return withParts(
    self,
    self.context,
    Object.freeze({
      status: e.status,
      startedAt: e.startedAt,
      runningSince: e.runningSince,
      completedAt: e.completedAt,
      steps,
      stopSignals: e.stopSignals,
      continuationRequested: e.continuationRequested,
      usage,
      errors: e.errors,
      stopReason: e.stopReason,
      metadata: e.metadata,
      pendingCalls: e.pendingCalls,
    }),
  )
}

/**
 * Appends one message in O(1); the history is shared with `self`.
 *
 * @since 0.1.0
 * @category combinators
 */
export const appendMessage: {
  (message: Message): (self: AgentState) => AgentState
  (self: AgentState, message: Message): AgentState
} = dual(2, (self: AgentState, message: Message): AgentState =>
  // AppendLog.append deep-freezes the item (a second check here found it frozen).
  withMessages(self, AppendLog.append(self.context.messages, message)))

/**
 * Appends messages in order.
 *
 * @since 0.1.0
 * @category combinators
 */
export const appendMessages: {
  (messages: Iterable<Message>): (self: AgentState) => AgentState
  (self: AgentState, messages: Iterable<Message>): AgentState
} = dual(2, (self: AgentState, messages: Iterable<Message>): AgentState => {
  const frozen = Array.from(messages, deepFreeze)
  return frozen.length === 0 ? self : patchContext(self, { messages: AppendLog.appendAll(self.context.messages, frozen) })
})

/**
 * Replaces the system prompt.
 *
 * @since 0.1.0
 * @category combinators
 */
export const withSystemPrompt: {
  (systemPrompt: string): (self: AgentState) => AgentState
  (self: AgentState, systemPrompt: string): AgentState
} = dual(2, (self: AgentState, systemPrompt: string): AgentState =>
  systemPrompt === self.context.systemPrompt ? self : patchContext(self, { systemPrompt }))

/**
 * Replaces the response format.
 *
 * @since 0.1.0
 * @category combinators
 */
export const withResponseFormat: {
  (responseFormat: ResponseFormat | undefined): (self: AgentState) => AgentState
  (self: AgentState, responseFormat: ResponseFormat | undefined): AgentState
} = dual(2, (self: AgentState, responseFormat: ResponseFormat | undefined): AgentState =>
  responseFormat === self.context.responseFormat
    ? self
    : patchContext(self, { responseFormat: responseFormat === undefined ? undefined : deepFreeze(responseFormat) }))

/**
 * Merges entries into the state's metadata; unchanged values keep the same state.
 *
 * @since 0.1.0
 * @category combinators
 */
export const withMetadata: {
  (entries: Metadata): (self: AgentState) => AgentState
  (self: AgentState, entries: Metadata): AgentState
} = dual(2, (self: AgentState, entries: Metadata): AgentState => {
  const merged = mergeMetadata(self.metadata, entries)
  return merged === self.metadata ? self : Object.freeze({ ...self, metadata: merged })
})

/** @internal shared by state and context metadata: same object when nothing changes. */
export const mergeMetadata = (self: Metadata, entries: Metadata): Metadata => {
  let changed = false
  for (const key of Object.keys(entries)) {
    if (self[key] !== entries[key] || !Object.hasOwn(self, key)) {
      changed = true
      break
    }
  }
  return changed ? deepFreeze({ ...self, ...entries } as Record<string, JsonValue>) : self
}

/**
 * Adds a stop signal; one with the same reason and source already there keeps the
 * state as it is.
 *
 * @since 0.1.0
 * @category combinators
 */
export const withStopSignal: {
  (signal: StopSignal): (self: AgentState) => AgentState
  (self: AgentState, signal: StopSignal): AgentState
} = dual(2, (self: AgentState, signal: StopSignal): AgentState =>
  self.execution.stopSignals.some((s) => s.reason === signal.reason && s.source === signal.source)
    ? self
    : patchExecution(self, { stopSignals: Object.freeze([...self.execution.stopSignals, deepFreeze(signal)]) }))

/**
 * Records an error in the state's error list; a message longer than
 * `Truncation.defaultMaxLength` is cut (`AgentError.bounded`).
 *
 * @since 0.1.0
 * @category combinators
 */
export const addError: {
  (error: AgentError): (self: AgentState) => AgentState
  (self: AgentState, error: AgentError): AgentState
} = dual(2, (self: AgentState, error: AgentError): AgentState =>
  patchExecution(self, { errors: Object.freeze([...self.execution.errors, deepFreeze(bounded(error))]) }))

/**
 * Appends a finished step in O(1) and adds its usage to the run's.
 *
 * @since 0.1.0
 * @category combinators
 */
export const appendStep: {
  (step: Step): (self: AgentState) => AgentState
  (self: AgentState, step: Step): AgentState
} = dual(2, (self: AgentState, step: Step): AgentState =>
  withStep(self, AppendLog.append(self.execution.steps, step), Usage.add(self.execution.usage, step.usage)))

/**
 * Sets the status (and, for a final status, `completedAt`; for `running` at `at`,
 * `runningSince`, and `startedAt` the first time).
 *
 * @since 0.1.0
 * @category combinators
 */
export const withStatus: {
  (status: ExecutionStatus, at?: number): (self: AgentState) => AgentState
  (self: AgentState, status: ExecutionStatus, at?: number): AgentState
} = dual(
  (args) => typeof args[0] === "object",
  (self: AgentState, status: ExecutionStatus, time?: number): AgentState => {
    const at = finiteOptional("at", time)
    const { execution } = self
    const final = status === "completed" || status === "stopped" || status === "failed"
    const startedAt = status === "running" && execution.startedAt === undefined ? at : execution.startedAt
    // Each call of run or resume sets the run running: its time limit counts from there.
    const runningSince = status === "running" && at !== undefined ? at : execution.runningSince
    // A run that resumes (running again) is no longer completed.
    const resumed = status === "running" && execution.status !== "running"
    const completedAt = final && at !== undefined ? at : resumed ? undefined : execution.completedAt
    return status === execution.status && startedAt === execution.startedAt && completedAt === execution.completedAt &&
        runningSince === execution.runningSince
      ? self
      : patchExecution(self, { status, startedAt, runningSince, completedAt })
  },
)

/**
 * Adds a call to the ones waiting for a decision (a BeforeToolUse hook suspending the
 * run); the loop then does not run it, and the run ends `suspended` after the step's
 * other calls. A call already waiting keeps the state as it is.
 *
 * @since 0.1.0
 * @category combinators
 */
export const suspendCall: {
  (toolCall: ToolCall, reason: string, payload?: JsonValue, options?: SuspendOptions): (self: AgentState) => AgentState
  (self: AgentState, toolCall: ToolCall, reason: string, payload?: JsonValue, options?: SuspendOptions): AgentState
} = dual(
  (args) => isAgentState(args[0]),
  (self: AgentState, toolCall: ToolCall, reason: string, payload?: JsonValue, options?: SuspendOptions): AgentState => {
    const pending = self.execution.pendingCalls ?? []
    if (pending.some((p) => p.toolCall.id === toolCall.id)) return self
    const expiresAt = finiteOptional("expiresAt", options?.expiresAt)
    const call: PendingCall = deepFreeze({
      toolCall,
      reason,
      ...(payload === undefined ? {} : { payload }),
      ...(expiresAt === undefined ? {} : { expiresAt }),
    })
    return patchExecution(self, { pendingCalls: Object.freeze([...pending, call]) })
  },
)

/**
 * How a call waits: until `expiresAt` (epoch ms, Effect's clock), if given.
 *
 * @since 0.1.0
 * @category models
 */
export interface SuspendOptions {
  readonly expiresAt?: number | undefined
}

/**
 * Replaces the calls waiting for a decision (none: `undefined`).
 *
 * @since 0.1.0
 * @category combinators
 */
export const withPendingCalls: {
  (pendingCalls: ReadonlyArray<PendingCall> | undefined): (self: AgentState) => AgentState
  (self: AgentState, pendingCalls: ReadonlyArray<PendingCall> | undefined): AgentState
} = dual(2, (self: AgentState, pendingCalls: ReadonlyArray<PendingCall> | undefined): AgentState =>
  pendingCalls === self.execution.pendingCalls
    ? self
    : patchExecution(self, { pendingCalls: pendingCalls === undefined || pendingCalls.length === 0 ? undefined : deepFreeze(pendingCalls) }))

/**
 * Replaces the record of the step a suspended run was left in (none: `undefined`).
 *
 * @since 0.1.0
 * @category combinators
 */
export const withSuspendedStep: {
  (step: Step | undefined): (self: AgentState) => AgentState
  (self: AgentState, step: Step | undefined): AgentState
} = dual(2, (self: AgentState, step: Step | undefined): AgentState =>
  step === self.execution.suspendedStep ? self : patchExecution(self, { suspendedStep: step }))

/**
 * Whether the call is waiting for a decision.
 *
 * @since 0.1.0
 * @category getters
 */
export const isPendingCall = (self: AgentState, toolCallId: string): boolean =>
  self.execution.pendingCalls?.some((p) => p.toolCall.id === toolCallId) === true

/**
 * Sets or clears the continuation flag.
 *
 * @since 0.1.0
 * @category combinators
 */
export const withContinuationRequested: {
  (requested: boolean): (self: AgentState) => AgentState
  (self: AgentState, requested: boolean): AgentState
} = dual(2, (self: AgentState, requested: boolean): AgentState =>
  requested === self.execution.continuationRequested ? self : patchExecution(self, { continuationRequested: requested }))

/**
 * Removes every stop signal (the loop does this when a continuation resumes it).
 *
 * @since 0.1.0
 * @category combinators
 */
export const clearStopSignals = (self: AgentState): AgentState =>
  self.execution.stopSignals.length === 0 ? self : patchExecution(self, { stopSignals: noSignals })

/**
 * @since 0.1.0
 * @category getters
 */
export const stepCount = (self: AgentState): number => self.execution.steps.length

/**
 * The last step, if any.
 *
 * @since 0.1.0
 * @category getters
 */
export const lastStep = (self: AgentState): Step | undefined => self.execution.steps.last()

/**
 * Input plus output tokens of the whole run.
 *
 * @since 0.1.0
 * @category getters
 */
export const totalTokens = (self: AgentState): number => Usage.total(self.execution.usage)

/**
 * The last message, if any.
 *
 * @since 0.1.0
 * @category getters
 */
export const lastMessage = (self: AgentState): Message | undefined => self.context.messages.last()

/**
 * @since 0.1.0
 * @category guards
 */
export const isAgentState = (u: unknown): u is AgentState =>
  typeof u === "object" && u !== null && "context" in u && "execution" in u && "id" in u

/**
 * Sets how the run ended (the loop does this with the final status).
 *
 * @since 0.1.0
 * @category combinators
 */
export const withStopReason: {
  (reason: StopReason.Name | undefined): (self: AgentState) => AgentState
  (self: AgentState, reason: StopReason.Name | undefined): AgentState
} = dual(2, (self: AgentState, reason: StopReason.Name | undefined): AgentState =>
  reason === self.execution.stopReason ? self : patchExecution(self, { stopReason: reason }))

/**
 * Merges entries into the execution's metadata: the per-execution place for a hook's
 * counters. It is empty when a finished state starts a new execution, and kept when a
 * checkpoint resumes, so "at most 2 searches per run" counts this run only.
 *
 * @since 0.1.0
 * @category combinators
 */
export const withExecutionMetadata: {
  (entries: Metadata): (self: AgentState) => AgentState
  (self: AgentState, entries: Metadata): AgentState
} = dual(2, (self: AgentState, entries: Metadata): AgentState => {
  const metadata = mergeMetadata(self.execution.metadata, entries)
  return metadata === self.execution.metadata ? self : patchExecution(self, { metadata })
})

/**
 * How a finished run ended, in one word: `"completed"` (clean: no error recorded in
 * this execution), `"completedWithErrors"` (it completed after errors it survived:
 * handled by OnError hooks, or tool failures and blocks fed back to the model),
 * `"stopped"`, `"failed"`; `undefined` while it is pending or running.
 *
 * @since 0.1.0
 * @category getters
 */
export const outcome = (self: AgentState): "completed" | "completedWithErrors" | "stopped" | "failed" | undefined => {
  const { status, errors } = self.execution
  if (status === "completed") return errors.length === 0 ? "completed" : "completedWithErrors"
  return status === "stopped" || status === "failed" ? status : undefined
}

/**
 * The tool calls the model asked for in this execution's finished steps (of `name`
 * only, if given): a helper for budgets that do not need a counter of their own.
 * Calls of the step under way are not counted: count those with a counter in
 * `withExecutionMetadata`.
 *
 * @since 0.1.0
 * @category getters
 */
export const toolCallsInExecution = (self: AgentState, name?: string): number => {
  let count = 0
  for (const step of self.execution.steps) {
    for (const execution of step.toolExecutions) if (name === undefined || execution.toolCall.name === name) count++
  }
  return count
}
