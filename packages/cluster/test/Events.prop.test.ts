// The batches a runner answers (internal/events.ts, pure) against any history of
// commits (steps added, suspensions, the end) and any interleaving of asks with any
// batch bounds: a consumer that goes on from each batch's cursor gets every step once,
// in order, each suspension at most once, and the end once, last. The runner's answer
// from the head alone (a cursor at the head) is applied as the handler does.
import { AgentState, AppendLog, type Step, ToolCall } from "@hookline/core"
import { Arbitraries } from "@hookline/testing"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { batchOf } from "../src/internal/events.js"
import * as RunEvent from "../src/RunEvent.js"

interface Commit {
  readonly steps: ReadonlyArray<Step>
  readonly status: "running" | "suspended"
  /** The call a suspension waits on: the same call over commits is the same suspension. */
  readonly call: string
  readonly asks: ReadonlyArray<{ readonly max: number; readonly maxBytes: number }>
}

const ask = fc.record({ max: fc.integer({ min: 1, max: 4 }), maxBytes: fc.integer({ min: 1, max: 3_000 }) })
const commit: fc.Arbitrary<Commit> = fc.record({
  steps: fc.array(Arbitraries.step(), { maxLength: 3 }),
  status: fc.constantFrom("running" as const, "suspended" as const),
  call: fc.constantFrom("a", "b"),
  asks: fc.array(ask, { maxLength: 2 }),
})

// A run comes back to an earlier suspension only through a new step: a resume decides
// calls of the step it waits on, so a later suspension at the same step count waits on
// fewer calls, never on a call it already left. A history that returns to an earlier
// suspension without a step (b, a, b) is not one a run can commit; it runs instead.
const realistic = (commits: ReadonlyArray<Commit>): ReadonlyArray<Commit> => {
  const seen = new Set<string>()
  let stepCount = 0
  let last: string | undefined
  return commits.map((c) => {
    stepCount += c.steps.length
    if (c.status !== "suspended") return c
    const key = `${stepCount}:${c.call}`
    if (seen.has(key) && key !== last) return { ...c, status: "running" as const }
    seen.add(key)
    last = key
    return c
  })
}

const stateAt = (steps: ReadonlyArray<Step>, status: AgentState.ExecutionStatus, callId: string): AgentState => {
  const base = AgentState.make({ id: "run" })
  return AgentState.withExecution(base, {
    ...base.execution,
    status,
    steps: AppendLog.fromIterable(steps.map((s, index) => ({ ...s, index }))),
    ...(status === "suspended" ? { pendingCalls: [{ toolCall: ToolCall.make({ id: callId, name: "charge" }), reason: "approve" }] } : {}),
  })
}

describe("RunEvent batches (property)", () => {
  it("give every step once and in order, a suspension at most once, the end once and last, whatever the asks", () => {
    fc.assert(
      fc.property(fc.array(commit, { minLength: 1, maxLength: 6 }).map(realistic), fc.constantFrom("completed" as const, "stopped" as const, "failed" as const), fc.array(ask, { minLength: 1, maxLength: 3 }), (commits, end, finalAsks) => {
        const steps: Array<Step> = []
        let seq = 0
        let saved = { seq, state: stateAt([], "pending", "") }
        let cursor = RunEvent.start
        const got: Array<RunEvent.WireEvent> = []
        const askOnce = (a: { readonly max: number; readonly maxBytes: number }) => {
          // The handler: a cursor at the head gets nothing; else the batch after it.
          const batch = cursor.seq > 0 && cursor.seq === saved.seq
            ? { events: [], cursor }
            : batchOf(saved, "charger", cursor, { maxEvents: a.max, maxBytes: a.maxBytes })
          expect(batch.events.length).toBeLessThanOrEqual(a.max)
          got.push(...batch.events)
          cursor = batch.cursor
        }
        commits.forEach((c) => {
          steps.push(...c.steps)
          saved = { seq: ++seq, state: stateAt(steps, c.status, c.call) }
          for (const a of c.asks) askOnce(a)
        })
        saved = { seq: ++seq, state: stateAt(steps, end, "") }
        // Asks until the end came (each ask moves on by at least one event).
        for (let i = 0; !cursor.ended && i < steps.length + commits.length + 5; i++) askOnce(finalAsks[i % finalAsks.length] as { max: number; maxBytes: number })
        const indexes = got.flatMap((e) => (e._tag === "StepEnded" ? [e.index] : []))
        expect(indexes).toEqual(steps.map((_, i) => i))
        const ends = got.flatMap((e, i) => (e._tag === "RunEnded" ? [i] : []))
        expect(ends).toEqual([got.length - 1])
        const suspensions = got.flatMap((e) => (e._tag === "Suspended" ? [e.cursor.suspension] : []))
        expect(new Set(suspensions).size).toBe(suspensions.length)
        // A stream that ended gets nothing more.
        expect(batchOf(saved, "charger", { ...cursor, seq: 0 }, { maxEvents: 4, maxBytes: 100 }).events).toEqual([])
      }),
      { numRuns: 200 },
    )
  })
})

describe("RunEvent batches (a subagent's call)", () => {
  it("give a second suspension of the same call, when a subagent behind it waits again on another of its calls", () => {
    // A subagent's call stays the parent's one pending call while the subagent waits
    // first on its call x, then (resumed) on its call y: two suspensions, no step between.
    const waiting = (on: string): AgentState => {
      const base = AgentState.make({ id: "run" })
      return AgentState.withExecution(base, {
        ...base.execution,
        status: "suspended",
        pendingCalls: [{ toolCall: ToolCall.make({ id: "sub-1", name: "refunds" }), reason: `subagent "refunds" waits for a decision on ${on}`, payload: { on } }],
      })
    }
    const first = batchOf({ seq: 1, state: waiting("x") }, "charger", RunEvent.start, { maxEvents: 4, maxBytes: 3_000 })
    expect(first.events.map((e) => e._tag)).toEqual(["Suspended"])
    // The same suspension read again (another runner, a later ask): nothing new.
    expect(batchOf({ seq: 2, state: waiting("x") }, "charger", first.cursor, { maxEvents: 4, maxBytes: 3_000 }).events).toEqual([])
    const second = batchOf({ seq: 3, state: waiting("y") }, "charger", first.cursor, { maxEvents: 4, maxBytes: 3_000 })
    expect(second.events.map((e) => e._tag)).toEqual(["Suspended"])
  })
})
