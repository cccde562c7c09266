// The entry keeps a caller's frozen state without the decode's copy when core vouches it
// is the decode's own answer (`Codecs.decodesToItself`), and decodes anything else as
// before. Over generated states with a bad or odd value put at any node, frozen by hand as
// a caller would: the entry refuses exactly what the decode refuses, with the same
// DecodeFailed as for the same state unfrozen (which never takes the short way), and what
// it keeps without the decode equals the decode's answer.
import fc from "fast-check"
import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { AgentError, AgentState, AppendLog, Codecs, Json } from "@hookline/core"
import { Arbitraries, HookLaws } from "@hookline/testing"
import { check } from "../src/internal/inputState.js"

const nodesOf = (value: unknown, keys: ReadonlyArray<string> = []): Array<ReadonlyArray<string>> => {
  if (typeof value !== "object" || value === null) return []
  return Object.keys(value).flatMap((key) => [[...keys, key], ...nodesOf((value as Record<string, unknown>)[key], [...keys, key])])
}

// The JSON of a state as a caller builds one by hand: histories as logs, frozen or not.
const byHand = (json: any, frozen: boolean): unknown => {
  const freeze = (u: unknown): unknown => {
    if (frozen && typeof u === "object" && u !== null) {
      for (const value of Object.values(u)) freeze(value)
      Object.freeze(u)
    }
    return u
  }
  if (typeof json === "object" && json !== null) {
    for (const [shell, key] of [[json.context, "messages"], [json.execution, "steps"]] as const) {
      if (typeof shell === "object" && shell !== null && Array.isArray(shell[key])) shell[key] = AppendLog.fromIterable(shell[key].map(freeze))
    }
  }
  return freeze(json)
}

const values: ReadonlyArray<unknown> = [
  Number.NaN, -0, 0, -1, 1.5, Number.POSITIVE_INFINITY, "", "robot", "x".repeat(Json.maxStringLength + 1), true, null, undefined, [], {}, [1, , 3],
]

const failureOf = (u: ReturnType<typeof check>): AgentError.DecodeFailed | undefined =>
  Result.isResult(u) && Result.isFailure(u) ? u.failure : undefined

describe("the entry's check without the decode's copy", () => {
  it("refuses what the decode refuses with the same error, and what it keeps without the decode equals the decode's answer", () => {
    fc.assert(
      fc.property(
        Arbitraries.agentState({ maxMessages: 4, maxSteps: 2 }),
        fc.nat(),
        fc.nat(values.length),
        (generated, pick, which) => {
          const text = Codecs.toJson(Codecs.AgentState, generated)
          const change = (json: any) => {
            const nodes = nodesOf(json)
            const keys = nodes[pick % nodes.length]!
            let parent = json
            for (const key of keys.slice(0, -1)) parent = parent[key]
            // The last choice adds a key the codec does not read.
            if (which === values.length) parent["extra"] = "x"
            else parent[keys[keys.length - 1]!] = values[which]
            return json
          }
          const frozen = byHand(change(JSON.parse(text)), true)
          const unfrozen = byHand(change(JSON.parse(text)), false)
          const decoded = Codecs.decode(Codecs.AgentState, frozen)
          const kept = check(frozen)
          const copied = check(unfrozen)
          expect(failureOf(kept)).toEqual(failureOf(copied))
          expect(failureOf(kept) === undefined).toBe(Result.isSuccess(decoded))
          if (Result.isSuccess(decoded)) {
            // Kept without the decode: its answer's equal. (Else the decode's copy, or the
            // input the walk keeps as before: it compares keys, not values, so a -0 stays.)
            if (Codecs.decodesToItself(frozen)) expect(kept).toEqual(decoded.success)
            expect(HookLaws.isDeepFrozen(kept)).toBe(true)
          } else expect(failureOf(kept)?.path.startsWith("input")).toBe(true)
        },
      ),
      { numRuns: 500 },
    )
  })

  it("keeps a valid state built by hand, frozen all through, as it is", () => {
    fc.assert(
      fc.property(Arbitraries.agentState({ maxMessages: 4, maxSteps: 2 }), (generated) => {
        const input = byHand(JSON.parse(Codecs.toJson(Codecs.AgentState, generated)), true) as AgentState
        expect(check(input)).toBe(input)
      }),
      { numRuns: 100 },
    )
  })
})
