// What links a run to the subagents its tools run (`Tool.fromAgent`): the parent's side
// (a `Host` per run: the observer children emit into, the usage they report, the
// suspensions they park, the decisions routed to them on resume) and the child's side
// (a `Link`: the observer the child's engine uses when it has none of its own).
//
// The engine knows no agent: a child run reaches its parent only through one Effect
// reference (`Current`), so a tool that runs an agent as an Effect (in the tool's fiber)
// is a subagent, and the parent's abort or time limit interrupts it like any tool.
import { AgentError, AgentState, Codecs, HookExecuted, Message, StopSignal, Usage, type JsonValue, type ToolCall } from "@hookline/core"
import { Context, Effect, Result } from "effect"
import type { AgentEvent } from "../AgentEvent.js"
import type { Decision } from "../Decision.js"
import type { Observer } from "./engine.js"

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

/** A child run parked on decisions, for the engine to turn into a pending call. */
interface Parked {
  readonly reason: string
  readonly payload: JsonValue
}

/** A subagent call to resume: its child's encoded state and the decisions for its calls. */
export interface Resumption {
  readonly state: JsonValue
  readonly decisions: ReadonlyArray<Decision>
}

/**
 * The parent's side, one per run. Maps are made when first used: most runs have no
 * subagent.
 */
export class Host {
  private usage: Map<string, Usage.Usage> | undefined
  private parked: Map<string, Parked> | undefined
  constructor(
    /** Where children emit their (wrapped) events; `undefined` when nobody observes the parent. */
    readonly observer: Observer | undefined,
    private readonly resumptions: Map<string, Resumption> | undefined,
  ) {}

  /** A child of call `toolCallId` spent `usage`; the loop adds it when the call is committed or parked. */
  report(toolCallId: string, usage: Usage.Usage): void {
    if (Usage.total(usage) === 0) return
    const map = (this.usage ??= new Map())
    map.set(toolCallId, Usage.add(map.get(toolCallId) ?? Usage.empty, usage))
  }

  takeUsage(toolCallId: string): Usage.Usage | undefined {
    const usage = this.usage?.get(toolCallId)
    if (usage !== undefined) this.usage?.delete(toolCallId)
    return usage
  }

  /** The child of call `toolCallId` ended suspended: the call waits too. */
  park(toolCallId: string, reason: string, payload: Payload): void {
    ;(this.parked ??= new Map()).set(toolCallId, { reason, payload: payload as unknown as JsonValue })
  }

  takeParked(toolCallId: string): Parked | undefined {
    if (this.parked === undefined) return undefined
    const parked = this.parked.get(toolCallId)
    if (parked !== undefined) this.parked.delete(toolCallId)
    return parked
  }

  /** The resumption of call `toolCallId`, once: a second run of the call starts afresh. */
  takeResumption(toolCallId: string): Resumption | undefined {
    const resumption = this.resumptions?.get(toolCallId)
    if (resumption !== undefined) this.resumptions?.delete(toolCallId)
    return resumption
  }
}

/** The child's side: the observer a child run reports to, given by the tool that runs it. */
export class Link {
  constructor(readonly observer: Observer | undefined) {}
}

/**
 * One reference for both sides (one `provideService` per run): inside a run, its
 * `Host` (its tools read it); around a child's run, the `Link` the tool gave it (the
 * child's engine reads it, then puts its own host in its place).
 */
export const Current = Context.Reference<Host | Link | undefined>("@hookline/agent/Subagent/Current", {
  defaultValue: () => undefined,
})

/** The child's events, each wrapped once more: nested under the parent's tool call. */
export const linkOf = (host: Host | undefined, runId: string, toolCallId: string): Link => {
  const observer = host?.observer
  if (observer === undefined) return new Link(undefined)
  const parent = Object.freeze({ runId, toolCallId })
  return new Link({
    streaming: observer.streaming,
    settled: observer.settled,
    emit: (event: AgentEvent) => observer.emit(Object.freeze({ _tag: "Subagent", parent, event })),
  })
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

const withId = (decision: Decision, toolCallId: string): Decision =>
  decision.toolCallId === toolCallId ? decision : Object.freeze({ ...decision, toolCallId })

/**
 * Splits a resume's decisions: those for the run's own calls stay, by call id; those
 * for calls a subagent waits on become a resumption of that subagent's call, each
 * decision naming the child's call by the child's name for it; the subagent's call is
 * approved (it runs again and resumes its child), unless the caller decided on it
 * directly.
 */
export const route = (
  state: AgentState,
  decisions: ReadonlyMap<string, Decision> | undefined,
): { readonly decisions: ReadonlyMap<string, Decision> | undefined; readonly resumptions: Map<string, Resumption> | undefined } => {
  if (decisions === undefined || state.execution.pendingCalls === undefined) return { decisions, resumptions: undefined }
  const own = new Map<string, Decision>()
  let renamed = false
  let nested: Map<string, Array<Decision>> | undefined
  for (const [key, decision] of decisions) {
    const target = resolve(state, decision.toolCallId)
    if (target === undefined) {
      own.set(key, decision)
    } else if (target._tag === "Own") {
      renamed ||= key !== target.toolCallId
      own.set(target.toolCallId, withId(decision, target.toolCallId))
    } else {
      nested ??= new Map()
      const list = nested.get(target.owner) ?? []
      list.push(withId(decision, target.childName))
      nested.set(target.owner, list)
    }
  }
  if (nested === undefined) return { decisions: renamed ? own : decisions, resumptions: undefined }
  const resumptions = new Map<string, Resumption>()
  for (const [owner, list] of nested) {
    const pending = state.execution.pendingCalls.find((p) => p.toolCall.id === owner)
    const payload = payloadOf(pending?.payload)
    if (payload === undefined) continue
    if (!own.has(owner)) own.set(owner, Object.freeze({ _tag: "Approve", toolCallId: owner }))
    resumptions.set(owner, Object.freeze({ state: payload.state, decisions: Object.freeze(list) }))
  }
  return { decisions: own, resumptions }
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

/** What a subagent tool needs of an agent (`Agent.Agent`; a structural type: no import cycle). */
export interface ChildAgent {
  readonly runEffect: (input: AgentState, options?: never) => Effect.Effect<AgentState>
  readonly resumeEffect: (
    run: AgentState,
    decisions?: ReadonlyArray<Decision>,
    options?: never,
  ) => Effect.Effect<AgentState, { readonly _tag: string; readonly message: string }>
}

/** What a subagent tool reads of its tool context. */
export interface CallContext {
  readonly toolCall: ToolCall
  readonly state: AgentState
  readonly runContext: unknown
}

/** A child run that ended failed or stopped: the tool's error, naming the child's. */
export class SubagentFailed extends Error {
  readonly _tag = "SubagentFailed"
}

// The error that ended a failed run (as Agent.failure reads it).
const failureOf = (state: AgentState): AgentError.AgentError | undefined => {
  const errors = state.execution.errors
  const reason = StopSignal.highest(state.execution.stopSignals)?.message
  return errors.find((e) => e.message === reason) ?? errors[errors.length - 1]
}

const minus = (a: Usage.Usage, b: Usage.Usage): Usage.Usage =>
  Usage.make(Math.max(0, a.inputTokens - b.inputTokens), Math.max(0, a.outputTokens - b.outputTokens))

/**
 * Runs the child for one call of its tool, in the tool's fiber: a new run whose
 * `parentId` is the parent's run id (its id derived from it, `childRunId`), or, when the parent resumes with decisions for
 * the child's calls, the child's stored run resumed with them. Gives `output(final)`
 * for a completed child; parks the call (the parent suspends) for a suspended one;
 * fails naming the child's error or stop for a failed or stopped one.
 */
export const runChild = (
  agent: ChildAgent,
  name: string,
  prompt: string,
  output: (final: AgentState) => unknown,
  context: CallContext,
): Effect.Effect<unknown, unknown> =>
  Effect.gen(function*() {
    const current = yield* Current
    const host = current instanceof Host ? current : undefined
    const callId = context.toolCall.id
    const options = (context.runContext === undefined ? undefined : { context: context.runContext }) as never
    const resumption = host?.takeResumption(callId)
    let from: AgentState | undefined
    let child: Effect.Effect<AgentState, { readonly _tag: string; readonly message: string }>
    if (resumption === undefined) {
      const id = childRunId(context.state.id, callId)
      child = agent.runEffect(AgentState.make({ id, parentId: context.state.id, messages: [Message.user(prompt)] }), options)
    } else {
      const decoded = childState(resumption.state, "payload.state")
      if (Result.isFailure(decoded)) {
        return yield* Effect.fail(new SubagentFailed(`subagent "${name}" cannot resume: its stored state is invalid: ${decoded.failure.message}`))
      }
      from = decoded.success
      child = agent.resumeEffect(from, resumption.decisions, options)
    }
    const final = yield* child.pipe(
      Effect.mapError((e) => new SubagentFailed(`subagent "${name}" cannot resume: ${e._tag}: ${e.message}`)),
      // Its events go to the parent's observer, nested; its hooks' events too, not to
      // the parent's own sink (they would read as the parent's hooks).
      Effect.provideService(Current, linkOf(host, context.state.id, callId)),
      Effect.provideService(HookExecuted.CurrentEventSink, undefined),
    )
    host?.report(callId, from === undefined ? final.execution.usage : minus(final.execution.usage, from.execution.usage))
    const status = final.execution.status
    if (status === "completed") return output(final)
    if (status === "suspended") {
      if (host === undefined) return yield* Effect.fail(new SubagentFailed(`subagent "${name}" suspended, and no run can wait on it`))
      const waiting = (final.execution.pendingCalls ?? []).map((p) => p.toolCall.name).join(", ")
      host.park(callId, `subagent "${name}" waits for a decision on ${waiting}`, payload(name, callId, final))
      return null
    }
    if (status === "failed") {
      const error = failureOf(final)
      return yield* Effect.fail(
        new SubagentFailed(`subagent "${name}" (run ${final.id}) failed: ${error === undefined ? "unknown error" : `${error._tag}: ${error.message}`}`),
      )
    }
    const stop = StopSignal.highest(final.execution.stopSignals)
    return yield* Effect.fail(
      new SubagentFailed(`subagent "${name}" (run ${final.id}) stopped: ${stop === undefined ? status : `${stop.reason}: ${stop.message}`}`),
    )
  })

/** The key under which `UseOutput` keeps a decoded answer (`@hookline/middleware` Output). */
const structuredKey = "output:structured"

/**
 * What a completed child gives its parent: its structured output when it has one
 * (`UseOutput`), else the text of its last answer.
 */
export const defaultOutput = (final: AgentState): unknown => {
  const stored = final.metadata[structuredKey]
  if (typeof stored === "object" && stored !== null && !Array.isArray(stored) && (stored as { status?: unknown }).status === "valid") {
    return (stored as { json?: unknown }).json ?? null
  }
  const last = final.context.messages.toArray().findLast((m) => m.role === "assistant")
  return last?.content ?? ""
}

/** The child's user message: the `prompt` string of the input, else the input as JSON. */
export const defaultPrompt = (input: unknown): string => {
  if (typeof input === "string") return input
  if (typeof input === "object" && input !== null && typeof (input as { prompt?: unknown }).prompt === "string") {
    return (input as { prompt: string }).prompt
  }
  return JSON.stringify(input) ?? ""
}
