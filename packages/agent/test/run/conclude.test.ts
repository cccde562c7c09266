// How a run ends, as pure functions (run/conclude.ts, issue 23): every outcome × no, a
// soft or a hard stop signal × calls waiting or not.
import { AgentError, AgentState, Guards, StopReason, StopSignal, ToolCall } from "@hookline/core"
import { describe, expect, it } from "vitest"
import * as Conclude from "../../src/run/conclude.js"
import type { Outcome } from "../../src/run/types.js"

const call = ToolCall.make({ id: "c1", name: "search", arguments: {} })
const failed: Outcome = { _tag: "Failed", errors: [AgentError.inferenceFailed("the model is down")] }
const outcomes: ReadonlyArray<Outcome> = [Conclude.done, Conclude.suspended, Conclude.aborted, Conclude.timedOut, failed]
const signals = {
  none: undefined,
  soft: StopSignal.make(StopReason.Completed, "answered", "test"),
  hard: StopSignal.make(StopReason.TokenLimitReached, "no tokens left", "test"),
} as const
type Signal = keyof typeof signals

const stateWith = (signal: Signal, pending: boolean): AgentState => {
  let state = AgentState.make({ id: "run" })
  const s = signals[signal]
  if (s !== undefined) state = AgentState.withStopSignal(state, s)
  if (pending) state = AgentState.suspendCall(state, call, "needs approval")
  return state
}

// The status each outcome ends in: a failure fails; an abort, a time limit or a hard
// signal stops; only a suspension with calls still waiting suspends.
const expected = (outcome: Outcome, signal: Signal, pending: boolean): AgentState.ExecutionStatus =>
  outcome._tag === "Failed"
    ? "failed"
    : outcome._tag === "Aborted" || outcome._tag === "TimedOut" || signal === "hard"
    ? "stopped"
    : outcome._tag === "Suspended" && pending
    ? "suspended"
    : "completed"

const cases = outcomes.flatMap((outcome) =>
  (["none", "soft", "hard"] as const).flatMap((signal) =>
    [false, true].map((pending) => ({ outcome: outcome._tag, value: outcome, signal, pending, status: expected(outcome, signal, pending) }))
  )
)

describe("Conclude.statusOf", () => {
  it("has a case for every outcome, signal and pending", () => expect(cases).toHaveLength(30))
  it.each(cases)("$outcome with signal $signal and pending $pending ends $status", ({ value, signal, pending, status }) => {
    expect(Conclude.statusOf(value, stateWith(signal, pending))).toBe(status)
  })
})

describe("Conclude.keepsPending", () => {
  it.each(cases)("$outcome with signal $signal keeps the waiting calls only when it suspends without a hard stop", ({ value, signal, pending }) => {
    expect(Conclude.keepsPending(value, stateWith(signal, pending))).toBe(value._tag === "Suspended" && signal !== "hard")
  })
})

describe("Conclude.conclude", () => {
  const read = () => 1_000
  const facts = { timeLimit: 500, timedFrom: () => 100, read }
  it.each(cases)("$outcome with signal $signal and pending $pending", ({ value, signal, pending, status }) => {
    const before = stateWith(signal, pending)
    const after = Conclude.conclude(before, value, facts)
    expect(after.execution.status).toBe(status)
    expect(after.execution.continuationRequested).toBe(false)
    const raised = after.execution.stopSignals.slice(before.execution.stopSignals.length)
    const own = value._tag === "Aborted"
      ? [StopSignal.make(StopReason.UserRequested, "the run was aborted", Conclude.LOOP)]
      : value._tag === "TimedOut"
      ? [StopSignal.make(StopReason.TimeLimitReached, "Time limit reached: 900 ms/500 ms", Guards.names.time)]
      : value._tag === "Failed"
      ? [StopSignal.make(StopReason.ErrorForbade, "the model is down", Conclude.LOOP)]
      : []
    expect(raised).toEqual(own)
    expect(after.execution.stopReason).toBe(StopSignal.highest(after.execution.stopSignals)?.reason)
    // Nothing else changes: the conversation and the waiting calls are as they were.
    expect(after.context).toBe(before.context)
    expect(after.execution.pendingCalls).toBe(before.execution.pendingCalls)
  })
  it("does not raise the time guard's signal twice", () => {
    const guarded = AgentState.withStopSignal(AgentState.make({ id: "run" }), StopSignal.make(StopReason.TimeLimitReached, "late", Guards.names.time))
    const after = Conclude.conclude(guarded, Conclude.timedOut, facts)
    expect(after.execution.stopSignals).toEqual(guarded.execution.stopSignals)
  })
})

describe("Conclude.settleReason", () => {
  it.each([
    [Conclude.aborted, "the run was aborted before it ran"],
    [Conclude.timedOut, "the run reached its time limit before it ran"],
    [Conclude.done, "the run ended before it ran"],
    [Conclude.suspended, "the run ended before it ran"],
    [failed, "the run ended before it ran"],
  ] as const)("%o: %s", (outcome, why) => expect(Conclude.settleReason(outcome)).toBe(why))
})

describe("Conclude.startingState", () => {
  it.each(["pending", "running", "suspended"] as const)("goes on with a %s state", (status) => {
    const state = AgentState.withStatus(AgentState.make({ id: "run" }), status, 1)
    expect(Conclude.startingState(state)).toBe(state)
  })
  it.each(["completed", "stopped", "failed"] as const)("starts a new execution on a %s state's conversation", (status) => {
    const state = AgentState.withStatus(AgentState.make({ id: "run" }), status, 1)
    const started = Conclude.startingState(state)
    expect(started.execution).toEqual(AgentState.emptyExecution)
    expect(started.context).toBe(state.context)
  })
})
