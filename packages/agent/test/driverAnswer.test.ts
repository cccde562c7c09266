// The driver boundary's check (internal/driverAnswer.ts) agrees with the codecs: what it
// accepts decodes with Codecs.InferenceResponse to an equal response, and what the codec
// refuses it refuses too (the hand-written check exists only to be cheap).
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { Codecs, InferenceResponse, Json, ToolCall } from "@hookline/core"
import { damagedAnswer, encodedAnswer } from "./damagedAnswer.js"
import { isFailure, response } from "../src/internal/driverAnswer.js"

// A valid response with one value anywhere in it replaced by anything.
const damaged = damagedAnswer((junk) => junk)

// The boundary reads a call without arguments (`arguments: undefined`) as `{}`, as
// `ToolCall.make` does; the codec wants them. The same answer, with that default applied.
const withDefaultArguments = (u: unknown): unknown => {
  if (typeof u !== "object" || u === null) return u
  const calls = (u as { readonly toolCalls?: unknown }).toolCalls
  if (!Array.isArray(calls)) return u
  return {
    ...u,
    toolCalls: calls.map((c: unknown) =>
      typeof c === "object" && c !== null && !Array.isArray(c) && (c as { readonly arguments?: unknown }).arguments === undefined ? { ...c, arguments: {} } : c),
  }
}

describe("the driver boundary's check", () => {
  it("accepts every encoded response and gives what the codec decodes", () => {
    fc.assert(fc.property(encodedAnswer, (u) => {
      const checked = response(u)
      expect(isFailure(checked)).toBe(false)
      expect(checked).toEqual(Codecs.decodeUnsafe(Codecs.InferenceResponse, u))
    }))
  })

  it("refuses whatever the codec refuses, and what it accepts round-trips through the codec", () => {
    fc.assert(fc.property(damaged, (u) => {
      const checked = response(u)
      const decoded = Codecs.decode(Codecs.InferenceResponse, withDefaultArguments(u))
      if (decoded._tag === "Failure") expect(isFailure(checked)).toBe(true)
      if (!isFailure(checked)) {
        expect(Codecs.decodeUnsafe(Codecs.InferenceResponse, JSON.parse(JSON.stringify(Codecs.InferenceResponse.encode(checked))))).toEqual(checked)
      }
    }), { numRuns: 300 })
  })

  it("reads -0 as 0 wherever it is, as JSON carries it (found by the property above, seed 797373586)", () => {
    const checked = response({
      text: "",
      toolCalls: [{ id: "c1", name: "search", arguments: -0 }, { id: "c2", name: "search", arguments: { n: -0, list: [-0] } }],
      usage: { inputTokens: -0, outputTokens: 0 },
      finishReason: "stop",
      modelId: "m",
      metadata: { m: -0 },
    })
    if (isFailure(checked)) throw new Error(checked.message)
    const zeros = [
      checked.toolCalls[0]?.arguments,
      (checked.toolCalls[1]?.arguments as { n: number }).n,
      (checked.toolCalls[1]?.arguments as { list: Array<number> }).list[0],
      checked.usage.inputTokens,
      (checked.metadata as { m: number }).m,
    ]
    expect(zeros.map((z) => Object.is(z, 0))).toEqual(zeros.map(() => true))
  })

  // One string as long as the engine allows passed: the state the run commits would not
  // load back (Codecs refuse past Json.maxStringLength). `repeat` makes a rope.
  it("refuses a string past Json.maxStringLength, naming where and the limit", () => {
    const long = "x".repeat(Json.maxStringLength + 1)
    const answer = (patch: Record<string, unknown>) => ({
      text: "", toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, finishReason: "stop", modelId: "m", metadata: {}, ...patch,
    })
    const refused: ReadonlyArray<readonly [Record<string, unknown>, string]> = [
      [{ text: long }, "at text"],
      [{ text: "x".repeat(100_000_000) }, "at text"],
      [{ reasoning: long }, "at reasoning"],
      [{ modelId: long }, "at modelId"],
      [{ metadata: { note: long } }, "at metadata.note"],
      [{ metadata: { [long]: 1 } }, "at metadata"],
      [{ toolCalls: [{ id: long, name: "n", arguments: {} }], finishReason: "tool-calls" }, "at toolCalls[0].id"],
      [{ toolCalls: [{ id: "c", name: long, arguments: {} }], finishReason: "tool-calls" }, "at toolCalls[0].name"],
    ]
    for (const [patch, where] of refused) {
      const checked = response(answer(patch))
      if (!isFailure(checked)) throw new Error(`accepted ${Object.keys(patch).join()}`)
      expect(checked.message).toContain(where)
      expect(checked.message).toContain("maxStringLength")
      expect(checked.message.length).toBeLessThan(1_000)
    }
    // Core's own constructors seal only what is within the bound: a response made with
    // a long text is checked, and refused, at the boundary.
    expect(isFailure(response(InferenceResponse.make({ text: long })))).toBe(true)
    const call = ToolCall.make({ id: "c", name: "n", arguments: { q: long } })
    expect(isFailure(response(InferenceResponse.make({ toolCalls: [call] })))).toBe(false)
    // A long string in a call's arguments is the model's mistake: the call keeps an
    // excerpt, and the tool phase answers it (ToolArgumentsInvalid).
    const args = response(answer({ toolCalls: [{ id: "c", name: "n", arguments: { q: long } }], finishReason: "tool-calls" }))
    if (isFailure(args)) throw new Error(args.message)
    expect(JSON.stringify(args.toolCalls[0]?.arguments).length).toBeLessThan(1_000)
    expect(JSON.stringify(response(InferenceResponse.make({ toolCalls: [call] })) as never).length).toBeLessThan(2_000)
  })

  // The fuzzer of the class: every string of a generated answer, in turn, past the bound.
  it("refuses a string past Json.maxStringLength wherever an answer holds one, or refuses the call's arguments", () => {
    const long = "x".repeat(Json.maxStringLength + 1)
    const stringsOf = (value: unknown, keys: ReadonlyArray<string | number> = []): Array<ReadonlyArray<string | number>> =>
      typeof value === "string"
        ? [keys]
        : typeof value === "object" && value !== null
        ? Object.entries(value).flatMap(([k, v]) => stringsOf(v, [...keys, Array.isArray(value) ? Number(k) : k]))
        : []
    fc.assert(fc.property(encodedAnswer, (given) => {
      for (const keys of stringsOf(given)) {
        const u = JSON.parse(JSON.stringify(given)) as Record<string, unknown>
        let parent = u as Record<string | number, unknown>
        for (const key of keys.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>
        parent[keys.at(-1) as string | number] = long
        const checked = response(u)
        if (keys[0] === "toolCalls" && keys[2] === "arguments") {
          // The model's mistake: the call keeps an excerpt, the tool phase answers it.
          if (isFailure(checked)) throw new Error(checked.message)
          expect(JSON.stringify(checked.toolCalls[keys[1] as number]?.arguments).length).toBeLessThan(1_000)
        } else {
          expect(isFailure(checked)).toBe(true)
          if (isFailure(checked)) expect(checked.message.length).toBeLessThan(1_000)
        }
      }
    }), { numRuns: 50 })
  })

  it("keeps the usage details a driver reports and names a bad one", () => {
    const answer = (usage: unknown) => ({ text: "ok", toolCalls: [], usage, finishReason: "stop", modelId: "m", metadata: {} })
    const kept = response(answer({ inputTokens: 10, outputTokens: 4, cachedInputTokens: 8, reasoningTokens: 2 }))
    expect(isFailure(kept) ? kept : kept.usage).toStrictEqual({ inputTokens: 10, outputTokens: 4, cachedInputTokens: 8, reasoningTokens: 2 })
    const bad = response(answer({ inputTokens: 10, outputTokens: 4, cachedInputTokens: -1 }))
    expect(isFailure(bad) ? bad.message : "accepted").toContain("usage.cachedInputTokens")
  })
})
