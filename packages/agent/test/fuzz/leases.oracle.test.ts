// The lease oracle (leases.ts, leaseViolations) can fail: each check flags a fabricated
// bad recording, and passes the same recording made good.
import { AgentState, Message, StopSignal } from "@hookline/core"
import { Checkpointing } from "@hookline/store"
import { describe, expect, it } from "vitest"
import { leaseViolations, type LeaseCase, type LeaseEvent, type LeaseRecording } from "./leases.js"

const c: LeaseCase = { store: "observed", ending: false, endWait: 0, every: "tool", lease: 30, steps: [[0]], toolConcurrency: "sequential", fault: { _tag: "Break", at: { _tag: "Op", index: 2 } } }
const completed = AgentState.withStatus(AgentState.make({ id: "lease-fuzz", messages: [Message.user("charge")] }), "completed", 1)
const leased = AgentState.withStopSignal(AgentState.withStatus(completed, "stopped", 1), StopSignal.make(Checkpointing.RunLeasedReason, "lost its lease", "store:lease"))

const recording = (events: ReadonlyArray<LeaseEvent>, final: AgentState, more: Partial<LeaseRecording> = {}): LeaseRecording => ({
  c,
  events,
  exit: { _tag: "Done", state: final },
  journaled: [],
  storedAfterRun: undefined,
  rowsAfterRun: [],
  otherMetadata: {},
  ...more,
})

const lost: LeaseEvent = { _tag: "Op", who: "run", op: "renewLease", outcome: "false" }

describe("leaseViolations", () => {
  it("flags a run that ended completed after the store said it lost its lease", () => {
    expect(leaseViolations(recording([lost], completed))).toEqual([expect.stringMatching(/no stop naming the lease/)])
    expect(leaseViolations(recording([lost], leased))).toEqual([])
  })

  it("flags a run that ended suspended or completed with a lease or conflict stop among its signals", () => {
    const signalled = (status: AgentState.ExecutionStatus, reason: typeof Checkpointing.RunLeasedReason) =>
      AgentState.withStopSignal(AgentState.withStatus(completed, status, 1), StopSignal.make(reason, "not stored", "store"))
    const conflict: LeaseEvent = { _tag: "Op", who: "run", op: "commit", outcome: "CheckpointConflict", seq: 2 }
    expect(leaseViolations(recording([lost], signalled("suspended", Checkpointing.RunLeasedReason)))).toEqual([expect.stringMatching(/ended suspended, a state it did not store/)])
    expect(leaseViolations(recording([conflict], signalled("completed", Checkpointing.CheckpointConflictReason)))).toEqual([
      expect.stringMatching(/ended completed, a state it did not store/),
    ])
    expect(leaseViolations(recording([conflict], signalled("stopped", Checkpointing.CheckpointConflictReason)))).toEqual([])
  })

  it("asks no stop of a run that learned it lost its lease only after its last checkpoint, which the store took, was sent", () => {
    const stored = { runId: "lease-fuzz", seq: 2, state: completed }
    const last: LeaseEvent = { _tag: "Op", who: "run", op: "commit", outcome: "ok", seq: 2, body: "{}" }
    const rows = [{ seq: 1, body: "{}" }, { seq: 2, body: "{}" }]
    // Its end stored, then a renewal refused while the commit was answered: no stop needed.
    expect(leaseViolations(recording([last, lost], completed, { storedAfterRun: stored, rowsAfterRun: rows }))).toEqual([])
    // ... but the stored run must be its end.
    const other = { runId: "lease-fuzz", seq: 2, state: AgentState.withStatus(completed, "suspended", 1) }
    expect(leaseViolations(recording([last, lost], completed, { storedAfterRun: other, rowsAfterRun: rows }))).toEqual([
      expect.stringMatching(/the store holds another state/),
    ])
    // Learned before its last checkpoint was sent: the stop is needed (and the commit is late).
    expect(leaseViolations(recording([lost, last], completed, { storedAfterRun: stored, rowsAfterRun: rows }))).toEqual([
      expect.stringMatching(/committed checkpoint/),
      expect.stringMatching(/no stop naming the lease/),
    ])
    // Its last checkpoint refused: the conflict is what it learned, and it needs its stop.
    const refused: LeaseEvent = { ...last, outcome: "CheckpointConflict" }
    expect(leaseViolations(recording([refused, lost], completed, { storedAfterRun: stored, rowsAfterRun: rows }))).toEqual([expect.stringMatching(/no stop naming the lease or the conflict/)])
  })

  it("flags a tool started, or a checkpoint committed, after the run learned it lost its lease", () => {
    const tool: LeaseEvent = { _tag: "ToolStart", who: "run", callId: "run-1", key: "k" }
    const commit: LeaseEvent = { _tag: "Op", who: "run", op: "commit", outcome: "ok", seq: 1, body: "{}" }
    expect(leaseViolations(recording([lost, tool], leased, { rowsAfterRun: [] }))).toEqual([expect.stringMatching(/started after/)])
    expect(leaseViolations(recording([lost, commit], leased, { rowsAfterRun: [{ seq: 1, body: "{}" }] }))).toEqual([expect.stringMatching(/committed checkpoint/)])
    expect(leaseViolations(recording([tool, lost], leased))).toEqual([])
  })

  it("flags an acknowledged checkpoint that is gone, and a run that does not end", () => {
    const other: LeaseEvent = { _tag: "Op", who: "other", op: "commit", outcome: "ok", seq: 1, body: "a" }
    expect(leaseViolations(recording([other], completed))).toEqual([expect.stringMatching(/acknowledged and is gone/)])
    expect(leaseViolations(recording([other], completed, { rowsAfterRun: [{ seq: 1, body: "b" }] }))).toEqual([expect.stringMatching(/stored otherwise/)])
    expect(leaseViolations({ ...recording([], completed), exit: { _tag: "Timeout" } })).toEqual([expect.stringMatching(/did not end normally/)])
  })

  it("flags a journaled tool call that ran twice, and a recovery that did not finish", () => {
    const twice: ReadonlyArray<LeaseEvent> = [
      { _tag: "ToolStart", who: "run", callId: "run-1", key: "k" },
      { _tag: "ToolStart", who: "recovery", callId: "run-1", key: "k" },
    ]
    const recovery = { exit: { _tag: "Done" as const, state: completed }, stored: completed }
    expect(leaseViolations(recording(twice, completed, { journaled: ["run-1"], recovery }))).toEqual([expect.stringMatching(/ran 2 times/)])
    expect(leaseViolations(recording(twice, completed, { journaled: [], recovery }))).toEqual([])
    expect(leaseViolations(recording([], completed, { recovery: { exit: { _tag: "Failed", detail: "DecodeFailed" }, stored: undefined } }))).toEqual([
      expect.stringMatching(/resume failed: DecodeFailed/),
    ])
  })
})
