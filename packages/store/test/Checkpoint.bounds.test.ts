// The string bound of a checkpoint's own fields, and what a refused row's error shows
// (branch edges3). The store writes and loads under `Checkpoint.limits` (the default
// bound); a caller's decode of `Checkpoint.DeltaCodec` under a tighter `maxStringLength`
// holds the run's id, the prompt, the parent's id and the stop reason to it, as it holds
// the messages. A refused row's error excerpts what the row held, whatever its size.
import { AgentState, Codecs, Json, Message } from "@hookline/core"
import { Result } from "effect"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { Checkpoint } from "../src/index.js"

const bound = { maxStringLength: 10 }
const over = "x".repeat(11)

describe("Checkpoint.DeltaCodec under a decode's maxStringLength", () => {
  it.each([
    ["id", { v: 2, id: over }],
    ["systemPrompt", { v: 2, id: "r", systemPrompt: over }],
    ["parentId", { v: 2, id: "r", parentId: over }],
    ["stopReason", { v: 2, id: "r", stopReason: over }],
  ])("refuses a %s past it, naming the path and the limit, as it refuses a message's text", (field, delta) => {
    const decoded = Codecs.decode(Checkpoint.DeltaCodec, delta, bound)
    expect(decoded).toMatchObject({ _tag: "Failure", failure: { _tag: "DecodeFailed", path: field } })
    expect(Result.isFailure(decoded) && decoded.failure.message).toMatch(/at most 10 characters \(the maxStringLength limit\), got 11/)
    const message = { v: 2, id: "r", messages: { from: 0, items: [Message.user(over)] } }
    expect(Codecs.decode(Checkpoint.DeltaCodec, message, bound)).toMatchObject({ _tag: "Failure", failure: { path: "messages.items[0].content" } })
  })

  it("refuses the same in a version 1 delta", () => {
    expect(Codecs.decode(Checkpoint.DeltaV1Codec, { v: 1, id: "r", systemPrompt: over }, bound))
      .toMatchObject({ _tag: "Failure", failure: { path: "systemPrompt" } })
  })

  it("takes every field at the bound", () => {
    const at = "y".repeat(10)
    expect(Codecs.decode(Checkpoint.DeltaCodec, { v: 2, id: at, systemPrompt: at, parentId: at, stopReason: at }, bound))
      .toMatchObject({ _tag: "Success" })
  })

  it("still takes a plain id and prompt under the default bound, and refuses a non-string, naming it", () => {
    expect(Codecs.decode(Checkpoint.DeltaCodec, { v: 2, id: "run-1", systemPrompt: "Be brief." })).toMatchObject({ _tag: "Success" })
    expect(Codecs.decode(Checkpoint.DeltaCodec, { v: 2, id: 7 })).toMatchObject({ _tag: "Failure", failure: { path: "id" } })
    expect(Codecs.decode(Checkpoint.DeltaCodec, { v: 2, id: "r", systemPrompt: null })).toMatchObject({ _tag: "Failure", failure: { path: "systemPrompt" } })
  })
})

describe("a refused row's error", () => {
  const huge = "z".repeat(1_000_000)
  const messageOf = (rows: ReadonlyArray<Checkpoint.Row>): string => {
    const restored = Checkpoint.restore("run-1", rows)
    if (Result.isSuccess(restored)) throw new Error("expected the row to be refused")
    return restored.failure.message
  }

  it.each([
    ["another run's id", [{ seq: 1, body: JSON.stringify({ v: 2, id: huge }) }], "checkpoints[0].id"],
    ["an unknown format version", [{ seq: 1, body: JSON.stringify({ v: huge, id: "run-1" }) }], "checkpoints[0].v"],
    ["a sequence number that is not one", [{ seq: huge as unknown as number, body: "{}" }], "checkpoints[0].seq"],
  ])("excerpts %s: a 1,000,000-character value is not copied into the message", (_, rows, path) => {
    const restored = Checkpoint.restore("run-1", rows)
    expect(restored).toMatchObject({ _tag: "Failure", failure: { _tag: "DecodeFailed", path } })
    expect(messageOf(rows).length).toBeLessThan(500)
  })

  it("still names a short foreign id and a version whole", () => {
    expect(messageOf([{ seq: 1, body: JSON.stringify({ v: 2, id: "run-2" }) }])).toContain("run-2")
    expect(messageOf([{ seq: 1, body: JSON.stringify({ v: 9, id: "run-1" }) }])).toContain("unknown format version 9")
    expect(messageOf([{ seq: 1, body: JSON.stringify({ id: "run-1" }) }])).toContain("unknown format version (none)")
  })
})

describe("the store's write and load bounds agree on strings", () => {
  // Not a defect found, a guard: the writer checks a checkpoint under `Checkpoint.limits`,
  // the load decodes under the same, so what the writer takes loads back.
  const state = (systemPrompt: string) => AgentState.make({ id: "run-1", systemPrompt, messages: [Message.user("hi")] })

  it("writes and loads back a prompt at Json.maxStringLength; refuses one past it at the write, naming it", () => {
    const at = Checkpoint.encodeChecked("run-1", 1, Checkpoint.diff(undefined, state("p".repeat(Json.maxStringLength)))!)
    if (Result.isFailure(at)) throw new Error(at.failure.message)
    const loaded = Checkpoint.restore("run-1", [{ seq: 1, body: at.success }])
    expect(Result.isSuccess(loaded) && loaded.success?.state.context.systemPrompt.length).toBe(Json.maxStringLength)
    expect(Checkpoint.encodeChecked("run-1", 1, Checkpoint.diff(undefined, state("p".repeat(Json.maxStringLength + 1)))!))
      .toMatchObject({ _tag: "Failure", failure: { _tag: "CheckpointRefused", path: "systemPrompt" } })
  }, 60_000)
})

describe("a delta's strings under any maxStringLength (property)", () => {
  // The class the defect was in: a checkpoint's own strings and a message's text, around
  // a decode's bound. Refused exactly when one is past it, naming one that is.
  const texts = fc.record({
    id: fc.string({ minLength: 1, maxLength: 24 }),
    systemPrompt: fc.option(fc.string({ maxLength: 24 }), { nil: undefined }),
    parentId: fc.option(fc.string({ maxLength: 24 }), { nil: undefined }),
    stopReason: fc.option(fc.string({ maxLength: 24 }), { nil: undefined }),
    content: fc.option(fc.string({ maxLength: 24 }), { nil: undefined }),
  })
  it("refuses a delta exactly when one of its strings is past the bound", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 24 }), texts, (max, { content, ...fields }) => {
        const delta = {
          v: 2,
          ...Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)),
          ...(content === undefined ? {} : { messages: { from: 0, items: [Message.user(content)] } }),
        }
        const decoded = Codecs.decode(Checkpoint.DeltaCodec, delta, { maxStringLength: max })
        const past = Object.entries({ ...fields, "messages.items[0].content": content })
          .filter(([, v]) => v !== undefined && v.length > max)
          .map(([k]) => k)
        if (past.length === 0) expect(decoded._tag).toBe("Success")
        else expect(Result.isFailure(decoded) && past.includes(decoded.failure.path)).toBe(true)
      }),
      { numRuns: 300 },
    )
  })
})
