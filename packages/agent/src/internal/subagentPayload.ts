// A suspended subagent's call, as data: the payload its pending call carries, and the
// names of the calls a subagent waits on. Pure, and a leaf of the agent package (Decision
// resolves its targets with it; the host and the child build on it).
import { AgentError, Codecs, type AgentState, type JsonValue } from "@hookline/core"
import { Result } from "effect"

/** The `_tag` of a pending call's payload when the call is a suspended subagent. */
export const payloadTag = "Subagent"

/**
 * What a parent's pending call carries when its subagent suspended: the child's run
 * id, the calls the child waits on (what a person decides on) and the child's state,
 * encoded (JSON, `Codecs.AgentState`), from which the child resumes.
 */
export interface Payload {
  readonly _tag: typeof payloadTag
  readonly agent: string
  readonly runId: string
  readonly pendingCalls: ReadonlyArray<JsonValue>
  readonly state: JsonValue
}

/** How deep nested subagent payloads are read (a subagent of a subagent of ...). */
const maxDepth = 16

const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> => typeof u === "object" && u !== null && !Array.isArray(u)

/** The payload of a pending call if it is a subagent's; anything else (a person's payload) is not. */
export const payloadOf = (payload: unknown): Payload | undefined =>
  isRecord(payload) && payload["_tag"] === payloadTag && typeof payload["runId"] === "string"
    && Array.isArray(payload["pendingCalls"]) && isRecord(payload["state"])
    ? payload as unknown as Payload
    : undefined

// Names of calls across subagent boundaries. A run's own call is named by its id, with
// `%` and `/` escaped (`%25`, `%2F`: any other id is its own name); a call a subagent
// waits on is named by the path of the parent's call and the child's name for it,
// `parentName/childName` (a grandchild's call: `p/c/g`). An own name has no `/` and a
// path has one; the first `/` ends the parent's escaped id; so no two calls a state
// waits on, at any depth, share a name (docs/decisions.md, "Subagent call names").

/** Joins the names of a path of calls. */
export const separator = "/"

/** A run's own call id as a name: `%` and `/` escaped, any other id as it is. */
export const nameOf = (toolCallId: string): string =>
  toolCallId.includes("%") || toolCallId.includes(separator) ? toolCallId.replaceAll("%", "%25").replaceAll(separator, "%2F") : toolCallId

/** A decision's target in a state: a call of its own, or a call a subagent waits on. */
export type Target =
  | { readonly _tag: "Own"; readonly toolCallId: string; readonly name: string }
  | { readonly _tag: "Nested"; readonly owner: string; readonly name: string; readonly childName: string }

// The name of an entry of a payload's list of waiting calls: a path from `prefix` (the
// escaped id of the call whose child waits, and `/`). A payload written before calls were
// named by path lists the child's plain ids: they are named as they would have been.
const entryName = (id: string, prefix: string): string => id.startsWith(prefix) ? id : prefix + nameOf(id)

const idOf = (p: JsonValue): string | undefined =>
  isRecord(p) && isRecord(p["toolCall"]) && typeof p["toolCall"]["id"] === "string" ? p["toolCall"]["id"] : undefined

// The names a payload's child waits on, its own children's included (every one a
// person may decide: a child's call that runs a grandchild can be rejected too).
const namesIn = (payload: Payload, prefix: string, depth: number, into: Set<string>): Set<string> => {
  if (depth >= maxDepth) return into
  for (const p of payload.pendingCalls) {
    const id = idOf(p)
    if (id === undefined) continue
    const name = entryName(id, prefix)
    into.add(name)
    const inner = payloadOf((p as Readonly<Record<string, unknown>>)["payload"])
    if (inner !== undefined) namesIn(inner, name + separator, depth + 1, into)
  }
  return into
}

/**
 * The call `name` names in `state`: an own call by its name, a call a subagent waits on
 * by its path (as the pending call's payload lists it), else an own call by its plain
 * id (an id with `/` or `%`, given as it is, when it names nothing else); `undefined`
 * when it names none.
 */
export const resolve = (state: AgentState, name: string): Target | undefined => {
  const pending = state.execution.pendingCalls
  if (pending === undefined) return undefined
  const slash = name.indexOf(separator)
  if (slash < 0) {
    const own = pending.find((p) => nameOf(p.toolCall.id) === name)
    if (own !== undefined) return { _tag: "Own", toolCallId: own.toolCall.id, name }
  } else {
    const head = name.slice(0, slash)
    const owner = pending.find((p) => nameOf(p.toolCall.id) === head)
    const payload = payloadOf(owner?.payload)
    if (owner !== undefined && payload !== undefined && namesIn(payload, head + separator, 0, new Set()).has(name)) {
      return { _tag: "Nested", owner: owner.toolCall.id, name, childName: name.slice(slash + 1) }
    }
  }
  const plain = pending.find((p) => p.toolCall.id === name)
  return plain === undefined ? undefined : { _tag: "Own", toolCallId: plain.toolCall.id, name: nameOf(plain.toolCall.id) }
}

// The child's waiting calls as its parent shows them, each named by `prefix` (the
// parent's call) and the child's name for it: its own calls (`childPrefix` undefined) by
// their escaped ids, its children's by their paths from the child.
const exposed = (list: ReadonlyArray<JsonValue>, prefix: string, childPrefix: string | undefined, depth: number): ReadonlyArray<JsonValue> =>
  list.map((p) => {
    const id = idOf(p)
    if (id === undefined) return p
    const entry = p as Readonly<Record<string, JsonValue>>
    const name = childPrefix === undefined ? nameOf(id) : entryName(id, childPrefix)
    const inner = depth < maxDepth ? payloadOf(entry["payload"]) : undefined
    return {
      ...entry,
      toolCall: { ...(entry["toolCall"] as Readonly<Record<string, JsonValue>>), id: prefix + name },
      ...(inner === undefined ? {} : { payload: { ...inner, pendingCalls: exposed(inner.pendingCalls, prefix, name + separator, depth + 1) } }),
    } as JsonValue
  })

/**
 * The run id of the child of call `toolCallId` of run `parentRunId`: the same every
 * time that call runs its child (after a crash, on a replay, on a retry), so the
 * child's tools get the same idempotency keys. A grandchild's nests the path.
 */
export const childRunId = (parentRunId: string, toolCallId: string): string => `${parentRunId}${separator}${nameOf(toolCallId)}`

/**
 * The payload of call `toolCallId`'s pending call, its child suspended: JSON, encoded
 * with the state's codec; the child's waiting calls named by their paths from the call.
 */
export const payload = (agent: string, toolCallId: string, child: AgentState): Payload =>
  Object.freeze({
    _tag: payloadTag,
    agent,
    runId: child.id,
    pendingCalls: exposed(
      JSON.parse(JSON.stringify((child.execution.pendingCalls ?? []).map((p) => Codecs.encode(Codecs.PendingCall, p)))) as ReadonlyArray<JsonValue>,
      nameOf(toolCallId) + separator,
      undefined,
      0,
    ),
    state: JSON.parse(Codecs.toJson(Codecs.AgentState, child)) as JsonValue,
  })

/** The child's state from a payload: untrusted (a stored checkpoint), decoded and checked. */
export const childState = (state: JsonValue, path: string): Result.Result<AgentState, AgentError.DecodeFailed> => {
  const decoded = Codecs.decode(Codecs.AgentState, state)
  if (Result.isSuccess(decoded)) return decoded
  const at = decoded.failure.path
  return Result.fail(AgentError.decodeFailed(at === "" ? path : `${path}.${at}`, decoded.failure.message))
}
