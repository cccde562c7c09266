// A resume's decisions are written into the suspended state before its first hook, so
// the resumed run's first checkpoint keeps them: a second resume of the same run finds
// the calls decided (DecisionInvalid, not a second execution of an approved tool), and
// a resume after a crash carries them out without asking the person again.
import { AgentState, Codecs, ToolCall } from "@hookline/core"
import { Codec, type Decision } from "../Decision.js"
import { nameOf, separator } from "../internal/subagentPayload.js"
import { bounds } from "../internal/toolArguments.js"

// Plain objects: `withPendingCalls` freezes them whole (edited arguments included). Who
// decided and why go with the decision, only when given.
const kept = (decision: Decision): AgentState.PendingDecision => {
  const who = {
    ...(decision.by === undefined ? {} : { by: decision.by }),
    ...(decision.reason === undefined ? {} : { reason: decision.reason }),
  }
  return decision._tag === "Approve"
    ? { _tag: "Approve", ...who }
    : decision._tag === "Edit"
    ? { _tag: "Edit", arguments: decision.arguments, ...who }
    : { _tag: "Reject", message: decision.message, ...who }
}

/**
 * The state with each decided pending call carrying its decision. Calls in `skip` (a
 * subagent's call, approved only to resume its child: the child's decisions live in
 * memory) are left open, so a crash asks again rather than starting the child afresh.
 */
export const record = (
  state: AgentState,
  decisions: ReadonlyMap<string, Decision> | undefined,
  skip: ReadonlySet<string> | undefined,
): AgentState => {
  const pending = state.execution.pendingCalls
  if (pending === undefined || decisions === undefined || decisions.size === 0) return state
  let changed = false
  const next = pending.map((p) => {
    const decision = decisions.get(p.toolCall.id)
    if (decision === undefined || p.decision !== undefined || skip?.has(p.toolCall.id) === true) return p
    changed = true
    return { ...p, decision: kept(decision) }
  })
  return changed ? AgentState.withPendingCalls(state, next) : state
}

/**
 * The decisions a resumed step keeps in its record (`Step.decisions`): those an earlier
 * resume of the step carried out, and the kept decisions of the calls decided now (a
 * subagent's call approved only to resume its child keeps none: it is not kept in the
 * pending call either). `undefined` when there are none.
 */
export const carried = (
  earlier: Readonly<Record<string, AgentState.PendingDecision>> | undefined,
  pending: ReadonlyArray<AgentState.PendingCall>,
  decisions: ReadonlyMap<string, unknown>,
): Readonly<Record<string, AgentState.PendingDecision>> | undefined => {
  // Only a decision that is one (a state built by hand may keep anything): the record
  // must encode and load again.
  const now = pending.filter((p) => p.decision !== undefined && decisions.has(p.toolCall.id) && isKeptDecision(p.decision))
  // A subagent's call, decided by its path (`<callId>/<childCallId>`, see Subagent.route).
  const nested = nestedOf(pending, decisions)
  if (now.length === 0 && nested.length === 0) return earlier
  // fromEntries defines each key (a call id "__proto__" is a key like any other).
  return Object.fromEntries([
    ...Object.entries(earlier ?? {}),
    ...nested,
    ...now.map((p) => [p.toolCall.id, p.decision as AgentState.PendingDecision] as const),
  ])
}

// The decisions filed under a path below one of the waiting calls, as kept decisions.
const nestedOf = (
  pending: ReadonlyArray<AgentState.PendingCall>,
  decisions: ReadonlyMap<string, unknown>,
): ReadonlyArray<readonly [string, AgentState.PendingDecision]> => {
  const out: Array<readonly [string, AgentState.PendingDecision]> = []
  for (const [key, decision] of decisions) {
    if (!key.includes(separator) || pending.some((p) => p.toolCall.id === key)) continue
    if (!pending.some((p) => key.startsWith(nameOf(p.toolCall.id) + separator))) continue
    if (isFiledDecision(key, decision)) out.push([key, kept(decision)])
  }
  return out
}

const isKeptDecision = (decision: unknown): boolean => {
  try {
    return Codecs.PendingDecision.is(decision) && (decision._tag !== "Edit" || bounds(decision.arguments) === undefined)
  } catch {
    return false
  }
}

/** The decisions a state keeps, by call id; `undefined` when it keeps none. */
export const of = (state: AgentState): ReadonlyMap<string, AgentState.PendingDecision> | undefined => {
  let found: Map<string, AgentState.PendingDecision> | undefined
  for (const p of state.execution.pendingCalls ?? []) {
    if (p.decision === undefined) continue
    found ??= new Map()
    found.set(p.toolCall.id, p.decision)
  }
  return found
}

/**
 * The decisions given to the engine (`RunOptions.decisions`, a lower door than
 * `agent.resume`, which refuses a malformed one with `DecisionInvalid`): only well-formed
 * decisions filed under their own call id are taken; any other is dropped before it is
 * kept or acted on, so its call stays waiting (fail-closed: nothing runs on it).
 */
export const wellFormed = (decisions: ReadonlyMap<string, Decision> | undefined): ReadonlyMap<string, Decision> | undefined => {
  if (!(decisions instanceof Map)) return undefined
  const taken = new Map<string, Decision>()
  for (const [id, decision] of decisions as ReadonlyMap<unknown, unknown>) {
    if (typeof id === "string" && isFiledDecision(id, decision)) taken.set(id, decision)
  }
  return taken.size === decisions.size ? decisions : taken
}

const isFiledDecision = (id: string, decision: unknown): decision is Decision => {
  try {
    return Codec.is(decision) && decision.toolCallId === id
  } catch {
    // A hostile value (a throwing getter, a proxy): not a decision.
    return false
  }
}

/** What a call whose kept decision is not one (a state built by hand) is answered with. */
export const notADecision = "the decision on this call is not a valid decision (Approve, Edit or Reject): it did not run"

/**
 * How a decided call is carried out: the call to run (approved, or with its edited
 * arguments), or the text its rejection answers it with. Fail-closed: anything but an
 * `Approve`, an `Edit` with JSON arguments within core's bounds, or a `Reject` with a
 * text message is answered as not run, never approved.
 */
export const apply = (toolCall: ToolCall, decision: Decision | AgentState.PendingDecision): ToolCall | string => {
  try {
    switch (decision._tag) {
      case "Approve":
        return toolCall
      case "Edit": {
        const args: unknown = decision.arguments
        return Codecs.JsonValue.is(args) && bounds(args) === undefined
          ? ToolCall.make({ id: toolCall.id, name: toolCall.name, arguments: args })
          : notADecision
      }
      case "Reject":
        return typeof decision.message === "string" ? decision.message : notADecision
      default:
        return notADecision
    }
  } catch {
    return notADecision
  }
}
