// Cases the lease fuzzer (leases.fuzz.test.ts) found, kept as plain tests.
import { AgentBuilder, Tool, UseDriver, UseTools } from "@hookline/agent"
import { AgentState, Message } from "@hookline/core"
import { MemoryStore, RunStore, UseCheckpoints } from "@hookline/store"
import { ScriptedDriver } from "@hookline/testing"
import { Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import * as t from "io-ts"
import { describe, expect, it } from "vitest"
import { leaseViolations, runLeaseCase, type LeaseCase } from "./leases.js"

describe("UseCheckpoints under lost leases (found by the fuzzer)", () => {
  // Seed 43613431: the lease broken before the first checkpoint; the renewal inside the
  // step's one tool answers false; the next answer has no tool call, so nothing was
  // blocked, and the run ended completed with a state the store never held.
  const found: LeaseCase = {
    store: "observed",
    ending: false,
    endWait: 0,
    every: "tool",
    lease: 12,
    steps: [[20]],
    toolConcurrency: "sequential",
    fault: { _tag: "Break", at: { _tag: "Op", index: 2 } },
  }

  it("stops a run that learned it lost its lease, though no tool of it is refused after (seed 43613431)", async () => {
    expect(leaseViolations(await runLeaseCase(found))).toEqual([])
  })

  // Seed -1155538957: the lease broken inside the one tool; the final answer's step
  // written (or, on a store that ends a run in one statement, held); the heartbeat's
  // renewal refused while an AfterExecution hook above the store's waited. The run ended
  // completed with a state the store never held (its end's checkpoint, and the held
  // step's, not written).
  const atTheEnd: LeaseCase = {
    store: "atOnce",
    ending: false,
    endWait: 20,
    every: "tool",
    lease: 12,
    steps: [[0]],
    toolConcurrency: "sequential",
    fault: { _tag: "Break", at: { _tag: "Tool", index: 1 } },
  }

  it("ends stopped with RunLeased a run that learned it lost its lease at its end, after its last step (seed -1155538957)", async () => {
    for (const c of [atTheEnd, { ...atTheEnd, ending: true }, { ...atTheEnd, store: "observed" as const }, { ...atTheEnd, store: "observed" as const, ending: true }]) {
      const recording = await runLeaseCase(c)
      expect(leaseViolations(recording), JSON.stringify(c)).toEqual([])
      const final = recording.exit._tag === "Done" ? recording.exit.state : undefined
      expect(final?.execution.status, JSON.stringify(c)).toBe("stopped")
      expect(final?.execution.stopReason, JSON.stringify(c)).toBe("RunLeased")
    }
  })

  // Seed 937912959 (writes that take time, inflightfuzz): the lease broken before the
  // first checkpoint; the second call's start passed the lease check, then waited for the
  // first call's journal entry (10 virtual ms), during which the heartbeat's renewal
  // answered false; the call ran anyway, after the run knew it had lost its lease.
  const slowJournal: LeaseCase = {
    store: "observed",
    ending: false,
    endWait: 0,
    every: "tool",
    lease: 30,
    steps: [[0, 0], [0]],
    toolConcurrency: "sequential",
    fault: { _tag: "Break", at: { _tag: "Op", index: 2 } },
    wait: { commitBefore: 0, commitAfter: 0, journal: 10 },
  }

  it("starts no tool once the run learned it lost its lease while the previous result was journaled (seed 937912959)", async () => {
    for (const c of [slowJournal, { ...slowJournal, ending: true }]) {
      const recording = await runLeaseCase(c)
      expect(leaseViolations(recording), JSON.stringify(c)).toEqual([])
      // The second call refused: the run stopped with RunLeased after its step.
      expect(recording.events.filter((e) => e._tag === "ToolStart" && e.who === "run").length, JSON.stringify(c)).toBe(1)
      const final = recording.exit._tag === "Done" ? recording.exit.state : undefined
      expect(final?.execution.stopReason, JSON.stringify(c)).toBe("RunLeased")
    }
    // Concurrent calls both start before the first entry is written: nothing to refuse.
    expect(leaseViolations(await runLeaseCase({ ...slowJournal, toolConcurrency: "concurrent" }))).toEqual([])
  })

  it("ends a run that lost its lease in its last tool stopped with RunLeased, asking the model nothing more", async () => {
    const store = MemoryStore.make()
    let release: () => void = () => undefined
    let entered: () => void = () => undefined
    const inside = new Promise<void>((resolve) => (entered = resolve))
    const gate = new Promise<void>((resolve) => (release = resolve))
    const tool = Tool.make({
      name: "charge",
      parameters: t.type({ amount: t.number }),
      execute: async ({ amount }) => (entered(), await gate, { charged: amount }),
    })
    let modelCalls = 0
    const model = ScriptedDriver.make([
      ScriptedDriver.respond(() => (modelCalls++, ScriptedDriver.toolCalls([{ id: "c1", name: "charge", arguments: { amount: 1 } }]))),
      ScriptedDriver.respond(() => (modelCalls++, ScriptedDriver.text("done"))),
    ])
    const agent = AgentBuilder.make(UseDriver(model), UseTools([tool]), UseCheckpoints(store, { lease: "30 seconds" }))
    const program = Effect.gen(function*() {
      const fiber = yield* Effect.forkChild(agent.runEffect(AgentState.make({ id: "lost", messages: [Message.user("charge")] })))
      yield* Effect.promise(() => inside)
      const before = yield* RunStore.loadEffect(store, "lost")
      yield* Effect.promise(() => RunStore.breakLease(store, "lost"))
      // The heartbeat's next renewal answers false.
      yield* TestClock.adjust("10 seconds")
      release()
      const final = yield* Fiber.join(fiber)
      return { final, before, after: yield* RunStore.loadEffect(store, "lost") }
    })
    const { final, before, after } = await Effect.runPromise(Effect.provide(program, TestClock.layer()))
    expect(final.execution.status).toBe("stopped")
    expect(final.execution.stopReason).toBe("RunLeased")
    expect(final.execution.stopSignals.find((s) => s.reason === "RunLeased")?.message).toContain("lost its lease")
    expect(modelCalls).toBe(1)
    // It wrote no more checkpoints once it knew.
    expect(after?.seq).toBe(before?.seq)
  })
})
