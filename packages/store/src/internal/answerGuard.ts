// `Codecs.InferenceResponse.is` and `Codecs.ToolExecution.is`, spelled out with each
// field read by name. Core's `struct` guard reads its fields by a computed key in a loop
// shared by every struct, which costs the journal's entry of each model answer and tool
// result more than the check itself (the delta's guard, read so, cost 60% less:
// internal/deltaGuard.ts). Each answers exactly as core's guard, reading the same fields
// in the same order (test/AnswerGuard.prop.test.ts holds both).
import { Codecs, Json } from "@hookline/core"

// Core's guards of the leaves: `string` (bounded), `finite`, a JSON value, metadata.
const isText = (u: unknown): boolean => typeof u === "string" && u.length <= Json.maxStringLength
const isFinite = (u: unknown): boolean => typeof u === "number" && Number.isFinite(u)
const isJsonValue = Codecs.JsonValue.is
const isMetadata = Codecs.Metadata.is
const isFinishReason = Codecs.FinishReason.is
const isToolError = Codecs.ToolError.is

/** The fields of `Codecs.ToolCall`, `Codecs.Usage` and `Codecs.InferenceResponse` this guard reads, in its order. */
export const callKeys: ReadonlyArray<string> = Object.freeze(["id", "name", "arguments"])
export const usageKeys: ReadonlyArray<string> = Object.freeze(["inputTokens", "outputTokens", "cachedInputTokens", "reasoningTokens"])
export const answerKeys: ReadonlyArray<string> = Object.freeze(["text", "toolCalls", "usage", "finishReason", "modelId", "metadata", "replayed", "reasoning"])

/** `Codecs.ToolCall.is`. */
export const isCall = (u: unknown): boolean => {
  if (typeof u !== "object" || u === null) return false
  const call = u as { readonly id?: unknown; readonly name?: unknown; readonly arguments?: unknown }
  return isText(call.id) && isText(call.name) && isJsonValue(call.arguments)
}

/** `Codecs.Usage.is`. */
export const isUsage = (u: unknown): boolean => {
  if (typeof u !== "object" || u === null) return false
  const usage = u as { readonly inputTokens?: unknown; readonly outputTokens?: unknown; readonly cachedInputTokens?: unknown; readonly reasoningTokens?: unknown }
  if (!isFinite(usage.inputTokens) || !isFinite(usage.outputTokens)) return false
  const cached = usage.cachedInputTokens
  if (cached !== undefined && !isFinite(cached)) return false
  const reasoning = usage.reasoningTokens
  return reasoning === undefined || isFinite(reasoning)
}

// `t.readonlyArray(Codecs.ToolCall).is`: an array whose every item (holes skipped, as
// `every` skips them) is a call.
const isCalls = (u: unknown): boolean => {
  if (!Array.isArray(u)) return false
  const n = u.length
  for (let i = 0; i < n; i++) if (i in u && !isCall(u[i])) return false
  return true
}

/** `Codecs.InferenceResponse.is`. */
export const isAnswer = (u: unknown): boolean => {
  if (typeof u !== "object" || u === null) return false
  const answer = u as {
    readonly text?: unknown
    readonly toolCalls?: unknown
    readonly usage?: unknown
    readonly finishReason?: unknown
    readonly modelId?: unknown
    readonly metadata?: unknown
    readonly replayed?: unknown
    readonly reasoning?: unknown
  }
  if (!isText(answer.text) || !isCalls(answer.toolCalls) || !isUsage(answer.usage) || !isFinishReason(answer.finishReason)) return false
  if (!isText(answer.modelId) || !isMetadata(answer.metadata)) return false
  const replayed = answer.replayed
  if (replayed !== undefined && replayed !== true) return false
  const reasoning = answer.reasoning
  return reasoning === undefined || isText(reasoning)
}

/** The fields of each kind of `Codecs.ToolExecution` this guard reads, in its order (after `status`, read first to dispatch). */
export const executionKeys: Readonly<Record<"success" | "failure" | "blocked", ReadonlyArray<string>>> = Object.freeze({
  success: Object.freeze(["status", "toolCall", "output", "startedAt", "completedAt", "usage", "replayed"]),
  failure: Object.freeze(["status", "toolCall", "error", "startedAt", "completedAt", "usage", "replayed"]),
  blocked: Object.freeze(["status", "toolCall", "reason", "startedAt", "completedAt", "replayed"]),
})

interface ExecutionFields {
  readonly status?: unknown
  readonly toolCall?: unknown
  readonly output?: unknown
  readonly error?: unknown
  readonly reason?: unknown
  readonly startedAt?: unknown
  readonly completedAt?: unknown
  readonly usage?: unknown
  readonly replayed?: unknown
}

const isReplayed = (u: unknown): boolean => u === undefined || u === true

// The fields after the outcome of a success or a failure.
const isRan = (e: ExecutionFields): boolean => {
  if (!isFinite(e.startedAt) || !isFinite(e.completedAt)) return false
  const usage = e.usage
  return (usage === undefined || isUsage(usage)) && isReplayed(e.replayed)
}

/** `Codecs.ToolExecution.is`: dispatched on `status` (read once there, once by the member's guard, as core reads it). */
export const isExecution = (u: unknown): boolean => {
  if (typeof u !== "object" || u === null) return false
  const e = u as ExecutionFields
  switch (e.status) {
    case "success":
      return e.status === "success" && isCall(e.toolCall) && isJsonValue(e.output) && isRan(e)
    case "failure":
      return e.status === "failure" && isCall(e.toolCall) && isToolError(e.error) && isRan(e)
    case "blocked":
      return e.status === "blocked" && isCall(e.toolCall) && isText(e.reason) && isFinite(e.startedAt) && isFinite(e.completedAt) && isReplayed(e.replayed)
    default:
      return false
  }
}
