// The stop rules, as pure functions (run/stop.ts, issue 23).
import { AgentState, Guards, Step, StopReason, StopSignal } from "@hookline/core"
import { describe, expect, it } from "vitest"
import * as Stop from "../../src/run/stop.js"

const soft = StopSignal.make(StopReason.Completed, "answered", "test")
const hard = StopSignal.make(StopReason.TokenLimitReached, "no tokens left", "test")
const requested = StopSignal.make(StopReason.StopRequested, "asked to stop", "test")

const stateWith = (signals: ReadonlyArray<StopSignal.StopSignal>, continuation: boolean): AgentState => {
  let state = AgentState.make({ id: "run" })
  for (const s of signals) state = AgentState.withStopSignal(state, s)
  return AgentState.withContinuationRequested(state, continuation)
}

describe("Stop.afterOnStop", () => {
  it.each([
    { name: "no continuation: stops as it is", signals: [soft], continuation: false, stop: true, cleared: false },
    { name: "no continuation with a hard signal: stops as it is", signals: [hard], continuation: false, stop: true, cleared: false },
    { name: "a continuation over soft signals: goes on, the signals cleared", signals: [soft], continuation: true, stop: false, cleared: true },
    { name: "a continuation over a hard signal: stops, the continuation withdrawn", signals: [hard], continuation: true, stop: true, cleared: false },
    { name: "a hard signal holds next to a soft one that ranks higher", signals: [hard, requested], continuation: true, stop: true, cleared: false },
  ])("$name", ({ signals, continuation, stop, cleared }) => {
    const state = stateWith(signals, continuation)
    const decided = Stop.afterOnStop(state)
    expect(decided.stop).toBe(stop)
    expect(decided.state.execution.continuationRequested).toBe(false)
    expect(decided.state.execution.stopSignals).toEqual(cleared ? [] : state.execution.stopSignals)
    if (!continuation) expect(decided.state).toBe(state)
  })
})

const withSteps = (n: number): AgentState => {
  let state = AgentState.make({ id: "run" })
  for (let i = 0; i < n; i++) state = AgentState.appendStep(state, Step.make({ index: i, startedAt: 0, completedAt: 0 }))
  return state
}

describe("Stop.stepsLimitReached", () => {
  it.each([
    [0, undefined, false],
    [5, undefined, false],
    [2, 3, false],
    [3, 3, true],
    [4, 3, true],
  ] as const)("%i steps, limit %s: %s", (steps, limit, reached) => expect(Stop.stepsLimitReached(withSteps(steps), limit)).toBe(reached))
})

describe("Stop.holdStepsLimit", () => {
  it("raises the steps guard's signal once the limit is reached", () => {
    const held = Stop.holdStepsLimit(withSteps(3), 3)
    expect(held.execution.stopSignals).toEqual([StopSignal.make(StopReason.StepsLimitReached, "Step limit reached: 3/3", Guards.names.steps)])
  })
  it("keeps the state below the limit, without one, or when the guard already fired", () => {
    const below = withSteps(2)
    expect(Stop.holdStepsLimit(below, 3)).toBe(below)
    expect(Stop.holdStepsLimit(below, undefined)).toBe(below)
    const fired = AgentState.withStopSignal(withSteps(3), StopSignal.make(StopReason.StepsLimitReached, "guard", Guards.names.steps))
    expect(Stop.holdStepsLimit(fired, 3)).toBe(fired)
  })
})
