// How a run ends, pure: the state a run starts from, the outcomes of its steps, and the
// final state they conclude in (the stop signal the outcome raises, the status, the stop
// reason) before AfterExecution runs.
import { type AgentError, AgentState, Guards, StopReason, StopSignal } from "@hookline/core"
import type { Outcome } from "./types.js"

/** The source name of the loop's own stop signals. */
export const LOOP = "loop"

/** The outcomes that carry nothing (frozen constants: only `Failed` allocates). */
export const done: Outcome = Object.freeze({ _tag: "Done" })
export const suspended: Outcome = Object.freeze({ _tag: "Suspended" })
export const aborted: Outcome = Object.freeze({ _tag: "Aborted" })
export const timedOut: Outcome = Object.freeze({ _tag: "TimedOut" })

/**
 * A state to run: a finished state starts a new execution on the same conversation;
 * a pending, running or suspended state (a checkpoint) goes on where it was.
 */
export const startingState = (input: AgentState): AgentState => {
  const status = input.execution.status
  return status === "pending" || status === "running" || status === "suspended" ? input : AgentState.withExecution(input, AgentState.emptyExecution)
}

/** Why the calls a run leaves unanswered are cancelled. */
export const settleReason = (outcome: Outcome): string =>
  outcome._tag === "Aborted"
    ? "the run was aborted before it ran"
    : outcome._tag === "TimedOut"
    ? "the run reached its time limit before it ran"
    : "the run ended before it ran"

/** Only a run that ends suspended keeps its calls waiting (a hard stop ends it stopped). */
export const keepsPending = (outcome: Outcome, state: AgentState): boolean =>
  outcome._tag === "Suspended" && !state.execution.stopSignals.some(StopSignal.isHard)

/** The final status: how the outcome and the state's signals and waiting calls end the run. */
export const statusOf = (outcome: Outcome, state: AgentState): AgentState.ExecutionStatus =>
  outcome._tag === "Failed"
    ? "failed"
    : outcome._tag === "Aborted" || outcome._tag === "TimedOut" || state.execution.stopSignals.some(StopSignal.isHard)
    ? "stopped"
    : outcome._tag === "Suspended" && state.execution.pendingCalls !== undefined
    ? "suspended"
    : "completed"

/** What concluding needs besides the state: the time limit, and the clock's readings. */
export interface Facts {
  readonly timeLimit: number | undefined
  /** Where the time limit counted from (read after the elapsed time's reading, which it may fall back on). */
  readonly timedFrom: () => number
  /** A reading of the clock: taken for the time signal's elapsed time (when one is raised), then for the end. */
  readonly read: () => number
}

/**
 * The settled state concluded: the outcome's stop signal (an abort's, the time guard's
 * own as it would have raised it at the next BeforeStep, a failure's), the stop reason
 * as data (AfterExecution hooks and the caller read it without ranking signals), the
 * status, ended at the last reading, and no continuation asked for.
 */
export const conclude = (state: AgentState, outcome: Outcome, facts: Facts): AgentState => {
  if (outcome._tag === "Aborted") {
    state = AgentState.withStopSignal(state, StopSignal.make(StopReason.UserRequested, "the run was aborted", LOOP))
  } else if (outcome._tag === "TimedOut") {
    if (!state.execution.stopSignals.some((s) => s.source === Guards.names.time)) {
      const limit = facts.timeLimit as number
      const elapsed = facts.read() - facts.timedFrom()
      state = AgentState.withStopSignal(state, StopSignal.make(StopReason.TimeLimitReached, `Time limit reached: ${elapsed} ms/${limit} ms`, Guards.names.time))
    }
  } else if (outcome._tag === "Failed") {
    const first = outcome.errors[0] as { readonly message: string }
    state = AgentState.withStopSignal(state, StopSignal.make(StopReason.ErrorForbade, first.message, LOOP))
  }
  const status = statusOf(outcome, state)
  state = AgentState.withStopReason(state, StopSignal.highest(state.execution.stopSignals)?.reason)
  return AgentState.withContinuationRequested(AgentState.withStatus(state, status, facts.read()), false)
}

/** The error that ended a failed run (the one its stop signal names, else the last); `undefined` unless it failed. */
export const failureOf = (state: AgentState): AgentError.AgentError | undefined => {
  if (state.execution.status !== "failed") return undefined
  const errors = state.execution.errors
  const reason = StopSignal.highest(state.execution.stopSignals)?.message
  return errors.find((e) => e.message === reason) ?? errors[errors.length - 1]
}

/** The warning a failed run writes: its id and the error that ended it, bounded. */
export const failureLine = (state: AgentState): string => {
  const error = failureOf(state)
  const what = error === undefined ? "no error recorded" : `${error._tag}: ${error.message.length > 300 ? `${error.message.slice(0, 299)}…` : error.message}`
  return `hookline: run ${JSON.stringify(state.id)} failed: ${what}`
}
