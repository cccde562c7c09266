// A hand-over is not a stop (issue 29): a run whose fiber is interrupted with
// `interruption: "handOver"` (its runner shuts down, its cluster entity is evicted) ends
// without a stop signal, checkpointed `running` at its last committed step, its lease
// released, so a new owner's resume goes on from there to the final state an
// uninterrupted run reaches. Only the abort signal stops it.
import { AgentBuilder, Tool, UseDriver, UseGuards, UseHook, UseTools } from "@hookline/agent"
import { AgentState, Hook, HookTriggers, Message, StopSignal } from "@hookline/core"
import { Deferred, Effect, Fiber } from "effect"
import * as t from "io-ts"
import { describe, expect, it } from "vitest"
import { MemoryStore, RunStore, UseCheckpoints } from "../src/index.js"
import { chargeModel, normalizedMessages } from "./support/charges.js"

interface World {
  readonly ran: Array<number>
  /** The amount whose call hangs (until interrupted), or none. */
  hangOn: number | undefined
  readonly entered: Deferred.Deferred<void>
  afterExecution: Array<string>
}

const worldOf = (hangOn?: number): World => ({ ran: [], hangOn, entered: Deferred.makeUnsafe<void>(), afterExecution: [] })

const agentOf = (store: RunStore.RunStore, world: World) => {
  const charge = Tool.make({
    name: "charge",
    parameters: t.type({ amount: t.number }),
    execute: ({ amount }) =>
      Effect.gen(function*() {
        if (amount === world.hangOn) {
          Deferred.doneUnsafe(world.entered, Effect.void)
          return yield* Effect.never
        }
        world.ran.push(amount)
        return { charged: amount }
      }),
  })
  const seeEnd = Hook.observe((ctx) => {
    world.afterExecution.push(ctx.state.execution.status)
  })
  return AgentBuilder.make(
    UseDriver(chargeModel()),
    UseTools([charge]),
    UseGuards({ maxSteps: 10 }),
    UseCheckpoints(store),
    UseHook(seeEnd, { triggers: HookTriggers.of("AfterExecution"), name: "see_end" }),
  )
}

const outcomeOf = (state: AgentState) => ({
  messages: normalizedMessages(state),
  status: state.execution.status,
  stopReason: state.execution.stopReason,
  steps: state.execution.steps.length,
  usage: state.execution.usage,
})

const initial = (id: string) => AgentState.make({ id, messages: [Message.user("charge me")] })

// Runs until the call of `amount` hangs, then interrupts the run's fiber.
const interruptedAt = (store: RunStore.RunStore, world: World, id: string, interruption: "stop" | "handOver" | undefined) =>
  Effect.gen(function*() {
    const agent = agentOf(store, world)
    const fiber = yield* Effect.forkChild(agent.runEffect(initial(id), interruption === undefined ? {} : { interruption }))
    yield* Deferred.await(world.entered)
    yield* Fiber.interrupt(fiber)
  })

describe("a run handed over (interruption: \"handOver\")", () => {
  it("is checkpointed running at its last committed step, its lease released, and a resume ends as an uninterrupted run", async () => {
    const store = MemoryStore.make()
    const reference = await agentOf(store, worldOf()).run(initial("ref"))
    expect(reference.execution.status).toBe("completed")

    const world = worldOf(11)
    await Effect.runPromise(interruptedAt(store, world, "moved", "handOver"))
    const saved = await RunStore.load(store, "moved")
    expect(saved?.state.execution.status).toBe("running")
    expect(saved?.state.execution.stopSignals).toEqual([])
    expect(saved?.state.execution.stopReason).toBeUndefined()
    // The first step committed; the second (amount 10 ran, 11 hung) did not.
    expect(saved?.state.execution.steps.length).toBe(1)
    // AfterExecution ran once, and saw the run still running.
    expect(world.afterExecution).toEqual(["running"])

    // The new owner: no breakLease needed, the lease was released.
    const next = worldOf()
    const resumed = await agentOf(store, next).resume("moved")
    expect(outcomeOf(resumed)).toEqual(outcomeOf(reference))
    // The journaled call of the unfinished step (amount 10) did not run again.
    expect([...world.ran, ...next.ran].sort((a, b) => a - b)).toEqual([0, 1, 10, 11, 20, 21])
  })

  it("still stops on the abort signal", async () => {
    const store = MemoryStore.make()
    const world = worldOf(11)
    const controller = new AbortController()
    const final = await Effect.runPromise(Effect.gen(function*() {
      const agent = agentOf(store, world)
      const fiber = yield* Effect.forkChild(agent.runEffect(initial("aborted"), { interruption: "handOver", signal: controller.signal }))
      yield* Deferred.await(world.entered)
      controller.abort()
      return yield* Fiber.join(fiber)
    }))
    expect(final.execution.status).toBe("stopped")
    expect(StopSignal.highest(final.execution.stopSignals)?.reason).toBe("UserRequested")
    expect((await RunStore.load(store, "aborted"))?.state.execution.status).toBe("stopped")
  })

  it("is a stop by default: an interrupted run ends stopped (UserRequested), as before", async () => {
    const store = MemoryStore.make()
    const world = worldOf(11)
    await Effect.runPromise(interruptedAt(store, world, "stopped", undefined))
    const saved = await RunStore.load(store, "stopped")
    expect(saved?.state.execution.status).toBe("stopped")
    expect(saved?.state.execution.stopReason).toBe("UserRequested")
  })
})

describe("RunStore.breakLeaseEffect", () => {
  it("drops whoever holds the run's lease, as breakLease does, and answers whether one was dropped", async () => {
    const store = MemoryStore.make()
    const program = Effect.gen(function*() {
      yield* store.takeLease({ runId: "r", owner: "dead-runner", expiresAt: Number.MAX_SAFE_INTEGER }, 0)
      const first = yield* RunStore.breakLeaseEffect(store, "r")
      const second = yield* RunStore.breakLeaseEffect(store, "r")
      // Free now: another owner takes it at once.
      yield* store.takeLease({ runId: "r", owner: "new-owner", expiresAt: Number.MAX_SAFE_INTEGER }, 0)
      return [first, second]
    })
    expect(await Effect.runPromise(program)).toEqual([true, false])
  })
})
