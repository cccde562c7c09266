// The stop rules, pure: whether the steps limit forbids another step, the steps guard's
// signal the loop raises itself after a failed step, and what a stop check decides once
// its OnStop hooks ran.
import { AgentState, Guards, StopReason, StopSignal } from "@hookline/core"

/** True when the steps limit forbids another step. */
export const stepsLimitReached = (state: AgentState, limit: number | undefined): boolean =>
  limit !== undefined && AgentState.stepCount(state) >= limit

/**
 * After a failed step, the loop raises the steps guard's own signal: a BeforeStep hook
 * that fails before the guard ends its dispatch, so the guard may never run, and an
 * OnError hook that handles every error would otherwise retry without end.
 */
export const holdStepsLimit = (state: AgentState, limit: number | undefined): AgentState => {
  if (!stepsLimitReached(state, limit) || state.execution.stopSignals.some((s) => s.source === Guards.names.steps)) return state
  return AgentState.withStopSignal(
    state,
    StopSignal.make(StopReason.StepsLimitReached, `Step limit reached: ${AgentState.stepCount(state)}/${limit as number}`, Guards.names.steps),
  )
}

/**
 * Whether an interruption from outside hands the run over (it ends `running`, no stop
 * signal) rather than stopping it: only when the caller said so, and never once the
 * run's abort signal fired (an abort is a stop, whoever interrupts).
 */
export const handsOver = (interruption: "stop" | "handOver" | undefined, signal: AbortSignal | undefined): boolean =>
  interruption === "handOver" && signal?.aborted !== true

/** What a stop check decided: the state, and whether the run stops. */
export interface AfterOnStop {
  readonly state: AgentState
  readonly stop: boolean
}

/**
 * After the OnStop hooks ran without failing: a continuation resumes the loop (its
 * signals cleared) unless a hard stop is among the signals (even next to a soft one that
 * ranks higher, StopRequested); without one the run stops as it is.
 */
export const afterOnStop = (state: AgentState): AfterOnStop => {
  if (!state.execution.continuationRequested) return { state, stop: true }
  const hard = state.execution.stopSignals.some(StopSignal.isHard)
  const withdrawn = AgentState.withContinuationRequested(state, false)
  return hard ? { state: withdrawn, stop: true } : { state: AgentState.clearStopSignals(withdrawn), stop: false }
}
