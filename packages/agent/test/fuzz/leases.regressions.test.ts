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
