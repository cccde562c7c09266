/**
 * A cancelled run, pure: the marker a Cancel stores (in the run's journal, under a key
 * no checkpoint uses, so it needs no table of its own and survives the runner), and the
 * state a cancelled run that is not in flight is stored as.
 *
 * @since 0.1.0
 */
import { AgentState, StopReason, StopSignal } from "@hookline/core"
import { isEnded } from "./internal/summary.js"

/**
 * The journal key of the cancel marker (the journal keeps the first entry written).
 *
 * @since 0.1.0
 * @category constants
 */
export const markerKey = "cluster:cancel"

/**
 * The source of a cancelled run's stop signal when the cluster stops it in the store
 * (a run in flight is aborted instead, and stops with the loop's own signal).
 *
 * @since 0.1.0
 * @category constants
 */
export const source = "cluster:cancel"

/**
 * Whether the run ended: a cancel leaves it as it is.
 *
 * @since 0.1.0
 * @category predicates
 */
export const isFinished = (state: AgentState): boolean => isEnded(state.execution.status)

/**
 * A queued, suspended or handed-over run, cancelled: `stopped` with `UserRequested`, as
 * an aborted run ends; the calls it waited on stay listed (none of them ran).
 *
 * @since 0.1.0
 * @category constructors
 */
export const stopped = (state: AgentState, now: number): AgentState => {
  if (isFinished(state)) return state
  const signalled = AgentState.withStopSignal(state, StopSignal.make(StopReason.UserRequested, "the run was cancelled", source))
  const reason = AgentState.withStopReason(signalled, StopSignal.highest(signalled.execution.stopSignals)?.reason)
  return AgentState.withContinuationRequested(AgentState.withStatus(reason, "stopped", now), false)
}
