// The driver boundary's check (internal/driverAnswer.ts) agrees with the codecs: what it
// accepts decodes with Codecs.InferenceResponse to an equal response, and what the codec
// refuses it refuses too (the hand-written check exists only to be cheap).
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { Codecs } from "@hookline/core"
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

  it("keeps the usage details a driver reports and names a bad one", () => {
    const answer = (usage: unknown) => ({ text: "ok", toolCalls: [], usage, finishReason: "stop", modelId: "m", metadata: {} })
    const kept = response(answer({ inputTokens: 10, outputTokens: 4, cachedInputTokens: 8, reasoningTokens: 2 }))
    expect(isFailure(kept) ? kept : kept.usage).toStrictEqual({ inputTokens: 10, outputTokens: 4, cachedInputTokens: 8, reasoningTokens: 2 })
    const bad = response(answer({ inputTokens: 10, outputTokens: 4, cachedInputTokens: -1 }))
    expect(isFailure(bad) ? bad.message : "accepted").toContain("usage.cachedInputTokens")
  })
})
