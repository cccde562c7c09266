import { AgentState, Codecs, Message, Step, StopSignal, ToolCall, ToolExecution } from "@hookline/core"
import { Arbitraries } from "@hookline/testing"
import { Effect, Exit } from "effect"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { Checkpoint, MemoryStore, RunStore, StoreError } from "../src/index.js"
import { promiseOf } from "./support/promiseStore.js"

// One step of a run: an assistant message with a tool call, its result, the step record.
const addStep = (state: AgentState, i: number): AgentState => {
  const call = ToolCall.make({ id: `call-${i}`, name: "lookup", arguments: { n: i } })
  const execution = ToolExecution.success(call, { value: i * 2 }, 1_000 + i, 1_001 + i)
  const withMessages = AgentState.appendMessages(state, [Message.assistant(`step ${i}`, [call]), ToolExecution.toMessage(execution)])
  return AgentState.appendStep(withMessages, Step.make({ index: i, startedAt: 1_000 + i, toolExecutions: [execution], completedAt: 1_002 + i }))
}

const fresh = (id = "run-1") =>
  AgentState.withStatus(AgentState.make({ id, systemPrompt: "be brief", messages: [Message.user("hi")] }), "running", 5)

const encoded = (state: AgentState) => Codecs.encode(Codecs.AgentState, state)

describe("Checkpoint", () => {
  describe("diff", () => {
    it("is undefined when nothing changed", () => {
      const s = fresh()
      expect(Checkpoint.diff(s, s)).toBeUndefined()
    })

    it("holds only the new messages, the new step and the changed execution fields", () => {
      const before = addStep(fresh(), 0)
      const after = addStep(before, 1)
      const delta = Checkpoint.diff(before, after)
      expect(delta?.messages?.from).toBe(3)
      expect(delta?.messages?.items).toHaveLength(2)
      expect(delta?.steps).toMatchObject({ from: 1 })
      expect(delta?.steps?.items).toHaveLength(1)
      expect(delta?.systemPrompt).toBeUndefined()
      expect(delta?.status).toBeUndefined()
    })

    it("writes a history that was rewritten (not appended to) whole", () => {
      const before = addStep(addStep(fresh(), 0), 1)
      const rewritten = AgentState.withContext(before, {
        ...before.context,
        messages: Codecs.decodeUnsafe(Codecs.appendLog(Codecs.Message), [{ role: "user", content: "summary" }]),
      })
      expect(Checkpoint.diff(before, rewritten)?.messages).toMatchObject({ from: 0 })
    })
  })

  describe("rebuild", () => {
    it("gives back a state equal to the one saved, delta after delta", async () => {
      const store = MemoryStore.make()
      let state = fresh()
      let saved = await RunStore.save(store, state)
      for (let i = 0; i < 5; i++) {
        state = addStep(state, i)
        if (i === 2) state = AgentState.withStopSignal(state, StopSignal.make("StopRequested", "enough", "test"))
        saved = await RunStore.save(store, state, saved)
      }
      state = AgentState.withStatus(state, "completed", 99)
      saved = await RunStore.save(store, state, saved)
      const loaded = await RunStore.load(store, "run-1")
      expect(loaded?.seq).toBe(7)
      expect(loaded?.state).toEqual(state)
      expect(encoded(loaded!.state)).toEqual(encoded(state))
    })

    it("keeps the record of a suspended step, and forgets it once the step ended", async () => {
      const store = MemoryStore.make()
      const call = ToolCall.make({ id: "call-a", name: "lookup", arguments: {} })
      const ran = ToolExecution.success(call, { value: 1 }, 1_000, 1_001)
      const open = Step.make({ index: 0, startedAt: 1_000, toolExecutions: [ran], completedAt: 1_002 })
      const start = fresh()
      let saved = await RunStore.save(store, start)
      const suspended = AgentState.withSuspendedStep(AgentState.withStatus(start, "suspended"), open)
      saved = await RunStore.save(store, suspended, saved)
      expect((await RunStore.load(store, "run-1"))?.state.execution.suspendedStep).toEqual(open)
      expect(encoded((await RunStore.load(store, "run-1"))!.state)).toEqual(encoded(suspended))
      const ended = AgentState.appendStep(AgentState.withSuspendedStep(AgentState.withStatus(suspended, "running"), undefined), open)
      expect(Checkpoint.diff(suspended, ended)?.suspendedStep).toBeNull()
      await RunStore.save(store, ended, saved)
      const loaded = await RunStore.load(store, "run-1")
      expect(loaded?.state.execution.suspendedStep).toBeUndefined()
      expect(loaded?.state).toEqual(ended)
    })

    it("rebuilds any state the arbitraries make, saved after any prefix of it", async () => {
      await fc.assert(
        fc.asyncProperty(Arbitraries.agentState(), fc.nat(), async (state, cut) => {
          const store = MemoryStore.make()
          const messages = state.context.messages.toArray()
          const at = messages.length === 0 ? 0 : cut % (messages.length + 1)
          const prefix = AgentState.withContext(state, {
            ...state.context,
            messages: Codecs.decodeUnsafe(Codecs.appendLog(Codecs.Message), Codecs.encode(Codecs.appendLog(Codecs.Message), state.context.messages).slice(0, at)),
          })
          const first = await RunStore.save(store, prefix)
          await RunStore.save(store, state, first)
          const loaded = await RunStore.load(store, state.id)
          expect(encoded(loaded!.state)).toEqual(encoded(state))
          expect(loaded!.state).toEqual(state)
        }),
        { numRuns: 60 },
      )
    })

    it("writes as many bytes per step at a history of 1,000 steps as at 10", async () => {
      const bytesOfStepAt = async (history: number) => {
        const bodies: Array<number> = []
        const store = RunStore.fromPromise({
          ...promiseOf(MemoryStore.make()),
          commit: async (commit) => {
            bodies.push(commit.body.length)
          },
        })
        let state = fresh()
        for (let i = 0; i < history; i++) state = addStep(state, i % 7)
        const saved = { runId: state.id, seq: 1, state }
        await RunStore.save(store, addStep(state, 3), saved)
        return bodies[0]
      }
      const small = await bytesOfStepAt(10)
      expect(small).toBeGreaterThan(0)
      // Only the indices' digits grow (from 3 to 4 characters each).
      expect(await bytesOfStepAt(1_000)).toBeLessThanOrEqual((small as number) + 8)
    })

    it("refuses a checkpoint past the byte bound before the store sees it, and keeps what was committed", async () => {
      const written: Array<number> = []
      const inner = MemoryStore.make()
      const store = RunStore.fromPromise({
        ...promiseOf(inner),
        commit: (commit) => (written.push(commit.seq), Effect.runPromise(inner.commit(commit))),
      })
      const first = await RunStore.save(store, fresh())
      const huge = AgentState.appendMessage(first.state, Message.user("x".repeat((Checkpoint.limits.maxBytes as number) + 1)))
      const error = await Effect.runPromise(Effect.flip(RunStore.saveEffect(store, huge, first)))
      expect(error).toBeInstanceOf(StoreError.CheckpointRefused)
      expect(error).toMatchObject({ runId: first.runId, seq: 2, path: "" })
      expect(error.message).toContain("maxBytes")
      expect(written).toEqual([])
      expect((await RunStore.load(store, first.runId))?.state).toEqual(first.state)
      // A bound, not a timing: writing 64 MiB of JSON text takes ~1-2 s alone on this
      // machine kind and several times that beside other work on two cores.
    }, 60_000)

    it("names the path and the bound of a value that would not load back", () => {
      const state = AgentState.make({ id: "run-1", metadata: { xs: Array.from({ length: 100_001 }, (_, i) => i) } })
      const refused = Checkpoint.encodeChecked("run-1", 1, Checkpoint.diff(undefined, state)!)
      expect(refused).toMatchObject({ _tag: "Failure", failure: { _tag: "CheckpointRefused", path: "metadata.xs", seq: 1 } })
      expect(refused._tag === "Failure" && refused.failure.message).toContain("100000 items (the maxItems limit)")
    })

    it("names the path of a corrupt row and of an unknown format version", async () => {
      const rowsOf = (rows: ReadonlyArray<Checkpoint.Row>) => Checkpoint.rebuild("run-1", rows)
      const good = Checkpoint.toJson(Checkpoint.diff(undefined, fresh())!)
      const corrupt = JSON.stringify({ v: 1, id: "run-1", messages: { from: 1, items: [{ role: "robot", content: "x" }] } })
      const bad = rowsOf([{ seq: 1, body: good }, { seq: 2, body: corrupt }])
      expect(bad).toMatchObject({ _tag: "Failure", failure: { _tag: "DecodeFailed", path: "checkpoints[1].messages.items[0].role" } })
      const future = rowsOf([{ seq: 1, body: JSON.stringify({ v: 3, id: "run-1" }) }])
      expect(future).toMatchObject({ _tag: "Failure", failure: { _tag: "DecodeFailed", path: "checkpoints[0].v" } })
      expect(rowsOf([{ seq: 1, body: "{not json" }])).toMatchObject({ failure: { _tag: "DecodeFailed", path: "checkpoints[0]" } })
      expect(rowsOf([{ seq: 1, body: good }, { seq: 3, body: good }])).toMatchObject({ failure: { path: "checkpoints[1].seq" } })
      const gap = JSON.stringify({ v: 1, id: "run-1", steps: { from: 4, items: [] } })
      expect(rowsOf([{ seq: 1, body: good }, { seq: 2, body: gap }])).toMatchObject({ failure: { path: "checkpoints[1].steps.from" } })
    })
  })

  describe("RunStore.save", () => {
    it("lets one of two writers from the same head commit; the other gets CheckpointConflict", async () => {
      const store = MemoryStore.make()
      const first = await RunStore.save(store, fresh())
      const winner = addStep(first.state, 0)
      await RunStore.save(store, winner, first)
      const exit = await Effect.runPromiseExit(RunStore.saveEffect(store, addStep(first.state, 1), first))
      expect(exit).toMatchObject({ _tag: "Failure" })
      const rejected = await RunStore.save(store, addStep(first.state, 1), first).catch((e: unknown) => e)
      expect(rejected).toBeInstanceOf(StoreError.CheckpointConflict)
      expect(rejected).toMatchObject({ _tag: "CheckpointConflict", runId: "run-1", expected: 1, actual: 2 })
      expect((await RunStore.load(store, "run-1"))?.state).toEqual(winner)
      expect(Exit.isFailure(exit)).toBe(true)
    })
  })
})
