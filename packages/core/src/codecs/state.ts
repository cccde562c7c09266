/**
 * Codecs for the run's record and the hook context: stop signals, tool executions,
 * steps, the state (context, execution, metadata) and the context around it.
 *
 * A rule added to a codec of the state's parts (a field's bound, a value its builder
 * rewrites) goes into `itself.ts` too: the agent's entry keeps a state that check vouches
 * for without decoding it.
 *
 * @since 0.1.0
 */
import * as t from "io-ts"
import { pipe } from "effect/Function"
import * as AgentState_ from "../AgentState.js"
import * as HookContext_ from "../HookContext.js"
import * as Step_ from "../Step.js"
import * as StopReason_ from "../StopReason.js"
import * as StopSignal_ from "../StopSignal.js"
import { isLeft } from "fp-ts/lib/Either.js"
import * as ToolExecution_ from "../ToolExecution.js"
import { appendLog, array, finite, literals, optional, string, struct, tagged } from "./combinators.js"
import { remembering } from "./built.js"
import { InferenceFailed, plainAgentError, ToolError } from "./errors.js"
import { InferenceRequest, InferenceResponse, plainResponseFormat, plainUsage } from "./inference.js"
import { emptyMetadata } from "../Json.js"
import { JsonValue, plainMetadata } from "./json.js"
import { ExecutionStatus, FinishReason, HookTrigger, StopReason } from "./literals.js"
import { plainMessage, ToolCall } from "./messages.js"

const signalFields = struct(
  "StopSignal",
  { reason: string, message: string, source: string, priority: optional(finite), kind: optional(literals<StopReason_.Kind>(["hard", "soft"])) },
  (fields) => fields,
)

/** @internal `StopSignal` without remembering what it builds: the codecs built on it. */
export const plainStopSignal = new t.Type<StopSignal_.StopSignal, t.OutputOf<typeof signalFields>, unknown>(
  "StopSignal",
  (u): u is StopSignal_.StopSignal =>
    signalFields.is(u) && (StopReason.is(u.reason)
      ? u.priority === undefined && u.kind === undefined
      : StopReason_.customProblem(u.reason, u.priority, u.kind) === undefined),
  (u, c): t.Validation<StopSignal_.StopSignal> => {
    const decoded = signalFields.validate(u, c)
    if (isLeft(decoded)) return decoded
    const { reason, message, source, priority, kind } = decoded.right
    const at = (key: string, value: unknown, detail: string) =>
      t.failure<StopSignal_.StopSignal>(value, t.appendContext(c, key, t.unknown, value), detail)
    if (StopReason.is(reason)) {
      if (priority !== undefined) return at("priority", priority, `the priority of the built-in reason "${reason}" is fixed: leave it out`)
      if (kind !== undefined) return at("kind", kind, `the kind of the built-in reason "${reason}" is fixed: leave it out`)
      return t.success(StopSignal_.make(reason, message, source))
    }
    if (priority === undefined && kind === undefined) {
      return at("reason", reason, `expected a built-in reason (${StopReason.name}), or a custom reason with its priority and kind`)
    }
    const problem = StopReason_.customProblem(reason, priority, kind)
    if (problem !== undefined) {
      const key = problem.path === "name" ? "reason" : problem.path
      return at(key, key === "reason" ? reason : key === "priority" ? priority : kind, problem.detail)
    }
    return t.success(StopSignal_.make(StopReason_.custom({ name: reason, priority: priority!, kind: kind! }), message, source))
  },
  (signal) => signalFields.encode({ ...signal, priority: signal.priority, kind: signal.kind }),
)

/**
 * A stop signal: a built-in reason (no priority, no kind: they are fixed), or a custom
 * reason with its declared priority and kind (`StopReason.custom`).
 *
 * @since 0.1.0
 * @category codecs
 */
export const StopSignal = remembering(plainStopSignal)

// Optional, so a state written before the flag existed still decodes.
const replayedFlag = optional(t.literal(true))

const replayedIf = <E extends ToolExecution_.ToolExecution>(execution: E, replayed: true | undefined): E =>
  replayed === true ? ToolExecution_.asReplayed(execution) : execution

// The fields after the outcome, shared by a success and a failure.
const ranFields = { startedAt: finite, completedAt: finite, usage: optional(plainUsage), replayed: replayedFlag }

const success = struct(
  "Success",
  { status: t.literal("success"), toolCall: ToolCall, output: JsonValue, ...ranFields },
  ({ toolCall, output, startedAt, completedAt, usage, replayed }) =>
    replayedIf(ToolExecution_.withUsage(ToolExecution_.success(toolCall, output, startedAt, completedAt), usage) as ToolExecution_.Success, replayed),
)

const failure = struct(
  "Failure",
  { status: t.literal("failure"), toolCall: ToolCall, error: ToolError, ...ranFields },
  ({ toolCall, error, startedAt, completedAt, usage, replayed }) =>
    replayedIf(ToolExecution_.withUsage(ToolExecution_.failure(toolCall, error, startedAt, completedAt), usage) as ToolExecution_.Failure, replayed),
)

const blocked = struct(
  "Blocked",
  { status: t.literal("blocked"), toolCall: ToolCall, reason: string, startedAt: finite, completedAt: finite, replayed: replayedFlag },
  ({ toolCall, reason, startedAt, completedAt, replayed }): ToolExecution_.Blocked => {
    const made = ToolExecution_.blocked(toolCall, reason, startedAt)
    // `blocked` takes one time; keep a different completion time as encoded.
    return replayedIf(made.completedAt === completedAt ? made : Object.freeze({ ...made, completedAt }), replayed)
  },
)

/**
 * A tool execution, dispatched on `status`: success, failure or blocked.
 *
 * @since 0.1.0
 * @category codecs
 */
export const ToolExecution = tagged("ToolExecution", "status", { success, failure, blocked })

/**
 * One model call of a step (wrap hooks).
 *
 * @since 0.1.0
 * @category codecs
 */
export const InferenceAttempt = struct(
  "InferenceAttempt",
  { modelId: optional(string), startedAt: finite, durationMs: finite, usage: plainUsage, error: optional(InferenceFailed) },
  (fields) => Step_.inferenceAttempt(fields),
)

/**
 * One tool execution of a step (wrap hooks).
 *
 * @since 0.1.0
 * @category codecs
 */
export const ToolAttempt = struct(
  "ToolAttempt",
  { toolCallId: string, toolName: string, startedAt: finite, durationMs: finite, error: optional(ToolError) },
  (fields) => Step_.toolAttempt(fields),
)

/**
 * A decision kept with its pending call, dispatched on `_tag`.
 *
 * @since 0.1.0
 * @category codecs
 */
export const PendingDecision = tagged("PendingDecision", "_tag", {
  Approve: struct(
    "Approve",
    { _tag: t.literal("Approve"), by: optional(string), reason: optional(string) },
    ({ by, reason }) => Object.freeze({ _tag: "Approve" as const, ...decidedBy(by, reason) }),
  ),
  Edit: struct(
    "Edit",
    { _tag: t.literal("Edit"), arguments: JsonValue, by: optional(string), reason: optional(string) },
    ({ arguments: args, by, reason }) => Object.freeze({ _tag: "Edit" as const, arguments: args, ...decidedBy(by, reason) }),
  ),
  Reject: struct(
    "Reject",
    { _tag: t.literal("Reject"), message: string, by: optional(string), reason: optional(string) },
    ({ message, by, reason }) => Object.freeze({ _tag: "Reject" as const, message, ...decidedBy(by, reason) }),
  ),
})

// Who decided and why, only when given (a decision stored before them decodes as it was).
const decidedBy = (by: string | undefined, reason: string | undefined) => ({
  ...(by === undefined ? {} : { by }),
  ...(reason === undefined ? {} : { reason }),
})

/** @internal `Step` without remembering what it builds: the codecs built on it. */
export const plainStep = struct(
  "Step",
  {
    index: finite,
    response: optional(InferenceResponse),
    toolExecutions: array(ToolExecution),
    usage: plainUsage,
    finishReason: optional(FinishReason),
    startedAt: finite,
    completedAt: optional(finite),
    attempts: optional(array(InferenceAttempt)),
    toolAttempts: optional(array(ToolAttempt)),
    // Bounded as any stored JSON object is (the checkpoint's item and byte limits).
    decisions: optional(t.record(string, PendingDecision)),
  },
  (fields): Step_.Step => {
    const made = Step_.make(fields)
    // `Step.make` takes a missing finish reason from the response: keep it missing.
    return made.finishReason === fields.finishReason ? made : Object.freeze({ ...made, finishReason: fields.finishReason })
  },
)

/**
 * A step of the loop.
 *
 * @since 0.1.0
 * @category codecs
 */
export const Step = remembering(plainStep)

/**
 * The conversation part of a state; its messages decode into an `AppendLog`.
 *
 * @since 0.1.0
 * @category codecs
 */
export const AgentContext = struct(
  "AgentContext",
  { systemPrompt: string, responseFormat: optional(plainResponseFormat), messages: appendLog(plainMessage), metadata: plainMetadata },
  ({ systemPrompt, responseFormat, messages, metadata }): AgentState_.AgentContext =>
    Object.freeze({ systemPrompt, responseFormat, messages, metadata }),
)

/** @internal `PendingCall` without remembering what it builds: the codecs built on it. */
export const plainPendingCall = struct(
  "PendingCall",
  { toolCall: ToolCall, reason: string, payload: optional(JsonValue), decision: optional(PendingDecision), expiresAt: optional(finite) },
  ({ toolCall, reason, payload, decision, expiresAt }): AgentState_.PendingCall =>
    Object.freeze({
      toolCall,
      reason,
      ...(payload === undefined ? {} : { payload }),
      ...(decision === undefined ? {} : { decision }),
      ...(expiresAt === undefined ? {} : { expiresAt }),
    }),
)

/**
 * A call waiting for a decision.
 *
 * @since 0.1.0
 * @category codecs
 */
export const PendingCall = remembering(plainPendingCall)

/**
 * The execution record of a state; its steps decode into an `AppendLog`.
 *
 * @since 0.1.0
 * @category codecs
 */
export const Execution = struct(
  "Execution",
  {
    status: ExecutionStatus,
    startedAt: optional(finite),
    completedAt: optional(finite),
    steps: appendLog(plainStep),
    stopSignals: array(plainStopSignal),
    continuationRequested: t.boolean,
    usage: plainUsage,
    errors: array(plainAgentError),
    // Optional: states encoded before these fields existed still decode.
    stopReason: optional(string),
    metadata: optional(plainMetadata),
    pendingCalls: optional(array(plainPendingCall)),
    suspendedStep: optional(plainStep),
    runningSince: optional(finite),
  },
  (fields): AgentState_.Execution =>
    Object.freeze({
      status: fields.status,
      startedAt: fields.startedAt,
      runningSince: fields.runningSince,
      completedAt: fields.completedAt,
      steps: fields.steps,
      stopSignals: fields.stopSignals,
      continuationRequested: fields.continuationRequested,
      usage: fields.usage,
      errors: fields.errors,
      stopReason: fields.stopReason,
      metadata: fields.metadata ?? emptyMetadata,
      ...(fields.pendingCalls === undefined ? {} : { pendingCalls: fields.pendingCalls }),
      ...(fields.suspendedStep === undefined ? {} : { suspendedStep: fields.suspendedStep }),
    }),
)

/** @internal `AgentState` without remembering what it builds: the codecs built on it. */
export const plainAgentState = struct(
  "AgentState",
  { id: string, parentId: optional(string), context: AgentContext, execution: Execution, metadata: plainMetadata },
  ({ id, parentId, context, execution, metadata }) =>
    pipe(
      AgentState_.make({ id, parentId, metadata }),
      AgentState_.withContext(context),
      AgentState_.withExecution(execution),
    ),
)

/**
 * A whole agent state: a checkpoint, a trace entry.
 *
 * @since 0.1.0
 * @category codecs
 */
export const AgentState = remembering(plainAgentState)

/**
 * A hook context with its state and the optional data of its trigger.
 *
 * @since 0.1.0
 * @category codecs
 */
export const HookContext = struct(
  "HookContext",
  {
    trigger: HookTrigger,
    state: plainAgentState,
    request: optional(InferenceRequest),
    response: optional(InferenceResponse),
    toolCall: optional(ToolCall),
    toolExecution: optional(ToolExecution),
    toolExecutionBlocked: t.boolean,
    errors: array(plainAgentError),
    metadata: plainMetadata,
    createdAt: finite,
    updatedAt: finite,
  },
  (fields) => HookContext_.make(fields),
)
