// What a load gives: a state core's codecs know as built (so the agent's entry does not
// decode it again, branch entrycheck), and the checkpoint's plain-string fields held to
// Json.maxStringLength, as every string a codec reads (branch plaindata).
import { AgentBuilder, UseDriver } from "@hookline/agent"
import { AgentState, Codecs, Json, Message, StopReason } from "@hookline/core"
import { ScriptedDriver } from "@hookline/testing"
import { describe, expect, it } from "vitest"
import { Checkpoint, MemoryStore, RunStore, UseCheckpoints } from "../src/index.js"

describe("a MemoryStore load", () => {
  it("gives a state Codecs.isBuilt knows, after a run and after a plain save", async () => {
    const store = MemoryStore.make()
    const agent = AgentBuilder.make(UseDriver(ScriptedDriver.make([ScriptedDriver.text("hi")])), UseCheckpoints(store))
    const final = await agent.run(AgentState.make({ id: "built-1", messages: [Message.user("hello")] }))
    const loaded = await RunStore.load(store, "built-1")
    expect(loaded?.state.context.messages.length).toBe(final.context.messages.length)
    expect(Codecs.isBuilt(loaded?.state)).toBe(true)
    await RunStore.save(store, AgentState.make({ id: "built-2", systemPrompt: "s", messages: [Message.user("a"), Message.assistant("b")] }))
    const plain = await RunStore.load(store, "built-2")
    expect(Codecs.isBuilt(plain?.state)).toBe(true)
  })
})

describe("a checkpoint's plain-string fields", () => {
  const long = "x".repeat(Json.maxStringLength + 1)
  const body = (fields: Record<string, unknown>) => JSON.stringify({ v: 2, id: "run-1", ...fields })
  it.each([
    ["systemPrompt", { systemPrompt: long }],
    ["parentId", { parentId: long }],
    ["stopReason", { stopReason: long }],
  ])("refuses a %s past Json.maxStringLength on load, naming it", (field, fields) => {
    expect(Checkpoint.restore("run-1", [{ seq: 1, body: body(fields) }])).toMatchObject({
      _tag: "Failure",
      failure: { _tag: "DecodeFailed", path: `checkpoints[0].${field}` },
    })
  })
  it("still loads one at the bound", () => {
    const atBound = "p".repeat(Json.maxStringLength)
    const restored = Checkpoint.restore("run-1", [{ seq: 1, body: body({ systemPrompt: atBound, stopReason: StopReason.Completed }) }])
    expect(restored).toMatchObject({ _tag: "Success" })
  })
})
