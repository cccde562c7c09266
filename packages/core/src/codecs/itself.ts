// Whether a state is what `AgentState`'s decode would answer, as it is: the agent's entry
// keeps such a state without building the decode's copy (a full copy of the history, only
// to be dropped: ~14 MB and 3-8 ms at 10,000 messages; docs/performance.md).
//
// Not the codecs' guards (`is`): several are looser than their decode (io-ts's array
// guard skips holes and bounds no length, the JSON guard bounds no item count, a record's
// guard takes an array, none sees -0 or a key the decode drops) and none asks whether a
// value can answer a later read otherwise. So this is its own check, one walk, of the
// decode's answer's shape: every record is frozen plain data of `Object.prototype` (no
// Proxy, no accessor, no hidden or symbol key) holding only the keys its codec reads,
// every array a frozen plain array of exactly its items, every log core's own, within
// `maxItems`; every string within `maxStringLength`, every number finite and not -0, every
// tag known; and no value a builder would change (a zero usage detail, an execution's
// zero usage, an empty reasoning, a message `Truncation.truncate` would cut, a missing
// execution metadata). Anything else answers false and is decoded as before: false is
// always safe, so where this and the codecs disagree it must be false (a property test
// holds: true ⇒ the decode accepts it and answers a value deep-equal to it).
// Under the default bounds only (`defaultLimits`, the entry's).
import * as AppendLog from "../AppendLog.js"
import { maxDepth, maxStringLength } from "../internal/limits.js"
import { isProxy } from "../internal/plainData.js"
import * as StopReason_ from "../StopReason.js"
import { truncate } from "../Truncation.js"
import { defaultLimits } from "./combinators.js"
import { ExecutionStatus, FinishReason, HookPoint, HookTrigger, StopReason } from "./literals.js"

type Record_ = Readonly<Record<string, unknown>>

const maxItems = defaultLimits.maxItems
const logPrototype: unknown = Object.getPrototypeOf(AppendLog.empty())
const keys = (...names: ReadonlyArray<string>): ReadonlySet<string> => new Set(names)

// Frozen plain data, no Proxy (the caller has checked `isProxy` exists): the cheap
// refusals first, one descriptor per key last.
const isFrozenObject = (u: unknown): u is object =>
  typeof u === "object" && u !== null && !isProxy!(u) && Object.isFrozen(u)

// Every own key an enumerable data property, and (when `known` is given) one the codec reads.
const plainKeys = (u: object, known: ReadonlySet<string> | undefined): boolean => {
  if (Object.getOwnPropertySymbols(u).length !== 0) return false
  for (const key of Object.getOwnPropertyNames(u)) {
    if (known !== undefined && !known.has(key)) return false
    const property = Object.getOwnPropertyDescriptor(u, key) as PropertyDescriptor
    if (!("value" in property) || property.enumerable !== true) return false
  }
  return true
}

// A record of `known` keys, as a codec's builder makes it.
const record = (u: unknown, known: ReadonlySet<string>): u is Record_ =>
  isFrozenObject(u) && Object.getPrototypeOf(u) === Object.prototype && plainKeys(u, known)

// A tagged record's tag, when it is one of `members` and the record holds only the keys
// that member may: its own keys are checked as data properties before the tag is read.
const tagOf = (u: unknown, tag: string, members: ReadonlyMap<unknown, ReadonlySet<string>>): unknown => {
  if (!isFrozenObject(u) || Object.getPrototypeOf(u) !== Object.prototype || Object.getOwnPropertySymbols(u).length !== 0) return undefined
  const names = Object.getOwnPropertyNames(u)
  for (const key of names) {
    const property = Object.getOwnPropertyDescriptor(u, key) as PropertyDescriptor
    if (!("value" in property) || property.enumerable !== true) return undefined
  }
  const value = (u as Record_)[tag]
  const known = members.get(value)
  if (known === undefined) return undefined
  for (const key of names) if (!known.has(key)) return undefined
  return value
}

// A frozen plain array of exactly `length` items: no hole, no other key, no accessor.
const items = (u: unknown): u is ReadonlyArray<unknown> => {
  if (!Array.isArray(u) || u.length > maxItems || !isFrozenObject(u) || Object.getPrototypeOf(u) !== Array.prototype) return false
  if (Object.getOwnPropertySymbols(u).length !== 0 || Object.getOwnPropertyNames(u).length !== u.length + 1) return false
  for (let i = 0; i < u.length; i++) {
    const property = Object.getOwnPropertyDescriptor(u, i)
    if (property === undefined || !("value" in property) || property.enumerable !== true) return false
  }
  return true
}

const array = (u: unknown, item: (u: unknown) => boolean): boolean => {
  if (!items(u)) return false
  for (let i = 0; i < u.length; i++) if (!item(u[i])) return false
  return true
}

// Core's own log (not a subclass, not a Proxy; its constructor froze it with its one
// brand key), within the bound. A forged object of its prototype throws on `toArray`.
const log = (u: unknown, item: (u: unknown) => boolean): boolean => {
  if (!isFrozenObject(u) || Object.getPrototypeOf(u) !== logPrototype) return false
  const all = (u as AppendLog.AppendLog<unknown>).toArray()
  // A log made (`unsafeMake`) with a length its items do not have reads otherwise by index.
  if (all.length > maxItems || all.length !== (u as AppendLog.AppendLog<unknown>).length) return false
  for (let i = 0; i < all.length; i++) if (!item(all[i])) return false
  return true
}

const string = (u: unknown): boolean => typeof u === "string" && u.length <= maxStringLength
// The decode reads -0 as 0: a state holding one is not its decode's answer.
const finite = (u: unknown): boolean => typeof u === "number" && Number.isFinite(u) && !(u === 0 && 1 / u < 0)
const optional = (check: (u: unknown) => boolean) => (u: unknown): boolean => u === undefined || check(u)
const optionalString = optional(string)
const optionalFinite = optional(finite)
const boolean = (u: unknown): boolean => typeof u === "boolean"
// A message the builder does not cut (`Truncation.truncate`, the error and signal builders').
const untruncated = (u: unknown): boolean => string(u) && truncate(u as string) === u

// JSON, as the JSON codec's walk reads it: the same depth, item and string bounds.
const json = (u: unknown, depth: number): boolean => {
  switch (typeof u) {
    case "string":
      return u.length <= maxStringLength
    case "boolean":
      return true
    case "number":
      return finite(u)
    case "object":
      break
    default:
      return false
  }
  if (u === null) return true
  if (depth >= maxDepth) return false
  if (Array.isArray(u)) {
    if (!items(u)) return false
    for (let i = 0; i < u.length; i++) if (!json(u[i], depth + 1)) return false
    return true
  }
  return jsonObject(u, depth)
}

const jsonObject = (u: unknown, depth: number): boolean => {
  if (!isFrozenObject(u) || Array.isArray(u)) return false
  const prototype: unknown = Object.getPrototypeOf(u)
  if (prototype !== Object.prototype && prototype !== null) return false
  if (!plainKeys(u, undefined)) return false
  const names = Object.keys(u)
  if (names.length > maxItems) return false
  for (const key of names) if (key.length > maxStringLength || !json((u as Record_)[key], depth + 1)) return false
  return true
}

const jsonValue = (u: unknown): boolean => json(u, 0)
const metadata = (u: unknown): boolean => jsonObject(u, 0)

const toolCallKeys = keys("id", "name", "arguments")
const toolCall = (u: unknown): boolean => record(u, toolCallKeys) && string(u["id"]) && string(u["name"]) && jsonValue(u["arguments"])

const messageKeys: ReadonlyMap<unknown, ReadonlySet<string>> = new Map([
  ["system", keys("role", "content")],
  ["user", keys("role", "content")],
  ["assistant", keys("role", "content", "toolCalls")],
  ["tool", keys("role", "toolCallId", "toolName", "content", "isError")],
])
const message = (u: unknown): boolean => {
  const role = tagOf(u, "role", messageKeys)
  const m = u as Record_
  if (role === undefined || !string(m["content"])) return false
  if (role === "assistant") return array(m["toolCalls"], toolCall)
  if (role === "tool") return string(m["toolCallId"]) && string(m["toolName"]) && boolean(m["isError"])
  return true
}

// `Usage.make` leaves a zero detail out.
const usageKeys = keys("inputTokens", "outputTokens", "cachedInputTokens", "reasoningTokens")
const detail = (u: unknown): boolean => u === undefined || (finite(u) && u !== 0)
const usage = (u: unknown): u is Record_ =>
  record(u, usageKeys) && finite(u["inputTokens"]) && finite(u["outputTokens"]) && detail(u["cachedInputTokens"]) && detail(u["reasoningTokens"])

const formatKeys: ReadonlyMap<unknown, ReadonlySet<string>> = new Map([
  ["text", keys("type")],
  ["json", keys("type", "schema", "name", "description")],
])
const responseFormat = (u: unknown): boolean => {
  const type = tagOf(u, "type", formatKeys)
  const f = u as Record_
  return type === "text" || type === "json" && (optional(metadata)(f["schema"]) && optionalString(f["name"]) && optionalString(f["description"]))
}

const errorKeys: ReadonlyMap<unknown, readonly [ReadonlySet<string>, (e: Record_) => boolean]> = new Map([
  ["HookFailed", [keys("_tag", "hook", "trigger", "message"), (e) => string(e["hook"]) && HookPoint.is(e["trigger"]) && string(e["message"])]],
  ["HookIsEffectful", [keys("_tag", "hook", "trigger", "message"), (e) => string(e["hook"]) && HookTrigger.is(e["trigger"]) && string(e["message"])]],
  // `AgentError.inferenceFailed` cuts the message and leaves out a negative retry hint.
  ["InferenceFailed", [keys("_tag", "message", "status", "retryable", "retryAfterMs"), (e) =>
    untruncated(e["message"]) && optionalFinite(e["status"]) && boolean(e["retryable"])
    && (e["retryAfterMs"] === undefined || (finite(e["retryAfterMs"]) && (e["retryAfterMs"] as number) >= 0))]],
  ["ToolFailed", [keys("_tag", "toolCallId", "toolName", "message"), (e) => string(e["toolCallId"]) && string(e["toolName"]) && string(e["message"])]],
  ["ToolTimedOut", [keys("_tag", "toolCallId", "toolName", "timeoutMs", "message"), (e) =>
    string(e["toolCallId"]) && string(e["toolName"]) && finite(e["timeoutMs"]) && string(e["message"])]],
  ["ToolBlocked", [keys("_tag", "toolCallId", "toolName", "reason", "message"), (e) =>
    string(e["toolCallId"]) && string(e["toolName"]) && string(e["reason"]) && string(e["message"])]],
  ["ToolArgumentsInvalid", [keys("_tag", "toolCallId", "toolName", "path", "message"), (e) =>
    string(e["toolCallId"]) && string(e["toolName"]) && string(e["path"]) && string(e["message"])]],
  ["UnknownTool", [keys("_tag", "toolCallId", "toolName", "message"), (e) => string(e["toolCallId"]) && string(e["toolName"]) && string(e["message"])]],
  ["InvalidConfiguration", [keys("_tag", "path", "message"), (e) => string(e["path"]) && string(e["message"])]],
  ["DecodeFailed", [keys("_tag", "path", "message"), (e) => string(e["path"]) && string(e["message"])]],
  ["Aborted", [keys("_tag", "message"), (e) => string(e["message"])]],
])
const toolErrorTags: ReadonlySet<unknown> = new Set(["ToolFailed", "ToolTimedOut", "UnknownTool", "ToolArgumentsInvalid"])

const errorTagKeys: ReadonlyMap<unknown, ReadonlySet<string>> = new Map(Array.from(errorKeys, ([tag, [known]]) => [tag, known]))
const errorOf = (u: unknown, tags: ReadonlySet<unknown> | undefined): boolean => {
  const tag = tagOf(u, "_tag", errorTagKeys)
  return tag !== undefined && (tags === undefined || tags.has(tag)) && errorKeys.get(tag)![1](u as Record_)
}
const agentError = (u: unknown): boolean => errorOf(u, undefined)
const toolError = (u: unknown): boolean => errorOf(u, toolErrorTags)
const inferenceFailedTags: ReadonlySet<unknown> = new Set(["InferenceFailed"])
const inferenceFailed = (u: unknown): boolean => errorOf(u, inferenceFailedTags)

// `InferenceResponse.make` leaves an empty reasoning out.
const responseKeys = keys("text", "toolCalls", "usage", "finishReason", "modelId", "metadata", "replayed", "reasoning")
const response = (u: unknown): boolean =>
  record(u, responseKeys) && string(u["text"]) && array(u["toolCalls"], toolCall) && usage(u["usage"]) && FinishReason.is(u["finishReason"])
  && string(u["modelId"]) && metadata(u["metadata"]) && (u["replayed"] === undefined || u["replayed"] === true)
  && (u["reasoning"] === undefined || (string(u["reasoning"]) && u["reasoning"] !== ""))

// `ToolExecution.withUsage` leaves out a usage of no tokens.
const ranUsage = (u: unknown): boolean => u === undefined || (usage(u) && (u["inputTokens"] as number) + (u["outputTokens"] as number) !== 0)
const replayed = (u: unknown): boolean => u === undefined || u === true
const executionKeys: ReadonlyMap<unknown, ReadonlySet<string>> = new Map([
  ["success", keys("status", "toolCall", "output", "startedAt", "completedAt", "usage", "replayed")],
  ["failure", keys("status", "toolCall", "error", "startedAt", "completedAt", "usage", "replayed")],
  ["blocked", keys("status", "toolCall", "reason", "startedAt", "completedAt", "replayed")],
])
const toolExecution = (u: unknown): boolean => {
  const status = tagOf(u, "status", executionKeys)
  const x = u as Record_
  if (status === undefined || !toolCall(x["toolCall"]) || !finite(x["startedAt"]) || !finite(x["completedAt"]) || !replayed(x["replayed"])) return false
  if (status === "success") return jsonValue(x["output"]) && ranUsage(x["usage"])
  if (status === "failure") return toolError(x["error"]) && ranUsage(x["usage"])
  return string(x["reason"])
}

const inferenceAttemptKeys = keys("modelId", "startedAt", "durationMs", "usage", "error")
const inferenceAttempt = (u: unknown): boolean =>
  record(u, inferenceAttemptKeys) && optionalString(u["modelId"]) && finite(u["startedAt"]) && finite(u["durationMs"]) && usage(u["usage"])
  && optional(inferenceFailed)(u["error"])

const toolAttemptKeys = keys("toolCallId", "toolName", "startedAt", "durationMs", "error")
const toolAttempt = (u: unknown): boolean =>
  record(u, toolAttemptKeys) && string(u["toolCallId"]) && string(u["toolName"]) && finite(u["startedAt"]) && finite(u["durationMs"])
  && optional(toolError)(u["error"])

const decisionKeys: ReadonlyMap<unknown, ReadonlySet<string>> = new Map([
  ["Approve", keys("_tag", "by", "reason")],
  ["Edit", keys("_tag", "arguments", "by", "reason")],
  ["Reject", keys("_tag", "message", "by", "reason")],
])
const decision = (u: unknown): boolean => {
  const tag = tagOf(u, "_tag", decisionKeys)
  const d = u as Record_
  if (tag === undefined || !optionalString(d["by"]) || !optionalString(d["reason"])) return false
  if (tag === "Edit") return jsonValue(d["arguments"])
  if (tag === "Reject") return string(d["message"])
  return true
}

// io-ts's record: it drops a key its domain refuses, and sets `__proto__` as a prototype.
const decisions = (u: unknown): boolean => {
  if (!isFrozenObject(u) || Array.isArray(u) || Object.getPrototypeOf(u) !== Object.prototype || !plainKeys(u, undefined)) return false
  for (const key of Object.keys(u)) if (key === "__proto__" || !string(key) || !decision((u as Record_)[key])) return false
  return true
}

const stepKeys = keys(
  "index", "response", "toolExecutions", "usage", "finishReason", "startedAt", "completedAt", "attempts", "toolAttempts", "decisions",
)
const step = (u: unknown): boolean =>
  record(u, stepKeys) && finite(u["index"]) && finite(u["startedAt"]) && optionalFinite(u["completedAt"])
  && optional(FinishReason.is)(u["finishReason"]) && usage(u["usage"]) && optional(response)(u["response"])
  && array(u["toolExecutions"], toolExecution) && optional((a) => array(a, inferenceAttempt))(u["attempts"])
  && optional((a) => array(a, toolAttempt))(u["toolAttempts"]) && optional(decisions)(u["decisions"])

// A built-in reason has no priority nor kind; a custom one has both, as `StopReason.custom` takes them.
const signalKeys = keys("reason", "message", "source", "priority", "kind")
const stopSignal = (u: unknown): boolean => {
  if (!record(u, signalKeys) || !string(u["reason"]) || !untruncated(u["message"]) || !string(u["source"])) return false
  const { reason, priority, kind } = u
  if (StopReason.is(reason)) return priority === undefined && kind === undefined
  return finite(priority) && (kind === "hard" || kind === "soft") && StopReason_.customProblem(reason, priority, kind) === undefined
}

const pendingCallKeys = keys("toolCall", "reason", "payload", "decision", "expiresAt")
const pendingCall = (u: unknown): boolean =>
  record(u, pendingCallKeys) && toolCall(u["toolCall"]) && string(u["reason"]) && optional(jsonValue)(u["payload"])
  && optional(decision)(u["decision"]) && optionalFinite(u["expiresAt"])

const contextKeys = keys("systemPrompt", "responseFormat", "messages", "metadata")
const executionRecordKeys = keys(
  "status", "startedAt", "runningSince", "completedAt", "steps", "stopSignals", "continuationRequested", "usage", "errors",
  "stopReason", "metadata", "pendingCalls", "suspendedStep",
)
const stateKeys = keys("id", "parentId", "context", "execution", "metadata")

const state = (u: unknown): boolean => {
  if (!record(u, stateKeys) || !string(u["id"]) || !optionalString(u["parentId"]) || !metadata(u["metadata"])) return false
  const c = u["context"]
  if (!record(c, contextKeys) || !string(c["systemPrompt"]) || !optional(responseFormat)(c["responseFormat"]) || !metadata(c["metadata"])) return false
  const e = u["execution"]
  if (!record(e, executionRecordKeys) || !ExecutionStatus.is(e["status"]) || !boolean(e["continuationRequested"])) return false
  // The decode gives a missing execution metadata as `{}`.
  if (!optionalFinite(e["startedAt"]) || !optionalFinite(e["runningSince"]) || !optionalFinite(e["completedAt"]) || !metadata(e["metadata"])) return false
  if (!optionalString(e["stopReason"]) || !usage(e["usage"]) || !array(e["stopSignals"], stopSignal) || !array(e["errors"], agentError)) return false
  if (!optional((a) => array(a, pendingCall))(e["pendingCalls"]) || !optional(step)(e["suspendedStep"])) return false
  // The logs last: the only parts that grow with the history.
  return log(e["steps"], step) && log(c["messages"], message)
}

/**
 * Whether `Codecs.decode(Codecs.AgentState, u)` (default bounds) accepts `u` and answers a
 * value deep-equal to it, and `u` is frozen plain data all through that answers every
 * later read as it answered this one: a state the agent's entry may keep as it is without
 * the decode's copy. Never throws; false where a Proxy cannot be told. False is always
 * safe (the caller decodes).
 */
export const decodesToItself = (u: unknown): boolean => {
  if (isProxy === undefined) return false
  try {
    return state(u)
  } catch {
    // A hostile value (a forged log whose methods throw): the decode names it.
    return false
  }
}
