// The model answer's guard read by name (internal/answerGuard.ts) answers exactly as
// `Codecs.InferenceResponse.is`, reading the same fields in the same order, over
// generated answers and answers with any one field (of the answer, a tool call or the
// usage) replaced by a hostile value.
import { Codecs } from "@hookline/core"
import { Arbitraries } from "@hookline/testing"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { answerKeys, callKeys, executionKeys, isAnswer, isCall, isExecution, isUsage, usageKeys } from "../src/internal/answerGuard.js"
import { readsOf, safely } from "./support/guardSpy.js"

// The string keys `guard` reads of `value`, in order.
const readKeys = (value: object, guard: (u: unknown) => boolean): ReadonlyArray<string> => readsOf(value, guard).read

const hostile: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<() => unknown>(
    () => undefined,
    () => null,
    () => Number.NaN,
    () => Number.POSITIVE_INFINITY,
    () => "x",
    () => "tool-calls",
    () => 1,
    () => -1,
    () => true,
    () => [],
    () => ({}),
    () => Object.freeze([undefined]),
    // eslint-disable-next-line no-sparse-arrays
    () => Object.freeze([, 1]),
    () => Object.freeze(Object.defineProperty({}, "boom", { enumerable: true, get: () => { throw new Error("boom") } })),
  ).map((f) => f()),
  fc.jsonValue(),
)

describe("the model answer's guard read by name (internal/answerGuard.ts)", () => {
  it("reads the fields core's guards read, in their order", () => {
    for (const answer of fc.sample(Arbitraries.inferenceResponse(), 30)) {
      expect(readKeys(answer, (u) => isAnswer(u))).toEqual(readKeys(answer, (u) => Codecs.InferenceResponse.is(u)))
      expect(readKeys(answer.usage, isUsage)).toEqual(readKeys(answer.usage, (u) => Codecs.Usage.is(u)))
      for (const call of answer.toolCalls) expect(readKeys(call, isCall)).toEqual(readKeys(call, (u) => Codecs.ToolCall.is(u)))
    }
    const full = { text: "", toolCalls: [], usage: { inputTokens: 0, outputTokens: 0 }, finishReason: "stop", modelId: "m", metadata: {} }
    expect(readKeys(full, (u) => Codecs.InferenceResponse.is(u))).toEqual(answerKeys)
    expect(readKeys(full.usage, (u) => Codecs.Usage.is(u))).toEqual(usageKeys)
    expect(readKeys({ id: "c", name: "n", arguments: {} }, (u) => Codecs.ToolCall.is(u))).toEqual(callKeys)
  })

  it("answers as Codecs.InferenceResponse.is, with any one field of an answer, a call or the usage replaced", () => {
    let accepted = 0
    let refused = 0
    const where = fc.constantFrom(...answerKeys.map((k) => ["answer", k] as const), ...callKeys.map((k) => ["call", k] as const), ...usageKeys.map((k) => ["usage", k] as const), ["none", ""] as const)
    const answers = fc.tuple(Arbitraries.inferenceResponse(), where, hostile).map(([answer, [part, key], value]) => {
      if (part === "answer") return { ...answer, [key]: value }
      if (part === "usage") return { ...answer, usage: { ...answer.usage, [key]: value } }
      if (part === "call") {
        const calls = answer.toolCalls.length === 0 ? [{ id: "c", name: "n", arguments: {} }] : answer.toolCalls
        return { ...answer, toolCalls: [...calls.slice(1), { ...calls[0], [key]: value }] }
      }
      return answer
    })
    fc.assert(
      fc.property(answers, (answer) => {
        const full = safely(() => Codecs.InferenceResponse.is(answer))
        if (full) accepted++
        else refused++
        expect(safely(() => isAnswer(answer))).toBe(full)
      }),
      { numRuns: 2000 },
    )
    expect(accepted).toBeGreaterThan(0)
    expect(refused).toBeGreaterThan(0)
  }, 120_000)

  it("answers as the codec for values that are not answers", () => {
    for (const value of [...fc.sample(hostile, 100), [], [1], "x", 0]) {
      expect(safely(() => isAnswer(value))).toBe(safely(() => Codecs.InferenceResponse.is(value)))
      expect(safely(() => isCall(value))).toBe(safely(() => Codecs.ToolCall.is(value)))
      expect(safely(() => isUsage(value))).toBe(safely(() => Codecs.Usage.is(value)))
      expect(safely(() => isExecution(value))).toBe(safely(() => Codecs.ToolExecution.is(value)))
    }
  })

  it("reads the fields core's ToolExecution guard reads, in its order, for each kind", () => {
    const seen = new Set<string>()
    for (const execution of fc.sample(Arbitraries.toolExecution(), 60)) {
      const reads = readKeys(execution, (u) => Codecs.ToolExecution.is(u))
      expect(readKeys(execution, isExecution)).toEqual(reads)
      seen.add(execution.status)
      // The dispatch's read of `status`, then the member's fields (all of them: a generated result is valid).
      expect(reads.slice(1)).toEqual(executionKeys[execution.status])
    }
    expect(seen.size).toBe(3)
  })

  it("answers as Codecs.ToolExecution.is, with any one field of a result, its call or its usage replaced", () => {
    let accepted = 0
    let refused = 0
    const keys = [...new Set(Object.values(executionKeys).flat())]
    const where = fc.constantFrom(...keys.map((k) => ["execution", k] as const), ...callKeys.map((k) => ["call", k] as const), ...usageKeys.map((k) => ["usage", k] as const), ["none", ""] as const)
    const executions = fc.tuple(Arbitraries.toolExecution(), where, hostile).map(([execution, [part, key], value]) => {
      if (part === "execution") return { ...execution, [key]: value }
      if (part === "call") return { ...execution, toolCall: { ...execution.toolCall, [key]: value } }
      if (part === "usage") return { ...execution, usage: { inputTokens: 1, outputTokens: 2, [key]: value } }
      return execution
    })
    fc.assert(
      fc.property(executions, (execution) => {
        const full = safely(() => Codecs.ToolExecution.is(execution))
        if (full) accepted++
        else refused++
        expect(safely(() => isExecution(execution))).toBe(full)
      }),
      { numRuns: 2000 },
    )
    expect(accepted).toBeGreaterThan(0)
    expect(refused).toBeGreaterThan(0)
  }, 120_000)
})
