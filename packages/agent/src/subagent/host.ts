// What links a run to the subagents its tools run (`Tool.fromAgent`): the parent's side
// (a `Host` per run: the observer children emit into, the usage they report, the
// suspensions they park, the decisions routed to them on resume) and the child's side
// (a `Link`: the observer the child's engine uses when it has none of its own).
//
// The engine knows no agent: a child run reaches its parent only through one Effect
// reference (`Current`), so a tool that runs an agent as an Effect (in the tool's fiber)
// is a subagent, and the parent's abort or time limit interrupts it like any tool.
import { Usage, type AgentState, type HookExecuted, type JsonValue } from "@hookline/core"
import { Context } from "effect"
import type { AgentEvent } from "../AgentEvent.js"
import type { Decision } from "../Decision.js"
import type { Observer } from "../internal/observer.js"
import { payloadOf, resolve, type Payload } from "../internal/subagentPayload.js"

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
    /** The run's hook listeners (its loop's and its parent's), which its children inherit. */
    readonly listener?: HookExecuted.EventSink | undefined,
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

/**
 * The child's side: the observer a child run reports to and the hook listeners it
 * inherits, given by the tool that runs it.
 */
export class Link {
  constructor(readonly observer: Observer | undefined, readonly listener?: HookExecuted.EventSink | undefined) {}
}

/**
 * One reference for both sides (one `provideService` per run): inside a run, its
 * `Host` (its tools read it); around a child's run, the `Link` the tool gave it (the
 * child's engine reads it, then puts its own host in its place).
 */
export const Current = Context.Reference<Host | Link | undefined>("@hookline/agent/Subagent/Current", {
  defaultValue: () => undefined,
})

/**
 * The tool call that started a run: its parent run and the call's id.
 *
 * @since 0.1.0
 * @category models
 */
export interface Parent {
  readonly runId: string
  readonly toolCallId: string
}

/**
 * In a subagent's run (`Tool.fromAgent`), the parent run and the tool call that started
 * it; `undefined` in a top-level run. Its hooks read it as an Effect
 * (`yield* Subagent.ParentCall`), telemetry to nest the child's spans under the call's.
 *
 * @since 0.1.0
 * @category services
 */
export const ParentCall = Context.Reference<Parent | undefined>("@hookline/agent/Subagent/ParentCall", {
  defaultValue: () => undefined,
})

/** The child's events, each wrapped once more: nested under the parent's tool call. */
export const linkOf = (host: Host | undefined, runId: string, toolCallId: string): Link => {
  const observer = host?.observer
  if (observer === undefined) return new Link(undefined, host?.listener)
  const parent = Object.freeze({ runId, toolCallId })
  return new Link({
    streaming: observer.streaming,
    settled: observer.settled,
    hookEvents: observer.hookEvents,
    emit: (event: AgentEvent) => observer.emit(Object.freeze({ _tag: "Subagent", parent, event })),
  }, host?.listener)
}

const withId = (decision: Decision, toolCallId: string): Decision =>
  decision.toolCallId === toolCallId ? decision : Object.freeze({ ...decision, toolCallId })

/**
 * Splits a resume's decisions: those for the run's own calls stay, by call id; those
 * for calls a subagent waits on become a resumption of that subagent's call, each
 * decision naming the child's call by the child's name for it; the subagent's call is
 * approved (it runs again and resumes its child), unless the caller decided on it
 * directly. A subagent's decisions also stay under their path (`<callId>/<childCallId>`),
 * for the parent's step record (`Step.decisions`): the engine acts only on own call ids.
 */
export const route = (
  state: AgentState,
  decisions: ReadonlyMap<string, Decision> | undefined,
): { readonly decisions: ReadonlyMap<string, Decision> | undefined; readonly resumptions: Map<string, Resumption> | undefined } => {
  if (decisions === undefined || state.execution.pendingCalls === undefined) return { decisions, resumptions: undefined }
  const own = new Map<string, Decision>()
  let renamed = false
  let nested: Map<string, Array<Decision>> | undefined
  const paths = new Map<string, { readonly owner: string; readonly decision: Decision }>()
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
      // Also kept under its path, for the parent's step record (KeptDecisions.carried),
      // so a repeat of it is told from a different one; never over an own call's id.
      if (!state.execution.pendingCalls.some((p) => p.toolCall.id === key)) paths.set(key, { owner: target.owner, decision })
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
  for (const [key, { owner, decision }] of paths) if (resumptions.has(owner)) own.set(key, decision)
  return { decisions: own, resumptions }
}
