// A load that reads a run's head just before the run is created and its rows just after
// (a reader racing a writer: another process's Status or Events call while a Start
// stores the run) sees the run not stored yet, or stored; never a `CheckpointMissing`,
// which means a store that lost its head record, and that still fails as before.
import { AgentState, Message } from "@hookline/core"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { MemoryStore, RunStore } from "../src/index.js"

const state = AgentState.make({ id: "racing", messages: [Message.user("hi")] })

describe("RunStore.loadEffect", () => {
  it("reads a run created between its head read and its rows read as a run, not as a lost head record", async () => {
    const store = MemoryStore.make()
    // The head is read, then the run is created, then the rows are read.
    const racing: RunStore.RunStore = {
      ...store,
      head: (runId) => Effect.tap(store.head(runId), () => Effect.ignore(RunStore.startEffect(store, state))),
    }
    const saved = await Effect.runPromise(RunStore.loadEffect(racing, "racing"))
    expect(saved?.seq).toBe(1)
    expect(saved?.state.context.messages.toArray().map((m) => m.content)).toEqual(["hi"])
  })

  it("still fails with CheckpointMissing when the run's rows are there and its head record is not", async () => {
    const store = MemoryStore.make()
    await Effect.runPromise(RunStore.startEffect(store, state))
    const lost: RunStore.RunStore = { ...store, head: () => Effect.succeed(0) }
    const error = await Effect.runPromise(Effect.flip(RunStore.loadEffect(lost, "racing")))
    expect(error).toMatchObject({ _tag: "CheckpointMissing" })
  })
})
