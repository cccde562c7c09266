// Writes to a store that answers at once (internal/atOnce.ts) by reference when the
// value is vouched for (internal/byReference.ts), else as checked text. Apart from
// byReference.ts, which the journal's encoding uses, so that no module circle forms.
import type { AgentState } from "@hookline/core"
import { Exit, Result } from "effect"
import * as Checkpoint from "../Checkpoint.js"
import type * as Envelope from "../Envelope.js"
import type * as StoreError from "../StoreError.js"
import type * as AtOnce from "./atOnce.js"
import { vouchedDelta } from "./byReference.js"
import type * as FrozenJson from "./frozenJson.js"
import * as Plan from "./plan.js"

/**
 * Commits checkpoint `next` of `state` to a store that answers at once: the delta itself
 * when the store keeps deltas and it is vouched for, else its checked text
 * (`Checkpoint.encodeChecked`, which refuses what would not load back).
 */
export const commitNext = (
  measured: FrozenJson.Measure,
  store: AtOnce.AtOnce,
  state: AgentState,
  next: Plan.Next,
  at: number,
): Exit.Exit<void, StoreError.CheckpointConflict | StoreError.CheckpointRefused | StoreError.StoreFailed> => {
  const head = { runId: state.id, seq: next.seq, status: state.execution.status, at }
  if (store.commitDelta !== undefined && vouchedDelta(measured, state.id, next.delta)) return store.commitDelta(head, next.delta)
  const body = Checkpoint.encodeChecked(state.id, next.seq, next.delta)
  return Result.isFailure(body) ? Exit.fail(body.failure) : store.commit({ ...head, body: body.success })
}

/**
 * A new run's first checkpoint to a store that keeps deltas, when it is vouched for (the
 * run as stored after it); undefined otherwise, for the caller to write it as text
 * (`RunStore.startEffect`).
 */
export const createFirst = (
  measured: FrozenJson.Measure,
  store: AtOnce.AtOnce,
  state: AgentState,
  envelope: Envelope.Envelope | undefined,
  replace: boolean,
  at: number,
): Exit.Exit<Plan.Stored, StoreError.RunExists | StoreError.StoreFailed> | undefined => {
  if (store.createDelta === undefined) return undefined
  const delta = Checkpoint.diff(undefined, state, { next: envelope }) ?? { v: Checkpoint.version, id: state.id }
  if (!vouchedDelta(measured, state.id, delta)) return undefined
  const created = store.createDelta({ runId: state.id, seq: 1, status: state.execution.status, at }, delta, replace)
  return Exit.isSuccess(created) ? Exit.succeed(Plan.storedOf(state, 1, envelope)) : (created as Exit.Exit<never, StoreError.RunExists | StoreError.StoreFailed>)
}
