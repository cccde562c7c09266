/**
 * What flows through the hooks at every trigger: the frozen state plus the data of
 * that point of the loop (request, response, tool call, tool execution, errors).
 * Every change is a dual function that returns a new frozen context, or the same
 * context when nothing changed.
 *
 * @since 0.1.0
 */
import { Duration } from "effect"
import { dual } from "effect/Function"
import type { Draft } from "immer"
import { HooklineError, invalidConfiguration, type AgentError } from "./AgentError.js"
import * as AgentState from "./AgentState.js"
import type { HookTrigger } from "./HookTrigger.js"
import * as InferenceRequest from "./InferenceRequest.js"
import { asReplayed as replayedResponse, type InferenceResponse } from "./InferenceResponse.js"
import { emptyMetadata, excerpt, type JsonValue, type Metadata } from "./Json.js"
import * as Message from "./Message.js"
import type { StopSignal } from "./StopSignal.js"
import type { ToolCall } from "./ToolCall.js"
import * as ToolExecution from "./ToolExecution.js"
import { finite } from "./internal/finite.js"
import { deepFreeze } from "./internal/immer.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface HookContext<C = unknown> {
  readonly trigger: HookTrigger
  readonly state: AgentState.AgentState
  /** BeforeInference, AfterInference: the request of this model call. */
  readonly request?: InferenceRequest.InferenceRequest | undefined
  /** AfterInference; at BeforeInference a hook may set it to skip the model (a cache). */
  readonly response?: InferenceResponse | undefined
  /** BeforeToolUse, AfterToolUse. */
  readonly toolCall?: ToolCall | undefined
  /** AfterToolUse; at BeforeToolUse a block or a short-circuit result. */
  readonly toolExecution?: ToolExecution.ToolExecution | undefined
  /** Whether a hook blocked this tool call; final once true. */
  readonly toolExecutionBlocked: boolean
  /** OnError: the errors that ended the step. Empty them to mark them handled. */
  readonly errors: ReadonlyArray<AgentError>
  readonly metadata: Metadata
  /** The clock reading (epoch ms) the loop took when it made this context. */
  readonly createdAt: number
  /** The clock reading when a hook last changed it (stamped by the dispatcher). */
  readonly updatedAt: number
  /**
   * The caller's per-run context (`agent.run(input, { context })`): who is asking
   * (role, tenant), request-scoped services. Given again on every run, never part of
   * the state, so never persisted or encoded; `undefined` when the caller gave none.
   * Not `state.context`, which is the conversation the model sees.
   */
  readonly runContext: C
}

const noErrors: ReadonlyArray<AgentError> = Object.freeze([])

/**
 * A new frozen context. Data already frozen is shared as is; `toolExecutionBlocked`
 * follows the tool execution's status.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (input: {
  readonly trigger: HookTrigger
  readonly state: AgentState.AgentState
  readonly createdAt: number
  readonly request?: InferenceRequest.InferenceRequest | undefined
  readonly response?: InferenceResponse | undefined
  readonly toolCall?: ToolCall | undefined
  readonly toolExecution?: ToolExecution.ToolExecution | undefined
  readonly errors?: ReadonlyArray<AgentError> | undefined
  readonly metadata?: Metadata | undefined
  readonly updatedAt?: number | undefined
  readonly runContext?: unknown
}): HookContext =>
  Object.freeze({
    trigger: input.trigger,
    state: deepFreeze(input.state),
    request: input.request === undefined ? undefined : deepFreeze(input.request),
    response: input.response === undefined ? undefined : deepFreeze(input.response),
    toolCall: input.toolCall === undefined ? undefined : deepFreeze(input.toolCall),
    toolExecution: input.toolExecution === undefined ? undefined : deepFreeze(input.toolExecution),
    // Derived, never given: a context is blocked exactly when its execution is.
    toolExecutionBlocked: input.toolExecution?.status === "blocked",
    errors: input.errors === undefined || input.errors.length === 0 ? noErrors : deepFreeze(input.errors),
    metadata: input.metadata === undefined ? emptyMetadata : deepFreeze(input.metadata),
    createdAt: finite("createdAt", input.createdAt),
    updatedAt: finite("updatedAt", input.updatedAt ?? input.createdAt),
    // The caller's own value, shared as given (not frozen: it may hold services).
    runContext: input.runContext,
  })

/**
 * @internal `make` for the loop's own step contexts, whose parts it holds frozen all
 * through: the state is checked and frozen where it entered the run and at every hook's
 * or interceptor's return, the answer and its calls where the driver gave them, the rest
 * is made by core's constructors. So nothing is walked (`make` would only find each part
 * frozen). A context made with user data goes through `make`.
 */
export const fromFrozenParts = (input: {
  readonly trigger: HookTrigger
  readonly state: AgentState.AgentState
  readonly createdAt: number
  readonly request?: InferenceRequest.InferenceRequest | undefined
  readonly response?: InferenceResponse | undefined
  readonly toolCall?: ToolCall | undefined
  readonly toolExecution?: ToolExecution.ToolExecution | undefined
  readonly runContext?: unknown
}): HookContext =>
  Object.freeze({
    trigger: input.trigger,
    state: input.state,
    request: input.request,
    response: input.response,
    toolCall: input.toolCall,
    toolExecution: input.toolExecution,
    toolExecutionBlocked: input.toolExecution?.status === "blocked",
    errors: noErrors,
    metadata: emptyMetadata,
    createdAt: finite("createdAt", input.createdAt),
    updatedAt: input.createdAt,
    runContext: input.runContext,
  })

/**
 * Whether a value is a hook context (used to tell data-first calls from data-last).
 *
 * @since 0.1.0
 * @category guards
 */
export const isHookContext = (u: unknown): u is HookContext =>
  typeof u === "object" && u !== null && "trigger" in u && "state" in u && "toolExecutionBlocked" in u

/**
 * @since 0.1.0
 * @category guards
 */
export const isToolExecutionBlocked = (self: HookContext): boolean => self.toolExecutionBlocked

/**
 * @since 0.1.0
 * @category guards
 */
export const hasErrors = (self: HookContext): boolean => self.errors.length > 0

const patch = (self: HookContext, fields: Partial<HookContext>): HookContext => Object.freeze({ ...self, ...fields })

/**
 * Replaces the state (persisted by the loop).
 *
 * @since 0.1.0
 * @category combinators
 */
export const withState: {
  (state: AgentState.AgentState): (self: HookContext) => HookContext
  (self: HookContext, state: AgentState.AgentState): HookContext
} = dual(2, (self: HookContext, state: AgentState.AgentState): HookContext =>
  state === self.state ? self : patch(self, { state: deepFreeze(state) }))

/**
 * Changes the state with an immer recipe (`AgentState.update`).
 *
 * @since 0.1.0
 * @category combinators
 */
export const updateState: {
  (recipe: (draft: Draft<AgentState.AgentState>) => void): (self: HookContext) => HookContext
  (self: HookContext, recipe: (draft: Draft<AgentState.AgentState>) => void): HookContext
} = dual(2, (self: HookContext, recipe: (draft: Draft<AgentState.AgentState>) => void): HookContext =>
  withState(self, AgentState.update(self.state, recipe)))

/**
 * Replaces the request of this model call (BeforeInference); not persisted.
 *
 * @since 0.1.0
 * @category combinators
 */
export const withRequest: {
  (request: InferenceRequest.InferenceRequestInput): (self: HookContext) => HookContext
  (self: HookContext, request: InferenceRequest.InferenceRequestInput): HookContext
} = dual(2, (self: HookContext, request: InferenceRequest.InferenceRequestInput): HookContext =>
  request === self.request
    ? self
    : patch(self, {
      request: InferenceRequest.isInferenceRequest(request) ? request : InferenceRequest.make(request),
    }))

// A rewrite of an answer a journal replayed stays replayed; its argument is deep-frozen.
const keepAnswerReplayed = (current: InferenceResponse | undefined, next: InferenceResponse): InferenceResponse =>
  current?.replayed === true ? replayedResponse(next) : next

/**
 * Sets the response: at BeforeInference it skips the model call (a cache hit); at
 * AfterInference it rewrites what the model said before it is committed. A rewrite of
 * an answer a journal replayed stays replayed (`InferenceResponse.isReplayed`).
 *
 * @since 0.1.0
 * @category combinators
 */
export const withResponse: {
  (response: InferenceResponse): (self: HookContext) => HookContext
  (self: HookContext, response: InferenceResponse): HookContext
} = dual(2, (self: HookContext, response: InferenceResponse): HookContext =>
  response === self.response
    ? self
    : patch(self, { response: keepAnswerReplayed(self.response, deepFreeze(response)) }))

/**
 * Replaces the tool call (BeforeToolUse: edit the arguments).
 *
 * @since 0.1.0
 * @category combinators
 */
export const withToolCall: {
  (toolCall: ToolCall): (self: HookContext) => HookContext
  (self: HookContext, toolCall: ToolCall): HookContext
} = dual(2, (self: HookContext, toolCall: ToolCall): HookContext =>
  toolCall === self.toolCall || self.toolExecutionBlocked ? self : patch(self, { toolCall: deepFreeze(toolCall) }))

/**
 * Replaces the arguments of the tool call.
 *
 * @since 0.1.0
 * @category combinators
 */
export const withToolArguments: {
  (args: JsonValue): (self: HookContext) => HookContext
  (self: HookContext, args: JsonValue): HookContext
} = dual(2, (self: HookContext, args: JsonValue): HookContext =>
  self.toolCall === undefined || self.toolCall.arguments === args
    ? self
    : withToolCall(self, { ...self.toolCall, arguments: args }))

/**
 * Replaces the tool execution. A blocked call stays blocked: on a blocked context this
 * returns it unchanged. A rewrite of a result a journal replayed stays replayed
 * (`ToolExecution.isReplayed`).
 *
 * @since 0.1.0
 * @category combinators
 */
export const withToolExecution: {
  (execution: ToolExecution.ToolExecution): (self: HookContext) => HookContext
  (self: HookContext, execution: ToolExecution.ToolExecution): HookContext
} = dual(2, (self: HookContext, execution: ToolExecution.ToolExecution): HookContext =>
  execution === self.toolExecution || self.toolExecutionBlocked
    ? self
    : patch(self, { toolExecution: keepReplayed(self.toolExecution, deepFreeze(execution)), toolExecutionBlocked: execution.status === "blocked" }))

// A rewrite of a result a journal replayed (redaction at AfterToolUse) stays replayed.
// Freeze first: `asReplayed` makes a frozen shallow copy, where deepFreeze would stop.
const keepReplayed = (current: ToolExecution.ToolExecution | undefined, next: ToolExecution.ToolExecution): ToolExecution.ToolExecution =>
  current !== undefined && ToolExecution.isReplayed(current) && current.toolCall.id === next.toolCall.id ? ToolExecution.asReplayed(next) : next

/**
 * Sets a successful result: at BeforeToolUse it skips the tool (a synthetic result);
 * at AfterToolUse it rewrites the output (redact, truncate). No effect on a blocked call.
 *
 * @since 0.1.0
 * @category combinators
 */
export const withToolResult: {
  (output: JsonValue): (self: HookContext) => HookContext
  (self: HookContext, output: JsonValue): HookContext
} = dual(2, (self: HookContext, output: JsonValue): HookContext => {
  if (self.toolExecutionBlocked || self.toolCall === undefined) return self
  const current = self.toolExecution
  if (current?.status === "success" && current.output === output) return self
  return withToolExecution(
    self,
    ToolExecution.success(self.toolCall, output, current?.startedAt ?? self.createdAt, current?.completedAt ?? self.createdAt),
  )
})

/**
 * Blocks the tool call with a reason: the tool does not run and the reason goes back
 * to the model. Final: the first block wins and no later change lifts it.
 *
 * @since 0.1.0
 * @category combinators
 */
export const withToolExecutionBlocked: {
  (reason: string): (self: HookContext) => HookContext
  (self: HookContext, reason: string): HookContext
} = dual(2, (self: HookContext, reason: string): HookContext =>
  self.toolExecutionBlocked || self.toolCall === undefined
    ? self
    : patch(self, { toolExecution: ToolExecution.blocked(self.toolCall, reason, self.createdAt), toolExecutionBlocked: true }))

/**
 * At BeforeToolUse: suspends the run on this call for a person's decision. The call
 * does not run; the step's other calls do, and the run then ends `suspended`, with the
 * call, `reason` and `payload` listed in `state.execution.pendingCalls`. A blocked call
 * stays blocked (fail-closed): it is not suspended. The hook's return is checked: a
 * `reason` that is not a string, or a `payload` that is not JSON (a cycle, `NaN`, a
 * function, deeper than `Json.maxDepth`) is that hook's `HookFailed`, naming the field.
 * With `expiresIn`, the approval expires that long after the context's `createdAt` (the
 * loop's clock reading): see `AgentState.PendingCall.expiresAt`.
 *
 * @since 0.1.0
 * @category combinators
 */
export const suspend: {
  (reason: string, payload?: JsonValue, options?: SuspendOptions): (self: HookContext) => HookContext
  (self: HookContext, reason: string, payload?: JsonValue, options?: SuspendOptions): HookContext
} = dual(
  (args) => isHookContext(args[0]),
  (self: HookContext, reason: string, payload?: JsonValue, options?: SuspendOptions): HookContext =>
    self.toolExecutionBlocked || self.toolCall === undefined || self.toolExecution !== undefined
      ? self
      : patch(self, {
        state: AgentState.suspendCall(
          self.state,
          self.toolCall,
          reason,
          payload,
          options?.expiresIn === undefined ? undefined : { expiresAt: self.createdAt + expiryMillis(options.expiresIn) },
        ),
      }),
)

/**
 * How a call waits: `expiresIn`, how long its approval holds (a `Duration` input:
 * `"2 hours"`, a number of ms), if it expires.
 *
 * @since 0.1.0
 * @category models
 */
export interface SuspendOptions {
  readonly expiresIn?: Duration.Input | undefined
}

// A finite duration >= 0 in ms, else the hook's error naming the field.
const expiryMillis = (input: Duration.Input): number => {
  const parsed = typeof input === "number" && !(input >= 0) ? undefined : Duration.fromInput(input)
  const ms = parsed === undefined || parsed._tag === "None" ? NaN : Duration.toMillis(parsed.value)
  if (Number.isFinite(ms) && ms >= 0) return ms
  throw new HooklineError(invalidConfiguration("expiresIn", `expected a finite duration >= 0 ("2 hours", a number of ms), got ${excerpt(input, 60)}`))
}

/**
 * Adds a stop signal to the state; the loop decides whether to stop.
 *
 * @since 0.1.0
 * @category combinators
 */
export const withStopSignal: {
  (signal: StopSignal): (self: HookContext) => HookContext
  (self: HookContext, signal: StopSignal): HookContext
} = dual(2, (self: HookContext, signal: StopSignal): HookContext => withState(self, AgentState.withStopSignal(self.state, signal)))

/**
 * Asks the loop to go on after a soft stop (OnStop), optionally with a new user
 * message, which joins the history at once. Hard stops cannot be continued.
 *
 * @since 0.1.0
 * @category combinators
 */
export const requestContinuation: {
  (message?: string): (self: HookContext) => HookContext
  (self: HookContext, message?: string): HookContext
} = dual(
  (args) => isHookContext(args[0]),
  (self: HookContext, message?: string): HookContext => {
    const requested = AgentState.withContinuationRequested(self.state, true)
    return withState(self, message === undefined ? requested : AgentState.appendMessage(requested, Message.user(message)))
  },
)

/**
 * Merges entries into the context's metadata (not persisted; see
 * `AgentState.withMetadata` for the state's).
 *
 * @since 0.1.0
 * @category combinators
 */
export const withMetadata: {
  (entries: Metadata): (self: HookContext) => HookContext
  (self: HookContext, entries: Metadata): HookContext
} = dual(2, (self: HookContext, entries: Metadata): HookContext => {
  const metadata = AgentState.mergeMetadata(self.metadata, entries)
  return metadata === self.metadata ? self : patch(self, { metadata })
})

/**
 * Replaces the errors (OnError: transform them).
 *
 * @since 0.1.0
 * @category combinators
 */
export const withErrors: {
  (errors: ReadonlyArray<AgentError>): (self: HookContext) => HookContext
  (self: HookContext, errors: ReadonlyArray<AgentError>): HookContext
} = dual(2, (self: HookContext, errors: ReadonlyArray<AgentError>): HookContext =>
  errors === self.errors || (errors.length === 0 && self.errors.length === 0)
    ? self
    : patch(self, { errors: errors.length === 0 ? noErrors : deepFreeze([...errors]) }))

/**
 * Marks the errors handled (OnError): the loop goes on instead of failing the run.
 *
 * @since 0.1.0
 * @category combinators
 */
export const markErrorsHandled = (self: HookContext): HookContext => withErrors(self, noErrors)

/** @internal the dispatcher stamps `updatedAt` once per dispatch that changed the context. */
export const stampUpdatedAt = (self: HookContext, at: number): HookContext =>
  self.updatedAt === at ? self : patch(self, { updatedAt: at })

/**
 * @internal restores a block a hook tried to lift or rewrite by building a context by
 * hand: the first block's execution (and so its reason) and the blocked call stay.
 */
export const keepBlock = (before: HookContext, after: HookContext): HookContext =>
  before.toolExecutionBlocked
    && (!after.toolExecutionBlocked || after.toolExecution !== before.toolExecution || after.toolCall !== before.toolCall)
    ? patch(after, { toolExecutionBlocked: true, toolExecution: before.toolExecution, toolCall: before.toolCall })
    : after
