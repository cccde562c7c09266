// What a run through the cluster costs its runner beyond the run itself: the reads of the
// store the entity makes (a run's own checkpoints and journal are the agent's), and the
// asks of `result`, which waits on the runner instead of polling.
import { Decision } from "@hookline/agent"
import { MemoryStore, type RunStore } from "@hookline/store"
import * as StoreTesting from "@hookline/store/testing"
import { Context, Effect, Fiber, Layer } from "effect"
import { ClusterSchema, TestRunner } from "effect/cluster"
import { describe, expect, it } from "vitest"
import { Cancellation, Client, ClusterAgent, Protocol, RunEntity } from "../src/index.js"
import { agents } from "./support/agents.js"

type Reads = { head: number; rows: number; journalGet: number; headAndJournal: number }

// A MemoryStore that counts its reads while `counting` is on, registered with the SQL
// stores' read of a run's head and a journal entry at once (one read, kept per store
// object: `RunStore.readHeadAndJournal`), so the entity reads it as it reads them.
const counted = () => {
  const inner = MemoryStore.make()
  const reads: Reads = { head: 0, rows: 0, journalGet: 0, headAndJournal: 0 }
  let counting = false
  const store: RunStore.RunStore = StoreTesting.withHeadAndJournal({
    ...inner,
    head: (runId) => Effect.suspend(() => (counting && reads.head++, inner.head(runId))),
    rows: (runId) => Effect.suspend(() => (counting && reads.rows++, inner.rows(runId))),
    journalGet: (runId, key) => Effect.suspend(() => (counting && reads.journalGet++, inner.journalGet(runId, key))),
  }, (runId, key) =>
    Effect.suspend(() => {
      if (counting) reads.headAndJournal++
      return Effect.map(Effect.all([inner.head(runId), inner.journalGet(runId, key)]), ([head, body]) => ({ head, body }))
    }))
  return { store, reads, count: (on: boolean) => (counting = on) }
}

const setup = (toolMillis: number, clientOptions: Client.Options) => setupWith(toolMillis, clientOptions, [])

const setupWith = (toolMillis: number, clientOptions: Client.Options, charges: Array<unknown>) => {
  const { store, reads, count } = counted()
  const HooklineLive = Layer.effect(
    RunEntity.Hookline,
    Effect.map(ClusterAgent.register(agents((c) => charges.push(c), toolMillis), store, { lease: 10_000 }), (registered) => ({ store, agents: registered })),
  )
  const layer = Client.layer(clientOptions).pipe(
    Layer.provideMerge(RunEntity.layer().pipe(Layer.provide(HooklineLive))),
    Layer.provideMerge(TestRunner.layer),
  )
  const run = <A, E>(f: (client: Client.ClientShape) => Effect.Effect<A, E>) =>
    Effect.runPromise(Effect.scoped(Effect.flatMap(Client.HooklineClient, f)).pipe(Effect.provide(layer)))
  return { store, reads, count, run }
}

describe("a run's cost on its runner", () => {
  it("reads the store twice at most for a new run's Start and its result, and not at all for a finished run's result or status", async () => {
    const { reads, count, run } = setup(0, { pollInterval: "10 millis" })
    const [first, again, status, finished] = await run((client) =>
      Effect.gen(function*() {
        count(true)
        const runId = yield* client.start("charger", "charge me", { runId: "cost-1" })
        const first = yield* client.result(runId)
        const started: Reads = { ...reads }
        const again = yield* client.result(runId)
        const status = yield* client.status(runId)
        count(false)
        return [first, again, status, { started, after: { ...reads } }] as const
      }))
    expect(first).toMatchObject({ runId: "cost-1", status: "completed", text: "charged 6 times", steps: 4 })
    expect(again).toEqual(first)
    expect(status).toEqual(first)
    // The run's head (not stored) and the cancel marker in one read, for the Start and its
    // result together: the Start's own, or the result's if it came first (the Start takes
    // it). No checkpoint is read back.
    expect(finished.started.rows).toBe(0)
    expect(finished.started.headAndJournal).toBe(1)
    expect(finished.started.journalGet).toBe(0)
    expect(finished.started.head).toBe(0)
    // A finished run's result and status are answered from what the runner holds.
    expect(finished.after).toEqual(finished.started)
  })

  it("reads a stored run's cancel marker once for a Start that comes again (as a redelivery does), and runs nothing again", async () => {
    const charges: Array<unknown> = []
    // Each `run` is a cluster of its own (its own message storage) over the same store:
    // the second one's Start reaches an entity of a run already stored, as a redelivered
    // Start does after its runner died or its reply was lost.
    const { reads, count, run } = setupWith(0, { pollInterval: "10 millis" }, charges)
    const first = await run((client) =>
      Effect.gen(function*() {
        yield* client.start("charger", "charge me", { runId: "cost-7" })
        return yield* client.result("cost-7")
      }))
    count(true)
    const [again, resumed] = await run((client) =>
      Effect.gen(function*() {
        yield* client.start("charger", "charge me", { runId: "cost-7" })
        // Handled after the Start (one at a time on the entity): the Start has been answered.
        const resumed = yield* client.resume("cost-7", [])
        return [yield* client.result("cost-7"), resumed] as const
      }))
    count(false)
    expect(again).toEqual(first)
    expect(resumed).toEqual(first)
    expect(charges).toHaveLength(6)
    // The Start: the head and the cancel marker in one read, the marker not read again;
    // the Resume of the run the Start answered finished: nothing.
    expect(reads.headAndJournal).toBe(1)
    expect(reads.journalGet).toBe(0)
  })

  it("answers a Resume of a run it answered finished without reading the store, and reads it again after a Cancel here", async () => {
    const charges: Array<unknown> = []
    const { reads, count, run } = setupWith(0, { pollInterval: "10 millis" }, charges)
    const [first, resumed, afterResume, cancelled, resumedAfterCancel] = await run((client) =>
      Effect.gen(function*() {
        yield* client.start("charger", "charge me", { runId: "cost-8" })
        const first = yield* client.result("cost-8")
        count(true)
        const resumed = yield* client.resume("cost-8", [])
        const afterResume = { ...reads }
        const cancelled = yield* client.cancel("cost-8")
        const resumedAfterCancel = yield* client.resume("cost-8", [Decision.approve("none")])
        count(false)
        return [first, resumed, afterResume, cancelled, resumedAfterCancel] as const
      }))
    expect(first).toMatchObject({ status: "completed", steps: 4 })
    expect(resumed).toEqual(first)
    expect(afterResume).toEqual({ head: 0, rows: 0, journalGet: 0, headAndJournal: 0 })
    // A cancel of a finished run leaves it as it is; the Resume after it reads the store.
    expect(cancelled).toEqual(first)
    expect(resumedAfterCancel).toEqual(first)
    expect(reads.journalGet).toBeGreaterThan(0)
    expect(charges).toHaveLength(6)
  })

  it("lets a Start that its result overtook take the result's read of the run, and honours a cancel marker in it", async () => {
    const charges: Array<unknown> = []
    const { store, reads, count, run } = setupWith(0, { pollInterval: "1 hour", resultWait: "10 seconds" }, charges)
    const [plain, marked] = await run((client) =>
      Effect.gen(function*() {
        const one = (runId: string) =>
          Effect.gen(function*() {
            const before = reads.headAndJournal
            const headsBefore = reads.head
            // The result is on the runner and has read the run (not stored) before the Start is sent.
            const result = yield* Effect.forkChild(client.result(runId))
            while (reads.headAndJournal === before && reads.head === headsBefore) yield* Effect.sleep("1 millis")
            yield* client.start("charger", "charge me", { runId })
            const summary = yield* Fiber.join(result)
            return { summary, reads: reads.headAndJournal - before }
          })
        count(true)
        const plain = yield* one("cost-9")
        // A cancel stored by another runner (not this entity): the result's read has its
        // marker, and the Start stores the run stopped, running nothing.
        yield* Effect.orDie(store.journalPut("cost-10", Cancellation.markerKey, "{}"))
        const marked = yield* one("cost-10")
        count(false)
        return [plain, marked] as const
      }))
    expect(plain.summary).toMatchObject({ status: "completed", steps: 4 })
    expect(plain.reads).toBe(1)
    expect(marked.summary).toMatchObject({ status: "stopped", stopReason: "UserRequested" })
    expect(marked.reads).toBe(1)
    expect(charges).toHaveLength(6)
  })

  it("honours a cancel marker stored after the result's read of the run, with a Resume between them, in the Start that follows", async () => {
    const charges: Array<unknown> = []
    const { store, reads, count, run } = setupWith(0, { pollInterval: "1 hour", resultWait: "10 seconds" }, charges)
    const [summary, missing] = await run((client) =>
      Effect.gen(function*() {
        count(true)
        const result = yield* Effect.forkChild(client.result("cost-11"))
        while (reads.headAndJournal + reads.head === 0) yield* Effect.sleep("1 millis")
        // Stored after the result's read (as by another runner), then a Resume here: the
        // result's read is dropped, and the Start that follows reads the marker itself.
        yield* Effect.orDie(store.journalPut("cost-11", Cancellation.markerKey, "{}"))
        const missing = yield* Effect.flip(client.resume("cost-11", []))
        yield* client.start("charger", "charge me", { runId: "cost-11" })
        const summary = yield* Fiber.join(result)
        count(false)
        return [summary, missing] as const
      }))
    expect(missing._tag).toBe("RunNotFound")
    expect(summary).toMatchObject({ status: "stopped", stopReason: "UserRequested" })
    expect(charges).toHaveLength(0)
  })

  it("answers result when the run ends, from one ask that waits on the runner, not from a poll", async () => {
    // A poll every hour: only a wait on the runner answers before the test's time limit.
    const { run } = setup(20, { pollInterval: "1 hour", resultWait: "10 seconds" })
    const [early, late, suspended] = await run((client) =>
      Effect.gen(function*() {
        // Asked before the Start: the ask waits for it, then for the run's end.
        const early = yield* Effect.forkChild(client.result("cost-2"))
        yield* client.start("charger", "charge me", { runId: "cost-2" })
        const late = yield* client.result("cost-2")
        const approver = yield* client.start("approver", "charge me", { runId: "cost-3" })
        const suspended = yield* client.result(approver)
        return [yield* Fiber.join(early), late, suspended] as const
      }))
    expect(early).toMatchObject({ status: "completed", steps: 4 })
    expect(late).toEqual(early)
    expect(suspended.status).toBe("suspended")
  })

  it("answers result after a Resume sent before it, and a cancel's stopped run from what it stored", async () => {
    const { run } = setup(0, { pollInterval: "10 millis" })
    const [resumed, cancelled, status] = await run((client) =>
      Effect.gen(function*() {
        const a = yield* client.start("approver", "charge me", { runId: "cost-4" })
        const suspended = yield* client.result(a)
        const resumed = yield* client.resume(a, [Decision.approve(suspended.pending[0]?.toolCallId as string)])
        const b = yield* client.start("approver", "charge me", { runId: "cost-5" })
        yield* client.result(b)
        yield* client.cancel(b)
        return [resumed, yield* client.result(b), yield* client.status(b)] as const
      }))
    expect(resumed.status).toBe("completed")
    expect(cancelled).toMatchObject({ status: "stopped", stopReason: "UserRequested" })
    expect(status).toEqual(cancelled)
  })

  it("answers result after a Resume interrupted while it waited behind the run's Start", async () => {
    const charges: Array<unknown> = []
    const { run } = setupWith(100, { pollInterval: "10 millis" }, charges)
    const result = await run((client) =>
      Effect.gen(function*() {
        const runId = yield* client.start("charger", "charge me", { runId: "cost-6" })
        while (charges.length === 0) yield* Effect.sleep("5 millis")
        // Queued behind the Start in flight, then given up by its caller.
        const resume = yield* Effect.forkChild(client.resume(runId, []))
        yield* Effect.sleep("50 millis")
        yield* Fiber.interrupt(resume)
        return yield* client.result(runId)
      }))
    expect(result).toMatchObject({ status: "completed", steps: 4 })
  })

  it("lets a runner shutting down interrupt a waiting Result rather than wait for it (the client asks the next owner)", () => {
    expect(Context.get(Protocol.Result.annotations, ClusterSchema.InterruptOnTermination)).toBe(true)
  })
})
