// `Checkpoint.DeltaCodec.is`, split so that a step's checkpoint does not check again the
// model answer and the tool results its journal entries checked a moment before: the
// step record holds the very same objects (the answer, the executions), and they are
// frozen plain data with no accessor (internal/frozenJson.ts walked them), so the codec's
// guard answers for them what it answered then. It answers exactly as `DeltaCodec.is`
// does (test/DeltaGuard.prop.test.ts), given `checked` answers true only for a value the
// named codec's guard accepted and that cannot change since.
//
// io-ts's `type`/`partial` guards read each key of theirs independently, so the delta's
// guard is the same guard without `steps` and `messages`, and their tails checked apart.
// The step's guard is core's `Codecs.Step` guard (a `struct`: each field's guard on
// `u[key]`), spelled out here field by field; a test reads the keys core's guard reads and
// holds this list to them, so a field added in core fails it until it is added here. So is
// an assistant message's (`Codecs.Message` dispatches on `role`), whose `toolCalls` is
// taken as checked when it is the very array of an answer `checked` vouches for in the
// delta's steps (the loop's assistant message holds its answer's calls).
import { Codecs, Json } from "@hookline/core"
import * as t from "io-ts"
import * as Checkpoint from "../Checkpoint.js"
import * as Envelope from "../Envelope.js"
import { deltaFields, index } from "./deltaFields.js"

/** Whether `u` is a value `codec`'s guard accepted already (and that cannot have changed since). */
export type Checked = (u: unknown, codec: t.Decoder<unknown, unknown>) => boolean

const { steps: _steps, messages: _messages, ...withoutTails } = deltaFields
// What `DeltaCodec` checks (a version 2 delta), the steps and messages aside.
const headV = t.literal(Checkpoint.version)
// `t.type({ v: headV, id: t.string }).is`, read by name (neither guard accepts undefined,
// so `type`'s own-key test for an undefined value answers as they do).
const isHead = (u: unknown): boolean => t.UnknownRecord.is(u) && headV.is((u as { readonly v?: unknown }).v) && t.string.is((u as { readonly id?: unknown }).id)
const restFields = { ...withoutTails, envelope: Envelope.EnvelopeCodec }
// `t.partial(restFields).is(u)` after `isHead(u)` (which asked `t.UnknownRecord.is`):
// each field read by name, in that order, its guard asked when the value is there. A read
// by name has a cache of its own; `t.partial`'s keyed read of 18 names, absent from nearly
// every delta, cost ~0.2 µs a checkpoint. A test holds the names to `DeltaCodec`'s.
const is = (codec: t.Mixed) => codec.is.bind(codec)
const isParentId = is(restFields.parentId)
const isSystemPrompt = is(restFields.systemPrompt)
const isResponseFormat = is(restFields.responseFormat)
const isContextMetadata = is(restFields.contextMetadata)
const isMetadata = is(restFields.metadata)
const isStatus = is(restFields.status)
const isStartedAt = is(restFields.startedAt)
const isRunningSince = is(restFields.runningSince)
const isCompletedAt = is(restFields.completedAt)
const isStopSignals = is(restFields.stopSignals)
const isContinuationRequested = is(restFields.continuationRequested)
const isStopReason = is(restFields.stopReason)
const isExecutionMetadata = is(restFields.executionMetadata)
const isUsage = is(restFields.usage)
const isErrors = is(restFields.errors)
const isPendingCalls = is(restFields.pendingCalls)
const isSuspendedStep = is(restFields.suspendedStep)
const isEnvelope = is(restFields.envelope)
type RestRecord = { readonly [K in keyof typeof restFields]?: unknown }
const isRest = (u: RestRecord): boolean => {
  let v: unknown
  if ((v = u.parentId) !== undefined && !isParentId(v)) return false
  if ((v = u.systemPrompt) !== undefined && !isSystemPrompt(v)) return false
  if ((v = u.responseFormat) !== undefined && !isResponseFormat(v)) return false
  if ((v = u.contextMetadata) !== undefined && !isContextMetadata(v)) return false
  if ((v = u.metadata) !== undefined && !isMetadata(v)) return false
  if ((v = u.status) !== undefined && !isStatus(v)) return false
  if ((v = u.startedAt) !== undefined && !isStartedAt(v)) return false
  if ((v = u.runningSince) !== undefined && !isRunningSince(v)) return false
  if ((v = u.completedAt) !== undefined && !isCompletedAt(v)) return false
  if ((v = u.stopSignals) !== undefined && !isStopSignals(v)) return false
  if ((v = u.continuationRequested) !== undefined && !isContinuationRequested(v)) return false
  if ((v = u.stopReason) !== undefined && !isStopReason(v)) return false
  if ((v = u.executionMetadata) !== undefined && !isExecutionMetadata(v)) return false
  if ((v = u.usage) !== undefined && !isUsage(v)) return false
  if ((v = u.errors) !== undefined && !isErrors(v)) return false
  if ((v = u.pendingCalls) !== undefined && !isPendingCalls(v)) return false
  if ((v = u.suspendedStep) !== undefined && !isSuspendedStep(v)) return false
  if ((v = u.envelope) !== undefined && !isEnvelope(v)) return false
  return true
}

/** The fields `isDelta` reads by name past `v`, `id`, `steps` and `messages`, in its order (a test holds them to `DeltaCodec`'s). */
export const restKeys: ReadonlyArray<string> = Object.freeze([
  "parentId", "systemPrompt", "responseFormat", "contextMetadata", "metadata", "status", "startedAt", "runningSince",
  "completedAt", "stopSignals", "continuationRequested", "stopReason", "executionMetadata", "usage", "errors",
  "pendingCalls", "suspendedStep", "envelope",
])
// `tail(Codecs.Step)`'s and `tail(Codecs.Message)`'s guard without their items' own:
// `t.readonlyArray`'s guard is `Array.isArray(u) && u.every(item.is)`.
// `t.type({ from: index, items: t.UnknownArray }).is`, read by name (as `isHead`).
const isItemsTail = (u: unknown): u is { readonly from: number; readonly items: ReadonlyArray<unknown> } =>
  t.UnknownRecord.is(u) && index.is((u as { readonly from?: unknown }).from) && t.UnknownArray.is((u as { readonly items?: unknown }).items)

const finite = (u: unknown): boolean => typeof u === "number" && Number.isFinite(u)
const optional = (is: (u: unknown) => boolean) => (u: unknown): boolean => u === undefined || is(u)
const array = (is: (u: unknown) => boolean) => (u: unknown): boolean => Array.isArray(u) && u.every(is)

// The step's fields past its answer and executions, each as core's codec guards it, read
// by name in `isStep` in this order (a read by name has a cache of its own).
const isStepIndex = finite
const isStepUsage = Codecs.Usage.is
const isStepFinishReason = optional(Codecs.FinishReason.is)
const isStepStartedAt = finite
const isStepCompletedAt = optional(finite)
const isStepAttempts = optional(array(Codecs.InferenceAttempt.is))
const isStepToolAttempts = optional(array(Codecs.ToolAttempt.is))
const isStepDecisions = optional(t.record(t.string, Codecs.PendingDecision).is)

/** The fields of `Codecs.Step` this guard reads (a test holds them to those core's guard reads). */
export const stepKeys: ReadonlyArray<string> = Object.freeze([
  "response", "toolExecutions", "index", "usage", "finishReason", "startedAt", "completedAt", "attempts", "toolAttempts", "decisions",
])

// `items.every(is)` without a closure per call: `every` reads the length once and skips
// the holes of a sparse array.
const everyItem = (items: ReadonlyArray<unknown>, is: (u: unknown, checked: Checked) => boolean, checked: Checked): boolean => {
  const n = items.length
  for (let i = 0; i < n; i++) if (i in items && !is(items[i], checked)) return false
  return true
}

const isExecution = (u: unknown, checked: Checked): boolean => checked(u, Codecs.ToolExecution) || Codecs.ToolExecution.is(u)

/** `Codecs.Step.is(u)`, skipping the answer and the executions `checked` vouches for. */
export const isStep = (u: unknown, checked: Checked): boolean => {
  if (typeof u !== "object" || u === null) return false
  const step = u as Record<string, unknown>
  const response = step["response"]
  if (response !== undefined && !checked(response, Codecs.InferenceResponse) && !Codecs.InferenceResponse.is(response)) return false
  const executions = step["toolExecutions"]
  if (!Array.isArray(executions) || !everyItem(executions, isExecution, checked)) return false
  return isStepIndex(step["index"]) && isStepUsage(step["usage"]) && isStepFinishReason(step["finishReason"]) && isStepStartedAt(step["startedAt"]) &&
    isStepCompletedAt(step["completedAt"]) && isStepAttempts(step["attempts"]) && isStepToolAttempts(step["toolAttempts"]) && isStepDecisions(step["decisions"])
}

// Core's `string` guard: every text of a message is bounded.
const isText = (u: unknown): boolean => typeof u === "string" && u.length <= Json.maxStringLength
const isToolCalls = t.readonlyArray(Codecs.ToolCall).is

/** The fields of an assistant message this guard reads, in core's order (a test holds them to those core's guard reads). */
export const assistantKeys: ReadonlyArray<string> = Object.freeze(["role", "content", "toolCalls"])

// The answer of step `step`, when `checked` vouches for it (frozen plain data: its
// `toolCalls` is the array its guard checked).
const vouchedAnswer = (step: unknown, checked: Checked): { readonly toolCalls?: unknown } | undefined => {
  const response = typeof step === "object" && step !== null ? (step as { readonly response?: unknown }).response : undefined
  return response !== undefined && checked(response, Codecs.InferenceResponse) ? response as { readonly toolCalls?: unknown } : undefined
}

// Whether one of `steps`' answers is vouched for, and whether `calls` is the tool calls
// array of one: read in place, no array of them made per call (as `for … of` read them).
const anyVouched = (steps: ReadonlyArray<unknown>, checked: Checked): boolean => {
  for (let i = 0; i < steps.length; i++) if (vouchedAnswer(steps[i], checked) !== undefined) return true
  return false
}
const isVouchedCalls = (calls: unknown, steps: ReadonlyArray<unknown>, checked: Checked): boolean => {
  for (let i = 0; i < steps.length; i++) {
    const answer = vouchedAnswer(steps[i], checked)
    if (answer !== undefined && answer.toolCalls === calls) return true
  }
  return false
}

// `Codecs.Message.is(u)`: dispatched on `role` (read once there, once by the member's
// guard, as core reads it); an assistant message's tool calls that are a vouched answer's
// own array are not checked again (that answer's guard checked them with the same codec).
// `vouching`: the delta's step items when one of their answers is vouched for, else undefined.
const isMessage = (u: unknown, vouching: ReadonlyArray<unknown> | undefined, checked: Checked): boolean => {
  if (vouching === undefined || typeof u !== "object" || u === null || (u as { readonly role?: unknown }).role !== "assistant") return Codecs.Message.is(u)
  const message = u as Record<string, unknown>
  if (message["role"] !== "assistant" || !isText(message["content"])) return false
  const calls = message["toolCalls"]
  return isVouchedCalls(calls, vouching, checked) || isToolCalls(calls)
}

/** `Checkpoint.DeltaCodec.is(delta)`, its steps' answers and executions that `checked` vouches for not checked again. */
export const isDelta = (delta: unknown, checked: Checked): boolean => {
  if (!isHead(delta) || !isRest(delta as RestRecord)) return false
  const steps = (delta as { readonly steps?: unknown }).steps
  if (steps !== undefined && !(isItemsTail(steps) && everyItem(steps.items, isStep, checked))) return false
  const messages = (delta as { readonly messages?: unknown }).messages
  if (messages === undefined) return true
  if (!isItemsTail(messages)) return false
  const stepItems = steps === undefined ? undefined : (steps as { readonly items: ReadonlyArray<unknown> }).items
  const vouching = stepItems !== undefined && anyVouched(stepItems, checked) ? stepItems : undefined
  // `every` over the items as everyItem reads them, the steps passed along: no closure per call.
  const items = messages.items as ReadonlyArray<unknown>
  const n = items.length
  for (let i = 0; i < n; i++) if (i in items && !isMessage(items[i], vouching, checked)) return false
  return true
}
