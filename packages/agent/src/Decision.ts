/**
 * A person's decision on a call a run was suspended on: approve it, approve it with
 * edited arguments, or reject it with a message the model reads. Given to
 * `agent.resume(runIdOrState, decisions)`.
 *
 * @since 0.1.0
 */
import { AgentState, Codecs, Json } from "@hookline/core"
import { Data, Result } from "effect"
import * as t from "io-ts"
import { resolve } from "./internal/subagentPayload.js"
import { bounds } from "./internal/toolArguments.js"

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
  | { readonly _tag: "Approve"; readonly toolCallId: string } & Decider
  | { readonly _tag: "Edit"; readonly toolCallId: string; readonly arguments: Json.JsonValue } & Decider
  | { readonly _tag: "Reject"; readonly toolCallId: string; readonly message: string } & Decider

/**
 * Who decided and why (optional, kept with the call in the stored run and in the
 * resumed step's `decisions`): `by` at most `maxBy` characters, `reason` at most
 * `maxReason`. `"hookline"` is the library's own name (an approval that expired): a
 * caller's decision may not use it. Not part of the decision: a repeat by someone else,
 * or with another reason, is still a repeat.
 *
 * @since 0.1.0
 * @category models
 */
export interface Decider {
  readonly by?: string | undefined
  readonly reason?: string | undefined
}

/**
 * The longest `by` a decision takes.
 *
 * @since 0.1.0
 * @category constants
 */
export const maxBy = 256

/**
 * The longest `reason` a decision takes.
 *
 * @since 0.1.0
 * @category constants
 */
export const maxReason = 4096

/**
 * Who a decision the library made names (`by`): an approval that expired is rejected by `"hookline"`.
 *
 * @since 0.1.0
 * @category constants
 */
export const library = "hookline"

/**
 * A decision the run cannot take: not a decision at all (`malformed`: a `_tag` other
 * than `Approve`, `Edit` or `Reject`, a missing or ill-typed field, edited arguments
 * that are not JSON within `Json.maxDepth`/`Json.maxValues`, a `by` or `reason` that is
 * not a string within its bound, or `by: "hookline"`; `toolCallId` is `""` when it has
 * none), for a call the run is not waiting on (`unknown`), given twice in one resume
 * (`repeated`), for a call already decided (`decided`), or approving (or editing) a call
 * whose approval expired (`expired`).
 *
 * @since 0.1.0
 * @category errors
 */
export class DecisionInvalid extends Data.TaggedError("DecisionInvalid")<{
  readonly toolCallId: string
  readonly reason: "malformed" | "unknown" | "repeated" | "decided" | "expired"
  readonly message: string
}> {}

// Only the fields given: a decision without a decider is the object it always was.
const withDecider = <A extends object>(decision: A, decider: Decider | undefined): A & Decider =>
  Object.freeze({
    ...decision,
    ...(decider?.by === undefined ? {} : { by: decider.by }),
    ...(decider?.reason === undefined ? {} : { reason: decider.reason }),
  })

/** @since 0.1.0 @category constructors */
export const approve = (toolCallId: string, decider?: Decider): Decision => withDecider({ _tag: "Approve" as const, toolCallId }, decider)
/** @since 0.1.0 @category constructors */
export const edit = (toolCallId: string, args: Json.JsonValue, decider?: Decider): Decision =>
  withDecider({ _tag: "Edit" as const, toolCallId, arguments: args }, decider)
/** @since 0.1.0 @category constructors */
export const reject = (toolCallId: string, message: string, decider?: Pick<Decider, "by">): Decision =>
  withDecider({ _tag: "Reject" as const, toolCallId, message }, decider === undefined ? undefined : { by: decider.by })

// Edited arguments: JSON (core's codec: no cycle, no function, no NaN, at most
// `Json.maxDepth` deep), then the bounds a model's arguments meet (`Json.maxValues`
// too), so an edit is refused where a model's call would be.
const EditedArguments = new t.Type<Json.JsonValue, Json.JsonValue, unknown>(
  "JsonValue within Json.maxDepth and Json.maxValues",
  (u): u is Json.JsonValue => Codecs.JsonValue.is(u) && bounds(u) === undefined,
  (u, c) => {
    const json = Codecs.JsonValue.validate(u, c)
    if (json._tag === "Left") return json
    const problem = bounds(json.right)
    if (problem === undefined) return json
    return t.failure(u, problem.path === "" ? c : t.appendContext(c, problem.path, Codecs.JsonValue, u), problem.message)
  },
  (a) => a,
)

const ToolCallId = t.string

// Absent, or a string of at most `max` characters.
const bounded = (name: string, max: number) =>
  new t.Type<string | undefined, string | undefined, unknown>(
    `${name} (absent, or a string of at most ${max} characters)`,
    (u): u is string | undefined => u === undefined || (typeof u === "string" && u.length <= max),
    (u, c) =>
      u === undefined
        ? t.success(u)
        : typeof u !== "string"
        ? t.failure(u, c, `expected a string, got ${Json.excerpt(u, 60)}`)
        : u.length > max
        ? t.failure(u, c, `expected at most ${max} characters, got ${u.length}`)
        : t.success(u),
    (a) => a,
  )

const by = bounded("by", maxBy)
const reason = bounded("reason", maxReason)

// One codec per kind, chosen by `_tag`: a failure then names the field of that kind.
const kinds = {
  Approve: t.type({ _tag: t.literal("Approve"), toolCallId: ToolCallId, by, reason }),
  Edit: t.type({ _tag: t.literal("Edit"), toolCallId: ToolCallId, arguments: EditedArguments, by, reason }),
  Reject: t.type({ _tag: t.literal("Reject"), toolCallId: ToolCallId, message: t.string, by }),
} as const

/**
 * A decision as it comes from outside (a JavaScript caller, a parsed HTTP body):
 * decodes to a frozen `Decision` with its own copy of edited arguments, or fails
 * naming the field. Extra fields are dropped.
 *
 * @since 0.1.0
 * @category codecs
 */
export const Codec: t.Type<Decision, Decision, unknown> = new t.Type<Decision, Decision, unknown>(
  "Decision",
  (u): u is Decision => {
    const kind = kindOf(u)
    // By validation: `t.type`'s `is` wants a key for every optional field (`by`, `reason`).
    return kind !== undefined && kinds[kind].validate(u, [])._tag === "Right"
  },
  (u, c) => {
    if (typeof u !== "object" || u === null || Array.isArray(u)) return t.failure(u, c, "expected a decision object (Decision.approve, edit or reject)")
    const kind = kindOf(u)
    if (kind === undefined) {
      const tag = (u as { readonly _tag?: unknown })._tag
      return t.failure(tag, t.appendContext(c, "_tag", t.string, tag), `expected "Approve", "Edit" or "Reject", got ${Json.excerpt(tag, 60)}`)
    }
    const decoded = kinds[kind].validate(u, c)
    if (decoded._tag === "Left") return decoded
    const d = decoded.right
    const who = { by: d.by, reason: d._tag === "Reject" ? undefined : d.reason }
    return t.success(d._tag === "Approve" ? approve(d.toolCallId, who) : d._tag === "Edit" ? edit(d.toolCallId, d.arguments, who) : reject(d.toolCallId, d.message, who))
  },
  (a) => a,
)

const kindOf = (u: unknown): keyof typeof kinds | undefined => {
  if (typeof u !== "object" || u === null) return undefined
  const tag = (u as { readonly _tag?: unknown })._tag
  return tag === "Approve" || tag === "Edit" || tag === "Reject" ? tag : undefined
}

// The call id of a malformed decision, when it has a readable string one.
const idOf = (u: unknown): string => {
  try {
    const id = typeof u === "object" && u !== null ? (u as { readonly toolCallId?: unknown }).toolCallId : undefined
    return typeof id === "string" ? id : ""
  } catch {
    return ""
  }
}

const malformed = (u: unknown, where: string, detail: string): DecisionInvalid =>
  new DecisionInvalid({ toolCallId: idOf(u), reason: "malformed", message: `${where} ${detail}` })

const invalid = (toolCallId: string, reason: Exclude<DecisionInvalid["reason"], "malformed">, expiresAt?: number): DecisionInvalid =>
  new DecisionInvalid({
    toolCallId,
    reason,
    message: reason === "unknown"
      ? `the run is not waiting on a call ${JSON.stringify(toolCallId)}`
      : reason === "repeated"
      ? `call ${JSON.stringify(toolCallId)} has two decisions`
      : reason === "expired"
      ? `the approval of call ${JSON.stringify(toolCallId)} expired${expiresAt === undefined ? "" : ` at ${new Date(expiresAt).toISOString()}`}`
      : `call ${JSON.stringify(toolCallId)} was already decided`,
  })

/**
 * Decodes what a caller gave as decisions (untrusted: any value), before anything runs
 * or is written: each must be a decision (`Codec`), else `DecisionInvalid`
 * (`malformed`, naming the entry and the field).
 *
 * @since 0.1.0
 * @category validation
 */
export const decode = (decisions: unknown): Result.Result<ReadonlyArray<Decision>, DecisionInvalid> => {
  if (!Array.isArray(decisions)) {
    return Result.fail(malformed(undefined, "decisions:", `expected an array of decisions, got ${Json.excerpt(decisions, 60)}`))
  }
  const out: Array<Decision> = []
  for (let i = 0; i < decisions.length; i++) {
    let given: unknown
    try {
      given = decisions[i]
    } catch {
      // A throwing getter or proxy trap: not a decision.
      return Result.fail(malformed(undefined, `decisions[${i}] is not a decision:`, "reading it threw"))
    }
    const decoded = Codecs.decode(Codec, given)
    if (Result.isFailure(decoded)) {
      // "cannot decode the root: …" / "cannot decode message: …" read as "…" / "message: …".
      return Result.fail(malformed(given, `decisions[${i}] is not a decision:`, decoded.failure.message.replace(/^cannot decode (the root: )?/, "")))
    }
    // The library's own decisions (an expired approval) name it; a caller's may not.
    if (decoded.success.by === library) {
      return Result.fail(malformed(given, `decisions[${i}] is not a decision:`, `by: ${JSON.stringify(library)} is the library's own name`))
    }
    out.push(decoded.success)
  }
  return Result.succeed(out)
}

const keptOnPending = (state: AgentState, toolCallId: string): AgentState.PendingDecision | undefined =>
  state.execution.pendingCalls?.find((p) => p.toolCall.id === toolCallId)?.decision

// The decision a resumed step's record keeps for a call it carried out (`Step.decisions`).
const keptInSteps = (state: AgentState, toolCallId: string): AgentState.PendingDecision | undefined => {
  const steps = state.execution.steps.toArray()
  const records = state.execution.suspendedStep === undefined ? steps : [...steps, state.execution.suspendedStep]
  for (let i = records.length - 1; i >= 0; i--) {
    const decisions = records[i]?.decisions
    if (decisions !== undefined && Object.hasOwn(decisions, toolCallId)) return decisions[toolCallId]
  }
  return undefined
}

/**
 * Whether a decision repeats the one kept for its call: the same kind, and the same
 * edited arguments (deep equal) or the same message.
 *
 * @since 0.1.0
 * @category predicates
 */
export const same = (kept: AgentState.PendingDecision, decision: Decision): boolean => {
  switch (kept._tag) {
    case "Approve":
      return decision._tag === "Approve"
    case "Edit":
      return decision._tag === "Edit" && jsonEqual(kept.arguments, decision.arguments)
    case "Reject":
      return decision._tag === "Reject" && kept.message === decision.message
    default:
      return false
  }
}

// Deep equality of two JSON values (both decoded within core's JSON bounds, so the
// recursion is bounded by `Json.maxDepth`). Key order does not matter.
const jsonEqual = (a: Json.JsonValue, b: Json.JsonValue): boolean => {
  if (a === b) return true
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false
    return a.every((x, i) => jsonEqual(x, b[i] as Json.JsonValue))
  }
  const ka = Object.keys(a)
  if (ka.length !== Object.keys(b).length) return false
  return ka.every((k) => Object.hasOwn(b, k) && jsonEqual((a as Record<string, Json.JsonValue>)[k] as Json.JsonValue, (b as Record<string, Json.JsonValue>)[k] as Json.JsonValue))
}

/**
 * Checks decisions against a suspended state: each is a decision (`decode`), and names
 * a call the run waits on, or a call one of its subagents waits on (the pending call's
 * payload lists it), once. A decision equal to the one kept for an already decided call
 * (`same`) is a repeat: left out, a no-op; a different one is `DecisionInvalid`
 * (`decided`; `expired` when the library rejected the call because its approval
 * expired). Given `now` (epoch ms), an approval or edit of a call whose `expiresAt` has
 * passed is `expired`. Gives the others by call id.
 *
 * @since 0.1.0
 * @category validation
 */
export const validate = (
  state: AgentState,
  decisions: ReadonlyArray<Decision>,
  now?: number,
): Result.Result<ReadonlyMap<string, Decision>, DecisionInvalid> => {
  const decoded = decode(decisions)
  if (Result.isFailure(decoded)) return Result.fail(decoded.failure)
  const byId = new Map<string, Decision>()
  const named = new Set<string>()
  const seen = new Set<string>()
  for (const decision of decoded.success) {
    const id = decision.toolCallId
    // The call it names: the run's own, or one a subagent waits on (`Tool.fromAgent`), by its path.
    const target = resolve(state, id)
    if (seen.has(id) || (target !== undefined && named.has(target.name))) return Result.fail(invalid(id, "repeated"))
    seen.add(id)
    // Decided already, by a resume that began (its checkpoint keeps the decision with the
    // pending call) or that carried it out (the resumed step's record keeps it): the same
    // decision again is a repeat, a no-op; a different one is refused.
    // A subagent's call decided in an earlier resume that left the parent waiting is kept
    // in the open step's record, by its path.
    const kept = target === undefined || target._tag === "Nested" ? keptInSteps(state, id) : keptOnPending(state, target.toolCallId)
    if (kept !== undefined) {
      if (same(kept, decision)) continue
      // Rejected by the library because its approval expired: say so.
      return Result.fail(invalid(id, kept.by === library ? "expired" : "decided"))
    }
    // An expired approval cannot be given any more (a rejection still can).
    if (now !== undefined && target?._tag === "Own" && decision._tag !== "Reject") {
      const expiresAt = state.execution.pendingCalls?.find((p) => p.toolCall.id === target.toolCallId)?.expiresAt
      if (expiresAt !== undefined && expiresAt <= now) return Result.fail(invalid(id, "expired", expiresAt))
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
