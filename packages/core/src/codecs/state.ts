/**
 * Codecs for the run's record and the hook context: stop signals, tool executions,
 * steps, the state (context, execution, metadata) and the context around it.
 *
 * @since 0.1.0
 */
import * as t from "io-ts"
import { pipe } from "effect/Function"
import * as AgentState_ from "../AgentState.js"
import * as HookContext_ from "../HookContext.js"
import * as Step_ from "../Step.js"
import * as StopSignal_ from "../StopSignal.js"
import * as ToolExecution_ from "../ToolExecution.js"
import { appendLog, array, finite, optional, struct, tagged } from "./combinators.js"
import { AgentError, InferenceFailed, ToolError } from "./errors.js"
import { InferenceRequest, InferenceResponse, ResponseFormat, Usage } from "./inference.js"
import { JsonValue, Metadata } from "./json.js"
import { ExecutionStatus, FinishReason, HookTrigger, StopReason } from "./literals.js"
import { Message, ToolCall } from "./messages.js"

/**
 * A stop signal.
 *
 * @since 0.1.0
 * @category codecs
 */
export const StopSignal = struct(
  "StopSignal",
  { reason: StopReason, message: t.string, source: t.string },
  ({ reason, message, source }) => StopSignal_.make(reason, message, source),
)

const success = struct(
  "Success",
  { status: t.literal("success"), toolCall: ToolCall, output: JsonValue, startedAt: finite, completedAt: finite },
  ({ toolCall, output, startedAt, completedAt }) => ToolExecution_.success(toolCall, output, startedAt, completedAt),
)

const failure = struct(
  "Failure",
  { status: t.literal("failure"), toolCall: ToolCall, error: ToolError, startedAt: finite, completedAt: finite },
  ({ toolCall, error, startedAt, completedAt }) => ToolExecution_.failure(toolCall, error, startedAt, completedAt),
)

const blocked = struct(
  "Blocked",
  { status: t.literal("blocked"), toolCall: ToolCall, reason: t.string, startedAt: finite, completedAt: finite },
  ({ toolCall, reason, startedAt, completedAt }): ToolExecution_.Blocked => {
    const made = ToolExecution_.blocked(toolCall, reason, startedAt)
    // `blocked` takes one time; keep a different completion time as encoded.
    return made.completedAt === completedAt ? made : Object.freeze({ ...made, completedAt })
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
 * @since 0.2.0
 * @category codecs
 */
export const InferenceAttempt = struct(
  "InferenceAttempt",
  { modelId: optional(t.string), startedAt: finite, durationMs: finite, usage: Usage, error: optional(InferenceFailed) },
  (fields) => Step_.inferenceAttempt(fields),
)

/**
 * One tool execution of a step (wrap hooks).
 *
 * @since 0.2.0
 * @category codecs
 */
export const ToolAttempt = struct(
  "ToolAttempt",
  { toolCallId: t.string, toolName: t.string, startedAt: finite, durationMs: finite, error: optional(ToolError) },
  (fields) => Step_.toolAttempt(fields),
)

/**
 * A step of the loop.
 *
 * @since 0.1.0
 * @category codecs
 */
export const Step = struct(
  "Step",
  {
    index: finite,
    response: optional(InferenceResponse),
    toolExecutions: array(ToolExecution),
    usage: Usage,
    finishReason: optional(FinishReason),
    startedAt: finite,
    completedAt: optional(finite),
    attempts: optional(array(InferenceAttempt)),
    toolAttempts: optional(array(ToolAttempt)),
  },
  (fields): Step_.Step => {
    const made = Step_.make(fields)
    // `Step.make` takes a missing finish reason from the response: keep it missing.
    return made.finishReason === fields.finishReason ? made : Object.freeze({ ...made, finishReason: fields.finishReason })
  },
)

/**
 * The conversation part of a state; its messages decode into an `AppendLog`.
 *
 * @since 0.1.0
 * @category codecs
 */
export const AgentContext = struct(
  "AgentContext",
  { systemPrompt: t.string, responseFormat: optional(ResponseFormat), messages: appendLog(Message), metadata: Metadata },
  ({ systemPrompt, responseFormat, messages, metadata }): AgentState_.AgentContext =>
    Object.freeze({ systemPrompt, responseFormat, messages, metadata }),
)

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
    steps: appendLog(Step),
    stopSignals: array(StopSignal),
    continuationRequested: t.boolean,
    usage: Usage,
    errors: array(AgentError),
  },
  (fields): AgentState_.Execution =>
    Object.freeze({
      status: fields.status,
      startedAt: fields.startedAt,
      completedAt: fields.completedAt,
      steps: fields.steps,
      stopSignals: fields.stopSignals,
      continuationRequested: fields.continuationRequested,
      usage: fields.usage,
      errors: fields.errors,
    }),
)

/**
 * A whole agent state: a checkpoint, a trace entry.
 *
 * @since 0.1.0
 * @category codecs
 */
export const AgentState = struct(
  "AgentState",
  { id: t.string, parentId: optional(t.string), context: AgentContext, execution: Execution, metadata: Metadata },
  ({ id, parentId, context, execution, metadata }) =>
    pipe(
      AgentState_.make({ id, parentId, metadata }),
      AgentState_.withContext(context),
      AgentState_.withExecution(execution),
    ),
)

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
    state: AgentState,
    request: optional(InferenceRequest),
    response: optional(InferenceResponse),
    toolCall: optional(ToolCall),
    toolExecution: optional(ToolExecution),
    toolExecutionBlocked: t.boolean,
    errors: array(AgentError),
    metadata: Metadata,
    createdAt: finite,
    updatedAt: finite,
  },
  (fields) => HookContext_.make(fields),
)
