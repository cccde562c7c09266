// The writer's check of a checkpoint (`encodeChecked`: a counting walk, no parse) answers
// exactly as the check it replaced did: the delta's text, parsed and decoded as loading
// does (`checkBody`), over generated states, huge and hostile ones included.
import { AgentState, AppendLog, Json, Message } from "@hookline/core"
import { Arbitraries } from "@hookline/testing"
import * as fc from "fast-check"
import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { Checkpoint } from "../src/index.js"

const maxItems = Checkpoint.limits.maxItems as number
const maxBytes = Checkpoint.limits.maxBytes as number

type Answer = { readonly ok: true; readonly body: string } | { readonly ok: false; readonly path: string; readonly message: string }

const answerOf = (result: Result.Result<string, { readonly path: string; readonly message: string }>): Answer =>
  Result.isSuccess(result) ? { ok: true, body: result.success } : { ok: false, path: result.failure.path, message: result.failure.message }

// The check as it was: encode and stringify, then parse and decode the text.
const before = (runId: string, delta: Checkpoint.Delta): Answer | "threw" => {
  let body: string
  try {
    body = Checkpoint.toJson(delta)
  } catch {
    return "threw"
  }
  return answerOf(Checkpoint.checkBody(runId, 7, body))
}

const same = (runId: string, delta: Checkpoint.Delta | undefined) => {
  if (delta === undefined) return
  const now = answerOf(Checkpoint.encodeChecked(runId, 7, delta))
  const then = before(runId, delta)
  if (then === "threw") {
    expect(now).toMatchObject({ ok: false, path: "" })
    return
  }
  expect(now).toEqual(then)
}

const nested = (depth: number): unknown => {
  let value: unknown = 0
  for (let i = 0; i < depth; i++) value = [value]
  return value
}

class Money {
  readonly cents = 1
}

const cyclic = () => {
  const o: Record<string, unknown> = { a: 1 }
  o["self"] = o
  return o
}

// Values a hand-built state may hold where JSON belongs.
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<() => unknown>(
    () => Number.NaN,
    () => Number.POSITIVE_INFINITY,
    () => -0,
    () => undefined,
    () => () => 1,
    () => Symbol("s"),
    () => 10n,
    () => new Date(0),
    () => new Map([[1, 2]]),
    () => new Money(),
    // A hole.
    // eslint-disable-next-line no-sparse-arrays
    () => [, 1],
    () => "\ud800",
    () => JSON.parse("{\"__proto__\":{\"a\":1}}"),
    () => ({ toJSON: () => "x" }),
    () => Object.defineProperty({}, "boom", { enumerable: true, get: () => { throw new Error("boom") } }),
    () => cyclic(),
    () => Object.assign(Object.create(null), { a: 1 }),
    () => ({ a: undefined, b: 1 }),
  ).map((f) => f()),
  fc.integer({ min: Json.maxDepth - 8, max: Json.maxDepth + 4 }).map(nested),
  fc.anything({ withNullPrototype: true, withBigInt: true, withDate: true, withMap: true, withSet: true, withSparseArray: true, withTypedArray: true }),
  fc.jsonValue(),
)

// A state with `value` put where the types do not allow it: the codec is the judge.
const hostileState: fc.Arbitrary<AgentState> = fc.tuple(Arbitraries.agentState(), hostileValue, fc.nat(5)).map(([state, value, where]) => {
  const cast = (s: unknown) => s as AgentState
  const messages = (extra: unknown) => AppendLog.fromIterable([...state.context.messages.toArray(), extra as Message])
  switch (where) {
    case 0:
      return cast({ ...state, metadata: { ...state.metadata, x: value } })
    case 1:
      return cast({ ...state, context: { ...state.context, messages: messages({ role: "user", content: value }) } })
    case 2:
      return cast({
        ...state,
        context: { ...state.context, messages: messages({ role: "assistant", content: "", toolCalls: [{ id: "c", name: "t", arguments: value }] }) },
      })
    case 3:
      return cast({ ...state, execution: { ...state.execution, usage: { ...state.execution.usage, inputTokens: value } } })
    case 4:
      return cast({ ...state, execution: { ...state.execution, status: value } })
    default:
      return cast({ ...state, context: { ...state.context, messages: messages({ role: value, content: "x" }) } })
  }
})

describe("Checkpoint.encodeChecked", () => {
  it("answers as parsing and decoding the text did, for every generated state and every prefix of it", () => {
    fc.assert(
      fc.property(Arbitraries.agentState(), fc.nat(), (state, cut) => {
        same(state.id, Checkpoint.diff(undefined, state))
        const messages = state.context.messages.toArray()
        const prefix = AgentState.withContext(state, { ...state.context, messages: AppendLog.fromIterable(messages.slice(0, cut % (messages.length + 1))) })
        same(state.id, Checkpoint.diff(prefix, state))
        // A delta of another run, or of another version.
        same(`${state.id}-other`, Checkpoint.diff(undefined, state))
      }),
      { numRuns: 150 },
    )
  })

  it("answers as parsing and decoding the text did, for hostile states", () => {
    fc.assert(fc.property(hostileState, (state) => same(state.id, Checkpoint.diff(undefined, state))), { numRuns: 400 })
  })

  it("answers as parsing and decoding the text did, at the bounds", () => {
    const withMetadata = (value: unknown) => AgentState.make({ id: "run-1", metadata: { xs: value as never } })
    const cases: ReadonlyArray<AgentState> = [
      withMetadata(Array.from({ length: maxItems }, (_, i) => i)),
      withMetadata(Array.from({ length: maxItems + 1 }, (_, i) => i)),
      withMetadata(Object.fromEntries(Array.from({ length: maxItems + 1 }, (_, i) => [`k${i}`, i]))),
      withMetadata(nested(Json.maxDepth - 3)),
      withMetadata(nested(Json.maxDepth - 2)),
      withMetadata(nested(Json.maxDepth - 1)),
      withMetadata(nested(Json.maxDepth)),
      AgentState.make({ id: "run-1", messages: Array.from({ length: maxItems + 1 }, (_, i) => Message.user(`m${i}`)) }),
      // Short enough for the fast check, then past it (counted), then past the bound.
      AgentState.make({ id: "run-1", messages: [Message.user("x".repeat(Math.floor(maxBytes / 3) - 200))] }),
      AgentState.make({ id: "run-1", messages: [Message.user("€".repeat(Math.floor(maxBytes / 3) - 200))] }),
      AgentState.make({ id: "run-1", messages: [Message.user("€".repeat(Math.floor(maxBytes / 3) + 10))] }),
    ]
    for (const state of cases) same("run-1", Checkpoint.diff(undefined, state))
  }, 120_000)
})
