// A resume's decisions are written into the suspended state before its first hook, so
// the resumed run's first checkpoint keeps them: a second resume of the same run finds
// the calls decided (DecisionInvalid, not a second execution of an approved tool), and
// a resume after a crash carries them out without asking the person again.
import { AgentState } from "@hookline/core"
import type { Decision } from "../Decision.js"

// Plain objects: `withPendingCalls` freezes them whole (edited arguments included).
const kept = (decision: Decision): AgentState.PendingDecision =>
  decision._tag === "Approve"
    ? { _tag: "Approve" }
    : decision._tag === "Edit"
    ? { _tag: "Edit", arguments: decision.arguments }
    : { _tag: "Reject", message: decision.message }

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
