// The HooklineRun entity and the client in one process (TestRunner: no network, messages
// in memory), over a MemoryStore: start, result, approvals, cancel, and the typed errors
// that keep a run rather than lose it.
import { Decision } from "@hookline/agent"
import { AgentState, Message } from "@hookline/core"
import { MemoryStore, RunStore } from "@hookline/store"
import { Effect, Layer } from "effect"
import { TestRunner } from "effect/cluster"
import { describe, expect, it } from "vitest"
import { Client, ClusterAgent, RunEntity } from "../src/index.js"
import { agents, type Charge } from "./support/agents.js"

const setup = (toolMillis = 0, clientOptions: Client.Options = {}) => {
  const store = MemoryStore.make()
  const charges: Array<Charge> = []
  const HooklineLive = Layer.effect(
    RunEntity.Hookline,
    Effect.map(ClusterAgent.register(agents((c) => charges.push(c), toolMillis), store, { lease: 10_000 }), (registered) => ({ store, agents: registered })),
  )
  const layer = Client.layer({ pollInterval: "10 millis", ...clientOptions }).pipe(
    Layer.provideMerge(RunEntity.layer().pipe(Layer.provide(HooklineLive))),
    Layer.provideMerge(TestRunner.layer),
  )
  const run = <A, E>(f: (client: Client.ClientShape) => Effect.Effect<A, E>) =>
    Effect.runPromise(Effect.scoped(Effect.flatMap(Client.HooklineClient, f)).pipe(Effect.provide(layer)))
  return { store, charges, run }
}

const amounts = (charges: ReadonlyArray<Charge>, runId: string) => charges.filter((c) => c.runId === runId).map((c) => c.amount).sort((a, b) => a - b)

describe("HooklineRun (TestRunner)", () => {
  it("starts a run by agent name and gives its result; a second Start of the id runs nothing again", async () => {
    const { charges, run } = setup()
    const [first, again, status] = await run((client) =>
      Effect.gen(function*() {
        const runId = yield* client.start("charger", "charge me", { runId: "run-1" })
        const first = yield* client.result(runId)
        yield* client.start("charger", "charge me", { runId })
        const again = yield* client.result(runId)
        return [first, again, yield* client.status(runId)] as const
      }))
    expect(first).toMatchObject({ runId: "run-1", agent: "charger", status: "completed", text: "charged 6 times", steps: 4 })
    expect(again).toEqual(first)
    expect(status).toEqual(first)
    expect(amounts(charges, "run-1")).toEqual([0, 1, 10, 11, 20, 21])
  })

  it("suspends for an approval, resumes with the decision, and a repeated decision is a no-op", async () => {
    const { charges, run } = setup()
    const [suspended, resumed, repeated] = await run((client) =>
      Effect.gen(function*() {
        const runId = yield* client.start("approver", "charge me")
        const suspended = yield* client.result(runId)
        const call = suspended.pending[0]?.toolCallId as string
        const resumed = yield* client.resume(runId, [Decision.approve(call)])
        const repeated = yield* client.resume(runId, [Decision.approve(call)])
        return [suspended, resumed, repeated] as const
      }))
    expect(suspended.status).toBe("suspended")
    expect(suspended.pending.map((p) => p.reason)).toEqual(["approve the charge"])
    expect(resumed.status).toBe("completed")
    expect(repeated).toEqual(resumed)
    expect(amounts(charges, resumed.runId)).toEqual([0, 1, 10, 11, 20, 21])
  })

  it("refuses a malformed decision with a typed RunRejected naming the agent's error, and keeps the run", async () => {
    const { run } = setup()
    const [error, status] = await run((client) =>
      Effect.gen(function*() {
        const runId = yield* client.start("approver", "charge me")
        yield* client.result(runId)
        const error = yield* Effect.flip(client.resume(runId, [{ _tag: "Approve", toolCallId: "nope" }]))
        return [error, yield* client.status(runId)] as const
      }))
    expect(error).toMatchObject({ _tag: "RunRejected", reason: "DecisionInvalid" })
    expect(status.status).toBe("suspended")
  })

  it("answers an unknown agent with a typed UnknownAgent naming it, and keeps the run in the store", async () => {
    const { store, run } = setup()
    const error = await run((client) =>
      Effect.gen(function*() {
        const runId = yield* client.start("nobody", "hello", { runId: "lost?" })
        return yield* Effect.flip(client.result(runId))
      }))
    expect(error).toMatchObject({ _tag: "UnknownAgent", runId: "lost?", agent: "nobody" })
    const saved = await RunStore.load(store, "lost?")
    expect(saved?.envelope?.agent).toBe("nobody")
    expect(saved?.state.context.messages.toArray().map((m) => m.content)).toEqual(["hello"])
  })

  it("answers a run stored with another tool set with a typed ToolSetMismatch, and leaves it as stored", async () => {
    const { store, run } = setup()
    const state = AgentState.make({ id: "old", messages: [Message.user("charge me")] })
    const toolSet = { tools: [{ name: "charge", schema: `sha256:${"0".repeat(64)}` }] }
    await Effect.runPromise(RunStore.startEffect(store, state, { envelope: { agent: "charger", toolSet } }))
    const errors = await run((client) => Effect.all([Effect.flip(client.result("old")), Effect.flip(client.start("charger", "x", { runId: "old" }).pipe(Effect.andThen(client.result("old"))))]))
    expect(errors.map((e) => e._tag)).toEqual(["ToolSetMismatch", "ToolSetMismatch"])
    expect((await RunStore.load(store, "old"))?.state.execution.status).toBe("pending")
  })

  it("cancels a suspended run: it ends stopped once, and a later resume runs nothing", async () => {
    const { charges, run } = setup()
    const [cancelled, resumed] = await run((client) =>
      Effect.gen(function*() {
        const runId = yield* client.start("approver", "charge me")
        const suspended = yield* client.result(runId)
        const cancelled = yield* client.cancel(runId)
        const resumed = yield* client.resume(runId, [Decision.approve(suspended.pending[0]?.toolCallId as string)])
        return [cancelled, resumed] as const
      }))
    expect(cancelled).toMatchObject({ status: "stopped", stopReason: "UserRequested" })
    expect(resumed).toEqual(cancelled)
    expect(amounts(charges, resumed.runId)).toEqual([0])
  })

  it("cancels a run before its Start: the Start stores it stopped, running nothing", async () => {
    const { charges, run } = setup()
    const [cancelled, result] = await run((client) =>
      Effect.gen(function*() {
        const cancelled = yield* client.cancel("queued")
        yield* client.start("charger", "charge me", { runId: "queued" })
        return [cancelled, yield* client.result("queued")] as const
      }))
    expect(cancelled).toBeNull()
    expect(result).toMatchObject({ status: "stopped", stopReason: "UserRequested", steps: 0 })
    expect(charges).toEqual([])
  })

  it("cancels a run in flight: Cancel answers while the Start runs, and the run ends stopped", async () => {
    const { charges, run } = setup(20)
    const result = await run((client) =>
      Effect.gen(function*() {
        const runId = yield* client.start("charger", "charge me")
        // The first charge is under way: the run is in flight.
        while (charges.length === 0) yield* Effect.sleep("5 millis")
        yield* client.cancel(runId)
        return yield* client.result(runId)
      }))
    expect(result).toMatchObject({ status: "stopped", stopReason: "UserRequested" })
    expect(charges.length).toBeLessThan(6)
  })

  it("fails result of a run no runner stores with a typed RunNotFound once notFoundAfter passed, not polling forever", async () => {
    const { run } = setup(0, { notFoundAfter: "100 millis" })
    const error = await run((client) => Effect.flip(client.result("never-started")))
    expect(error).toMatchObject({ _tag: "RunNotFound", runId: "never-started" })
  })

  it("fails result of a run that neither ends nor suspends with a typed ResultTimedOut after its timeout; the run goes on", async () => {
    // Each charge takes 2 s: the run is running when the result gives up.
    const { run } = setup(1_000)
    const [error, status] = await run((client) =>
      Effect.gen(function*() {
        const runId = yield* client.start("charger", "charge me", { runId: "slow" })
        const error = yield* Effect.flip(client.result(runId, { timeout: "300 millis" }))
        return [error, yield* client.status(runId)] as const
      }))
    expect(error).toMatchObject({ _tag: "ResultTimedOut", runId: "slow", millis: 300 })
    expect(error).toBeInstanceOf(Client.ResultTimedOut)
    expect(status.status).toBe("running")
  })
})
