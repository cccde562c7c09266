// The next checkpoint of a run, planned and not yet encoded: the delta from what was
// stored last, its sequence number, and what the run is as stored once it committed.
// `RunStore.nextSave` encodes it as text; a store that keeps deltas by reference (the
// in-memory one, internal/atOnce.ts) takes the delta itself.
import type { AgentState } from "@hookline/core"
import * as Checkpoint from "../Checkpoint.js"
import * as Envelope from "../Envelope.js"

/** A run as stored (the shape of `RunStore.Saved`, which is built from it). */
export interface Stored {
  readonly runId: string
  readonly seq: number
  readonly state: AgentState
  readonly envelope?: Envelope.Envelope | undefined
}

/** A run as stored after checkpoint `seq` of `state` (no envelope field when it has none). */
export const storedOf = (state: AgentState, seq: number, envelope: Envelope.Envelope | undefined): Stored =>
  envelope === undefined ? { runId: state.id, seq, state } : { runId: state.id, seq, state, envelope }

/** The next checkpoint: its delta, its sequence number, and the run as stored after it. */
export interface Next {
  readonly delta: Checkpoint.Delta
  readonly seq: number
  readonly saved: Stored
}

/** The checkpoint of `state` (with `envelope`, merged into the stored one) after `previous`; undefined when nothing changed. */
export const next = (state: AgentState, previous: Stored, envelope: Envelope.Envelope | undefined): Next | undefined => {
  const merged = Envelope.merge(previous.envelope, envelope)
  const delta = Checkpoint.diff(previous.state, state, { prev: previous.envelope, next: merged })
  if (delta === undefined) return undefined
  const seq = previous.seq + 1
  return { delta, seq, saved: storedOf(state, seq, previous.envelope === undefined && merged === Envelope.empty ? undefined : merged) }
}
