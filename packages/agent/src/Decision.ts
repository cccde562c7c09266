/**
 * A person's decision on a call a run was suspended on: approve it, approve it with
 * edited arguments, or reject it with a message the model reads. Given to
 * `agent.resume(runIdOrState, decisions)`.
 *
 * @since 0.1.0
 */
import { AgentState, type Json } from "@hookline/core"
import { Data, Result } from "effect"
import { resolve } from "./internal/subagent.js"

/**
 * `toolCallId` names the call: the run's own call by its id; a call a subagent waits on
 * (`Tool.fromAgent`) by its path from the run's call, `<parentCallId>/<childCallId>`
 * (nested: `p/c/g`), as the payload of the run's pending call lists it. A `/` or `%` in
 * an id is escaped there (`%2F`, `%25`).
 *
 * @since 0.1.0
 * @category models
 */
export type Decision =
  | { readonly _tag: "Approve"; readonly toolCallId: string }
  | { readonly _tag: "Edit"; readonly toolCallId: string; readonly arguments: Json.JsonValue }
  | { readonly _tag: "Reject"; readonly toolCallId: string; readonly message: string }

/**
 * A decision the run cannot take: for a call it is not waiting on (`unknown`), given
 * twice in one resume (`repeated`), or for a call already decided (`decided`).
 *
 * @since 0.1.0
 * @category errors
 */
export class DecisionInvalid extends Data.TaggedError("DecisionInvalid")<{
  readonly toolCallId: string
  readonly reason: "unknown" | "repeated" | "decided"
  readonly message: string
}> {}

/** @since 0.1.0 @category constructors */
export const approve = (toolCallId: string): Decision => Object.freeze({ _tag: "Approve", toolCallId })
/** @since 0.1.0 @category constructors */
export const edit = (toolCallId: string, args: Json.JsonValue): Decision => Object.freeze({ _tag: "Edit", toolCallId, arguments: args })
/** @since 0.1.0 @category constructors */
export const reject = (toolCallId: string, message: string): Decision => Object.freeze({ _tag: "Reject", toolCallId, message })

const invalid = (toolCallId: string, reason: DecisionInvalid["reason"]): DecisionInvalid =>
  new DecisionInvalid({
    toolCallId,
    reason,
    message: reason === "unknown"
      ? `the run is not waiting on a call ${JSON.stringify(toolCallId)}`
      : reason === "repeated"
      ? `call ${JSON.stringify(toolCallId)} has two decisions`
      : `call ${JSON.stringify(toolCallId)} was already decided`,
  })

/**
 * Checks decisions against a suspended state: each names a call the run waits on, or
 * a call one of its subagents waits on (the pending call's payload lists it), once.
 * Gives them by call id.
 *
 * @since 0.1.0
 * @category validation
 */
export const validate = (
  state: AgentState,
  decisions: ReadonlyArray<Decision>,
): Result.Result<ReadonlyMap<string, Decision>, DecisionInvalid> => {
  const byId = new Map<string, Decision>()
  const named = new Set<string>()
  for (const decision of decisions) {
    const id = decision.toolCallId
    // The call it names: the run's own, or one a subagent waits on (`Tool.fromAgent`), by its path.
    const target = resolve(state, id)
    if (byId.has(id) || (target !== undefined && named.has(target.name))) return Result.fail(invalid(id, "repeated"))
    // Decided by a resume that began (its checkpoint keeps the decision): not open again.
    if (target?._tag === "Own" && state.execution.pendingCalls?.some((p) => p.toolCall.id === target.toolCallId && p.decision !== undefined) === true) {
      return Result.fail(invalid(id, "decided"))
    }
    if (target === undefined) {
      const answered = state.context.messages.toArray().some((m) => m.role === "tool" && m.toolCallId === id)
      return Result.fail(invalid(id, answered ? "decided" : "unknown"))
    }
    named.add(target.name)
    byId.set(id, decision)
  }
  return Result.succeed(byId)
}
