// What the journal acknowledges, it reads back: a model answer or a tool result past the
// load bounds is refused before the store sees it, as a checkpoint is.
import { AgentBuilder, Tool, UseDriver, UseTools } from "@hookline/agent"
import { AgentState, Codecs, Message } from "@hookline/core"
import { ScriptedDriver } from "@hookline/testing"
import * as t from "io-ts"
import { describe, expect, it } from "vitest"
import { Checkpoint, MemoryStore, RunStore, StoreError, UseCheckpoints } from "../src/index.js"
import { promiseOf } from "./support/promiseStore.js"

const maxBytes = Checkpoint.limits.maxBytes as number
// Three bytes of UTF-8 per character: past the byte bound with a third of its length in characters.
const tooLong = () => "€".repeat(Math.floor(maxBytes / 3) + 10)
// The two runs past the byte bound cross the real 64 MB one (the store takes no lower
// bound): each writer refuses the text only after encoding it, and a run encodes the big
// result three times (the journal entry, the step's checkpoint, the last one), about 1 s
// of JSON each on a quiet core, several under load (3.4 s quiet, 6 s at load 13 for the
// first case). No other character makes the text cheaper to encode per byte ("€" gives
// the most bytes per character; ASCII and escapes encode no faster, measured). So the
// bound is long instead: 120 s holds on a slow, shared 2-core box.
const pastTheByteBound = 120_000

// A memory store that records what its journal acknowledged.
const recording = () => {
  const acknowledged: Array<{ readonly key: string; readonly body: string }> = []
  const inner = MemoryStore.make()
  const store = RunStore.fromPromise({
    ...promiseOf(inner),
    journalPut: async (runId, key, body) => {
      const wrote = await promiseOf(inner).journalPut(runId, key, body)
      acknowledged.push({ key, body })
      return wrote
    },
  })
  return { store, acknowledged }
}

const readsBack = (entry: { readonly key: string; readonly body: string }) => {
  const codec = entry.key.startsWith("inference:") ? Codecs.InferenceResponse : Codecs.ToolExecution
  const decoded = Codecs.fromJson<unknown>(codec, entry.body, Checkpoint.limits)
  return decoded._tag === "Success"
}

describe("UseCheckpoints journal", () => {
  it("refuses a tool result past the byte bound before the store sees it: the run fails naming the entry and the bound, and what was acknowledged reads back", async () => {
    const { store, acknowledged } = recording()
    const big = Tool.make({ name: "big", parameters: t.type({}), maxOutputLength: maxBytes, execute: () => tooLong() })
    const agent = AgentBuilder.make(
      UseDriver(ScriptedDriver.make([ScriptedDriver.toolCalls([{ id: "c1", name: "big", arguments: {} }]), ScriptedDriver.text("done")])),
      UseTools([big]),
      UseCheckpoints(store),
    )
    const final = await agent.run(AgentState.make({ id: "journal-big", messages: [Message.user("go")] }))
    expect(acknowledged.every(readsBack)).toBe(true)
    expect(acknowledged.map((e) => e.key.split(":")[0])).toEqual(["inference"])
    expect(final.execution.status).toBe("failed")
    const refused = JSON.stringify(final.execution.errors)
    expect(refused).toMatch(/journal entry tool:\d+:c1 of run journal-big was not written, it would not load back: at the entry as a whole, .*the maxBytes limit/)
    // Nothing committed was lost: the run loads, at its last checkpoint (its first: the
    // final one held the same result and was refused too).
    expect((await RunStore.load(store, "journal-big"))?.seq).toBe(1)
  }, pastTheByteBound)

  it("refuses a model answer past the byte bound before the store sees it", async () => {
    const { store, acknowledged } = recording()
    const agent = AgentBuilder.make(UseDriver(ScriptedDriver.make([ScriptedDriver.text(tooLong())])), UseCheckpoints(store))
    const final = await agent.run(AgentState.make({ id: "journal-big-answer", messages: [Message.user("go")] }))
    expect(acknowledged).toEqual([])
    expect(final.execution.status).toBe("failed")
    expect(JSON.stringify(final.execution.errors)).toMatch(/journal entry inference:\d+:0 of run journal-big-answer was not written.*the maxBytes limit/)
  }, pastTheByteBound)

  it("names the entry, the path and the bound", () => {
    expect(StoreError.journalRefused("r", "tool:1:c1", "output", "expected at most 3 items")).toMatchObject({
      _tag: "JournalRefused",
      runId: "r",
      key: "tool:1:c1",
      path: "output",
      message: "journal entry tool:1:c1 of run r was not written, it would not load back: at output, expected at most 3 items",
    })
  })
})
