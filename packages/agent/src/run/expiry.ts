// Approvals that expire, pure: the calls of a suspended run whose deadline
// (`PendingCall.expiresAt`) has passed, rejected by the library with a reason the model
// reads. The caller's decisions come first (a person's rejection of an expired call is
// theirs); a call already decided keeps its decision.
import type { AgentState } from "@hookline/core"
import { type Decision, library, reject } from "../Decision.js"

/** What the model reads for a call whose approval expired. */
export const expiredMessage = (expiresAt: number): string => `the approval expired at ${new Date(expiresAt).toISOString()}`

/**
 * The given decisions with a rejection by `"hookline"` added for each of the run's own
 * waiting calls, undecided, whose approval expired at or before `now`; the same map when
 * none did. (A call a subagent waits on expires in the child's own resume.)
 */
export const withExpired = (state: AgentState, given: ReadonlyMap<string, Decision>, now: number): ReadonlyMap<string, Decision> => {
  let out: Map<string, Decision> | undefined
  for (const p of state.execution.pendingCalls ?? []) {
    const id = p.toolCall.id
    if (p.expiresAt === undefined || p.expiresAt > now || p.decision !== undefined || given.has(id)) continue
    out ??= new Map(given)
    out.set(id, reject(id, expiredMessage(p.expiresAt), { by: library }))
  }
  return out ?? given
}
