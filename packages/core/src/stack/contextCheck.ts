// The check of a context a hook returned (docs/ordering.md "What a hook may return").
// A hook may build its return by hand (`{ ...ctx, … }`), from plain JavaScript, with a
// cast: what it returns is untrusted. The check is a diff against the context the hook
// was given, which is valid (the loop made it, or an earlier hook's return passed this
// check): a part that is the same reference is not looked at again, a changed part is
// checked against its codec, and of a log only the items appended since are checked.
// So a hook that returns its input costs nothing, and one that changed a stop signal
// costs a few property reads, whatever the history's length.
import type * as t from "io-ts"
import * as AppendLog from "../AppendLog.js"
import type * as AgentState from "../AgentState.js"
import type { HookContext } from "../HookContext.js"
import type { InferenceRequest } from "../InferenceRequest.js"
import type { Message as Message_ } from "../Message.js"
import { excerpt } from "../Json.js"
import { maxStringLength } from "../internal/limits.js"
import { AgentError } from "../codecs/errors.js"
import { InferenceResponse, ModelOptions, ResponseFormat, ToolDefinition, Usage } from "../codecs/inference.js"
import { Metadata } from "../codecs/json.js"
import { ExecutionStatus } from "../codecs/literals.js"
import { Message } from "../codecs/messages.js"
import { PendingCall, Step, StopSignal, ToolExecution } from "../codecs/state.js"
import { decodeWith } from "../codecs/decode.js"
import { describeSplit, splitOf } from "./toolRounds.js"

type Problem = string | undefined

type Guarded = t.Type<any, any, unknown>

const isPlain = (u: unknown): u is Readonly<Record<string, unknown>> => {
  if (typeof u !== "object" || u === null) return false
  const proto: unknown = Object.getPrototypeOf(u)
  return proto === Object.prototype || proto === null
}

const show = (u: unknown): string => excerpt(u, 60)

const join = (where: string, path: string): string => (path === "" ? where : path.startsWith("[") ? `${where}${path}` : `${where}.${path}`)

// Only on failure: the codec names the path and what was expected there.
const explain = (where: string, codec: Guarded, value: unknown): string => {
  const result = decodeWith(codec, value)
  return result.ok ? `${where}: expected ${codec.name}, got ${show(value)}` : `${join(where, result.path)}: ${result.detail}`
}

const check = (where: string, codec: Guarded, value: unknown): Problem => (codec.is(value) ? undefined : explain(where, codec, value))

const checkOptional = (where: string, codec: Guarded, value: unknown): Problem =>
  value === undefined ? undefined : check(where, codec, value)

const checkFinite = (where: string, value: unknown, optional = false): Problem =>
  (optional && value === undefined) || (typeof value === "number" && Number.isFinite(value))
    ? undefined
    : `${where}: expected a finite number, got ${show(value)}`

// Within `Json.maxStringLength`, as the codecs hold every string (a prompt or a parent
// id past it would be refused only at a later run's entry, or by a store).
const checkString = (where: string, value: unknown): Problem =>
  typeof value !== "string"
    ? `${where}: expected a string, got ${show(value)}`
    : value.length > maxStringLength
    ? `${where}: a string of ${value.length} characters, past the limit of ${maxStringLength} (Json.maxStringLength)`
    : undefined

const checkArray = (where: string, codec: Guarded, next: unknown, prev: unknown): Problem => {
  if (next === prev) return undefined
  if (!Array.isArray(next)) return `${where}: expected an array, got ${show(next)}`
  for (let i = 0; i < next.length; i++) {
    const item: unknown = next[i]
    // Items kept in place from the valid input are not checked again.
    if (Array.isArray(prev) && prev[i] === item) continue
    const problem = check(`${where}[${i}]`, codec, item)
    if (problem !== undefined) return problem
  }
  return undefined
}

const isLog = (u: unknown): u is AppendLog.AppendLog<unknown> =>
  AppendLog.isAppendLog(u) && typeof (u as { readonly extendsUnsafe?: unknown }).extendsUnsafe === "function"

const checkLog = (where: string, codec: Guarded, next: unknown, prev: AppendLog.AppendLog<unknown> | undefined): Problem => {
  if (next === prev) return undefined
  if (!isLog(next)) {
    const got = Array.isArray(next) ? "a plain array" : show(next)
    return `${where}: expected an AppendLog (AgentState.appendMessage, AppendLog.fromIterable), got ${got}`
  }
  const from = prev !== undefined && next.extendsUnsafe(prev) ? prev.length : 0
  for (let i = from; i < next.length; i++) {
    const problem = check(`${where}[${i}]`, codec, next.at(i))
    if (problem !== undefined) return problem
  }
  return undefined
}

// Messages are checked one by one, then as tool rounds (toolRounds.ts): a message a hook
// added must not come between an assistant's tool calls and their results. Of an
// append, only what was appended (and the round it continues) is read; a rewrite is read
// whole, and a split it keeps from its input is not the hook's.
const checkMessages = (where: string, next: unknown, prev: AppendLog.AppendLog<unknown> | undefined): Problem => {
  const problem = checkLog(where, Message, next, prev)
  if (problem !== undefined || next === prev) return problem
  const log = next as AppendLog.AppendLog<Message_>
  const appended = prev !== undefined && log.extendsUnsafe(prev as AppendLog.AppendLog<Message_>)
  const split = splitOf(log, appended ? (prev as AppendLog.AppendLog<Message_>).length : 0)
  if (split === undefined) return undefined
  if (!appended && prev !== undefined && splitOf(prev as AppendLog.AppendLog<Message_>) !== undefined) return undefined
  return describeSplit(where, split)
}

// The arguments are the tool's to validate (bounded in depth and size, at the tool
// boundary, where a bad value is a ToolArgumentsInvalid the model can correct).
const checkToolCall = (next: unknown): Problem => {
  if (next === undefined) return undefined
  if (!isPlain(next)) return `toolCall: expected a ToolCall, got ${show(next)}`
  return checkString("toolCall.id", next["id"]) ?? checkString("toolCall.name", next["name"])
}

const checkContextPart = (next: unknown, prev: AgentState.AgentContext | undefined): Problem => {
  if (next === prev) return undefined
  if (!isPlain(next)) return `state.context: expected a plain object, got ${show(next)}`
  return checkString("state.context.systemPrompt", next["systemPrompt"])
    ?? checkOptional("state.context.responseFormat", ResponseFormat, next["responseFormat"])
    ?? checkMessages("state.context.messages", next["messages"], prev?.messages)
    ?? (next["metadata"] === prev?.metadata ? undefined : check("state.context.metadata", Metadata, next["metadata"]))
}

const checkExecution = (next: unknown, prev: AgentState.Execution | undefined): Problem => {
  if (next === prev) return undefined
  if (!isPlain(next)) return `state.execution: expected a plain object, got ${show(next)}`
  return check("state.execution.status", ExecutionStatus, next["status"])
    ?? checkFinite("state.execution.startedAt", next["startedAt"], true)
    ?? checkFinite("state.execution.runningSince", next["runningSince"], true)
    ?? checkFinite("state.execution.completedAt", next["completedAt"], true)
    ?? checkLog("state.execution.steps", Step, next["steps"], prev?.steps)
    ?? checkArray("state.execution.stopSignals", StopSignal, next["stopSignals"], prev?.stopSignals)
    ?? (typeof next["continuationRequested"] === "boolean"
      ? undefined
      : `state.execution.continuationRequested: expected a boolean, got ${show(next["continuationRequested"])}`)
    ?? (next["usage"] === prev?.usage ? undefined : check("state.execution.usage", Usage, next["usage"]))
    ?? checkArray("state.execution.errors", AgentError, next["errors"], prev?.errors)
    // A suspension a hook made (HookContext.suspend) is stored as it is: a cyclic or
    // non-JSON payload, or a reason that is not a text, would leave a run that does not
    // load (or a suspension that is never written).
    ?? (next["pendingCalls"] === undefined
      ? undefined
      : checkArray("state.execution.pendingCalls", PendingCall, next["pendingCalls"], prev?.pendingCalls))
    ?? (next["suspendedStep"] === prev?.suspendedStep ? undefined : checkOptional("state.execution.suspendedStep", Step, next["suspendedStep"]))
}

const checkState = (next: unknown, prev: AgentState.AgentState | undefined): Problem => {
  if (next === prev) return undefined
  if (!isPlain(next)) return `state: expected an AgentState, got ${show(next)}`
  return checkString("state.id", next["id"])
    // A context of another run (its state carried over, or built for another id) would
    // have the loop, its store and its events go on under another run's id.
    ?? (prev !== undefined && next["id"] !== prev.id ? `state.id: a hook cannot change the run's id (${show(prev.id)})` : undefined)
    ?? (next["parentId"] === undefined ? undefined : checkString("state.parentId", next["parentId"]))
    ?? checkContextPart(next["context"], prev?.context)
    ?? checkExecution(next["execution"], prev?.execution)
    ?? (next["metadata"] === prev?.metadata ? undefined : check("state.metadata", Metadata, next["metadata"]))
}

const checkRequest = (next: unknown, prev: InferenceRequest | undefined): Problem => {
  if (next === prev || next === undefined) return undefined
  if (!isPlain(next)) return `request: expected an InferenceRequest (HookContext.withRequest), got ${show(next)}`
  return checkString("request.systemPrompt", next["systemPrompt"])
    ?? checkMessages("request.messages", next["messages"], prev?.messages)
    ?? checkArray("request.tools", ToolDefinition, next["tools"], prev?.tools)
    ?? checkOptional("request.responseFormat", ResponseFormat, next["responseFormat"])
    ?? (next["options"] === prev?.options ? undefined : check("request.options", ModelOptions, next["options"]))
}

/**
 * What is wrong with the context `next` a hook returned, given the valid context `prev`
 * it was given; `undefined` when it is a valid context of the same trigger.
 */
export const problemOf = (prev: HookContext, next: HookContext): Problem => {
  if (!isPlain(next)) {
    return "returned a context that is not a plain object (made with Object.create or a class?): build it with the HookContext functions"
  }
  if (next.trigger !== prev.trigger) return `changed the trigger from ${prev.trigger} to ${show(next.trigger)}`
  const problem = fieldProblemOf(prev, next)
  return problem === undefined ? undefined : `returned an invalid context at ${problem}`
}

const fieldProblemOf = (prev: HookContext, next: HookContext): Problem => {
  const toolCall = next.toolCall
  const execution = next.toolExecution
  return checkState(next.state, prev.state)
    ?? checkRequest(next.request, prev.request)
    ?? (next.response === prev.response ? undefined : checkOptional("response", InferenceResponse, next.response))
    ?? (toolCall === prev.toolCall
      ? undefined
      : checkToolCall(toolCall)
        ?? (prev.toolCall !== undefined && toolCall !== undefined && toolCall.id !== prev.toolCall.id
          ? `toolCall.id: a hook cannot change the id of the call the model made (${show(prev.toolCall.id)})`
          : undefined))
    ?? (execution === prev.toolExecution
      ? undefined
      : checkOptional("toolExecution", ToolExecution, execution)
        ?? (execution !== undefined && execution.toolCall.id !== (toolCall ?? prev.toolCall)?.id
          ? `toolExecution.toolCall.id: expected the id of the context's tool call, got ${show(execution.toolCall.id)}`
          : undefined))
    ?? (next.toolExecutionBlocked === (execution?.status === "blocked")
      ? undefined
      : `toolExecutionBlocked: expected ${execution?.status === "blocked"} (it follows toolExecution.status), got ${show(next.toolExecutionBlocked)}`)
    ?? checkArray("errors", AgentError, next.errors, prev.errors)
    ?? (next.metadata === prev.metadata ? undefined : check("metadata", Metadata, next.metadata))
    ?? (next.createdAt === prev.createdAt ? undefined : checkFinite("createdAt", next.createdAt))
    ?? (next.updatedAt === prev.updatedAt ? undefined : checkFinite("updatedAt", next.updatedAt))
}
