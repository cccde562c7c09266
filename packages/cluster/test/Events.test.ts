// A run's events through the client (TestRunner: no network, messages in memory), over a
// MemoryStore: each committed step once and in order, a suspension, the run's end; a
// stream that goes on after a cursor; a hand-over mid-stream that loses and repeats
// nothing; a run no runner stores.
import { Decision } from "@hookline/agent"
import { AgentState, Codecs, Message } from "@hookline/core"
import { MemoryStore, RunStore } from "@hookline/store"
import { Effect, Fiber, Layer, Stream } from "effect"
import { TestRunner } from "effect/cluster"
import { describe, expect, it } from "vitest"
import { Client, ClusterAgent, RunEntity, type RunEvent } from "../src/index.js"
import { agents, type Charge } from "./support/agents.js"

// `faulty`: the handlers' store (not the agents') dies once on the first read after it
// is armed: the entity restarts, as on a runner's death, and its Start in flight is
// handed over and replayed.
const setup = (toolMillis = 0, clientOptions: Client.Options = {}) => {
  const store = MemoryStore.make()
  const charges: Array<Charge> = []
  const fault = { armed: false, fired: 0, takenOver: 0 }
  const faulty: RunStore.RunStore = {
    ...store,
    // A replayed Start of a stored run that is not finished takes it over (breaks its lease).
    releaseLease: (runId, owner) => Effect.suspend(() => {
      if (owner === undefined) fault.takenOver++
      return store.releaseLease(runId, owner)
    }),
    rows: (runId) =>
      Effect.suspend(() => {
        if (!fault.armed) return store.rows(runId)
        fault.armed = false
        fault.fired++
        return Effect.die(new Error("the runner died"))
      }),
  }
  const HooklineLive = Layer.effect(
    RunEntity.Hookline,
    Effect.map(ClusterAgent.register(agents((c) => charges.push(c), toolMillis), store, { lease: 10_000 }), (registered) => ({ store: faulty, agents: registered })),
  )
  const layer = Client.layer({ pollInterval: "10 millis", eventsPollInterval: "10 millis", ...clientOptions }).pipe(
    Layer.provideMerge(RunEntity.layer().pipe(Layer.provide(HooklineLive))),
    Layer.provideMerge(TestRunner.layer),
  )
  const run = <A, E>(f: (client: Client.ClientShape) => Effect.Effect<A, E>) =>
    Effect.runPromise(Effect.scoped(Effect.flatMap(Client.HooklineClient, f)).pipe(Effect.provide(layer)))
  return { store, charges, fault, run }
}

const tags = (events: ReadonlyArray<RunEvent.RunEvent>) => events.map((e) => (e._tag === "StepEnded" ? `step ${e.index}` : e._tag))

// The stored steps as JSON, to compare with the streamed ones.
const storedSteps = async (store: RunStore.RunStore, runId: string) =>
  (await RunStore.load(store, runId))?.state.execution.steps.toArray().map((s) => Codecs.encode(Codecs.Step, s))

const streamedSteps = (events: ReadonlyArray<RunEvent.RunEvent>) =>
  events.flatMap((e) => (e._tag === "StepEnded" ? [Codecs.encode(Codecs.Step, e.step)] : []))

describe("Client.events (TestRunner)", () => {
  it("gives each committed step once, in order, then RunEnded with the run's summary, and ends", async () => {
    const { store, run } = setup()
    const [events, result] = await run((client) =>
      Effect.gen(function*() {
        const runId = yield* client.start("charger", "charge me", { runId: "run-1" })
        const events = yield* Stream.runCollect(client.events(runId))
        return [events, yield* client.result(runId)] as const
      }))
    expect(tags(events)).toEqual(["step 0", "step 1", "step 2", "step 3", "RunEnded"])
    expect(events.at(-1)).toMatchObject({ _tag: "RunEnded", runId: "run-1", summary: result })
    expect(streamedSteps(events)).toEqual(await storedSteps(store, "run-1"))
  })

  it("goes on after an event's cursor with no gap and no repeat, a batch of one at a time, and as an async iterable", async () => {
    const { run } = setup(0, { eventsBatch: 1 })
    const [whole, first, rest, iterated] = await run((client) =>
      Effect.gen(function*() {
        const runId = yield* client.start("charger", "charge me")
        yield* client.result(runId)
        const whole = yield* Stream.runCollect(client.events(runId))
        const first = yield* Stream.runCollect(Stream.take(client.events(runId), 2))
        const rest = yield* Stream.runCollect(client.events(runId, { after: first.at(-1)?.cursor }))
        // The Promise form: `for await`, leaving early.
        const iterated = yield* Effect.promise(async () => {
          const seen: Array<RunEvent.RunEvent> = []
          for await (const event of Stream.toAsyncIterable(client.events(runId, { after: rest.at(0)?.cursor }))) {
            seen.push(event)
            if (seen.length === 1) break
          }
          return seen
        })
        return [whole, first, rest, iterated] as const
      }))
    expect(tags([...first, ...rest])).toEqual(tags(whole))
    expect(tags(rest)).toEqual(["step 2", "step 3", "RunEnded"])
    expect(tags(iterated)).toEqual(["step 3"])
    // After the end, nothing more: the stream ends at once.
    expect(whole.at(-1)?.cursor.ended).toBe(true)
  })

  it("ends at a suspension when asked; a stream after it waits across the resume and gives the rest once", async () => {
    const { store, run } = setup()
    const [untilSuspended, afterResume] = await run((client) =>
      Effect.gen(function*() {
        const runId = yield* client.start("approver", "charge me", { runId: "approval" })
        const untilSuspended = yield* Stream.runCollect(client.events(runId, { endAt: "suspension" }))
        const suspended = untilSuspended.at(-1) as RunEvent.RunEvent
        const watcher = yield* Effect.forkChild(Stream.runCollect(client.events(runId, { after: suspended.cursor })))
        const call = suspended._tag === "Suspended" ? (suspended.summary.pending[0]?.toolCallId as string) : ""
        yield* client.resume(runId, [Decision.approve(call)])
        return [untilSuspended, yield* Fiber.join(watcher)] as const
      }))
    expect(tags(untilSuspended)).toEqual(["Suspended"])
    expect(untilSuspended[0]).toMatchObject({ summary: { status: "suspended", pending: [{ reason: "approve the charge" }] } })
    expect(tags(afterResume)).toEqual(["step 0", "step 1", "step 2", "step 3", "RunEnded"])
    expect(afterResume.at(-1)).toMatchObject({ summary: { status: "completed" } })
    expect(streamedSteps([...untilSuspended, ...afterResume])).toEqual(await storedSteps(store, "approval"))
  })

  it("loses and repeats no committed event when the run's runner dies mid-run and another takes it over, nor when the entity restarts mid-stream", async () => {
    const { store, charges, fault, run } = setup(15)
    const events = await run((client) =>
      Effect.gen(function*() {
        const watcher = yield* Effect.forkChild(Stream.runCollect(
          client.events("moved").pipe(Stream.tap((e) =>
            Effect.sync(() => {
              // After the first step: the entity dies once (it restarts and replays what it had).
              if (e._tag === "StepEnded" && e.index === 0) fault.armed = true
            })
          )),
        ))
        // Runner A runs the run until its second step's first charge, then goes away:
        // the run stays stored `running` at its last committed step.
        const runnerA = yield* ClusterAgent.register(agents((c) => charges.push(c), 15), store, { lease: 10_000 })
        const initial = AgentState.make({ id: "moved", messages: [Message.user("charge me")] })
        const a = yield* Effect.forkChild(Effect.ignore((runnerA.get("charger") as ClusterAgent.Registered).agent.resumeEffect(initial, { interruption: "handOver" })))
        while (charges.length < 3) yield* Effect.sleep("5 millis")
        yield* Fiber.interrupt(a)
        // The shard's next owner: the Start finds the run stored and takes it over.
        yield* client.start("charger", "charge me", { runId: "moved" })
        return yield* Fiber.join(watcher)
      }))
    expect(fault.fired).toBe(1)
    expect(fault.takenOver).toBe(1)
    expect(tags(events)).toEqual(["step 0", "step 1", "step 2", "step 3", "RunEnded"])
    expect(events.at(-1)).toMatchObject({ summary: { status: "completed", text: "charged 6 times" } })
    expect(streamedSteps(events)).toEqual(await storedSteps(store, "moved"))
  })

  it("fails with a typed RunNotFound once notFoundAfter passed for a run no runner stores", async () => {
    const { run } = setup(0, { notFoundAfter: "100 millis" })
    const error = await run((client) => Effect.flip(Stream.runCollect(client.events("never-started"))))
    expect(error).toMatchObject({ _tag: "RunNotFound", runId: "never-started" })
  })

  it("fails with a typed UnknownAgent for a run stored with an agent no runner has", async () => {
    const { run } = setup()
    const error = await run((client) =>
      Effect.gen(function*() {
        yield* client.start("nobody", "hello", { runId: "lost?" })
        return yield* Effect.flip(Stream.runCollect(client.events("lost?")))
      }))
    expect(error).toMatchObject({ _tag: "UnknownAgent", runId: "lost?", agent: "nobody" })
  })
})
