// A run's events after a cursor, from its stored state (pure): what a runner answers
// to one ask of a client's event stream. The events are a function of the committed
// state, so any runner reading the same store answers the same batch.
import { Codecs } from "@hookline/core"
import type { AgentState } from "@hookline/core"
import { createHash } from "node:crypto"
import type { EventBatch, EventCursor, WireEvent } from "../RunEvent.js"
import { isEnded, summaryOf } from "./summary.js"

// A suspension is the calls it waits on, and why, after so many steps: a later one
// (after a resume) differs in one or the other, a re-read of the same one does not. The
// why counts because a subagent's call stays its parent's pending call while the
// subagent waits on one of its calls, then (resumed) on another: the reason and the
// payload (the subagent's state) tell the two apart.
export const suspensionKey = (state: AgentState): string => {
  const hash = createHash("sha256").update(String(state.execution.steps.length))
  for (const p of state.execution.pendingCalls ?? []) {
    hash.update(`\n${p.toolCall.id}\n${p.reason}\n${p.payload === undefined ? "" : JSON.stringify(p.payload)}`)
  }
  return hash.digest("hex")
}

export interface Limits {
  readonly maxEvents: number
  readonly maxBytes: number
}

export const batchOf = (
  saved: { readonly seq: number; readonly state: AgentState },
  agent: string,
  after: EventCursor,
  limits: Limits,
): EventBatch => {
  const { state } = saved
  const steps = state.execution.steps
  const events: Array<WireEvent> = []
  let bytes = 0
  let index = after.steps
  for (; index < steps.length && events.length < limits.maxEvents; index++) {
    const step = Codecs.encode(Codecs.Step, steps.at(index) as never)
    const size = JSON.stringify(step).length
    // At least one step per batch, however large, so a stream always moves on.
    if (events.length > 0 && bytes + size > limits.maxBytes) break
    bytes += size
    events.push({ _tag: "StepEnded", index, step, cursor: { ...after, steps: index + 1, seq: 0 } })
  }
  const steppedTo = Math.max(index, after.steps)
  const caughtUp = steppedTo >= steps.length
  let cursor: EventCursor = events.length === 0 ? after : (events[events.length - 1] as WireEvent).cursor
  if (!caughtUp || events.length >= limits.maxEvents) return { events, cursor }
  const status = state.execution.status
  if (status === "suspended") {
    const key = suspensionKey(state)
    if (key !== after.suspension) {
      cursor = { ...cursor, suspension: key }
      events.push({ _tag: "Suspended", summary: summaryOf(state, agent), cursor })
    }
  } else if (isEnded(status) && !after.ended) {
    cursor = { ...cursor, ended: true }
    events.push({ _tag: "RunEnded", summary: summaryOf(state, agent), cursor })
  }
  // Everything up to this checkpoint given: the next ask at the same head is answered
  // from the head alone.
  cursor = { ...cursor, seq: saved.seq }
  if (events.length > 0) {
    const last = events[events.length - 1] as WireEvent
    events[events.length - 1] = { ...last, cursor } as WireEvent
  }
  return { events, cursor }
}
