// `Codecs.decodesToItself`: the agent's entry keeps a caller's state without the decode's
// copy only when this says the decode would answer the state itself. True must imply: the
// decode accepts it (same bounds) and answers a value deep-equal to it, and it is frozen
// plain data all through. Checked over generated states, their decoded forms, and hostile
// changes at every node (a bad value, -0, a string past the bound, an extra key, an
// accessor, a hidden or symbol key, a Proxy, an unfrozen or odd-prototype node, a hole).
import fc from "fast-check"
import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { AgentState, AppendLog, Codecs, Json, Truncation } from "@hookline/core"
import * as Arb from "./arbitraries.js"

const decoded = (u: unknown): AgentState => {
  const result = Codecs.decode(Codecs.AgentState, u)
  if (Result.isFailure(result)) throw new Error(result.failure.message)
  return result.success
}

// Deep equality as the run reads a state: the same keys with a value (a key holding
// `undefined` is absent), `Object.is` on numbers (-0 is not 0), logs by their items.
const same = (a: unknown, b: unknown): boolean => {
  if (typeof a !== "object" || a === null || typeof b !== "object" || b === null) return Object.is(a, b)
  if (AppendLog.isAppendLog(a) || AppendLog.isAppendLog(b)) {
    return AppendLog.isAppendLog(a) && AppendLog.isAppendLog(b) && a.length === b.length && same(a.toArray(), b.toArray())
  }
  if (Array.isArray(a) !== Array.isArray(b)) return false
  const keysOf = (o: object) => Object.keys(o).filter((k) => (o as Record<string, unknown>)[k] !== undefined).sort()
  const ka = keysOf(a)
  const kb = keysOf(b)
  if (ka.length !== kb.length || ka.some((k, i) => k !== kb[i])) return false
  return ka.every((k) => same((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
}

// A state with every optional part: pending calls, a suspended step with attempts and
// decisions, a custom stop signal, a replayed response and execution, every error.
const rich = decoded({
  id: "s", parentId: "p", metadata: { a: [1, { b: null }] },
  context: { systemPrompt: "be brief", responseFormat: { type: "json", schema: { type: "object" }, name: "n" }, metadata: {}, messages: [
    { role: "system", content: "sys" },
    { role: "user", content: "hi" },
    { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "search", arguments: { q: "cats" } }, { id: "c2", name: "x", arguments: null }] },
    { role: "tool", toolCallId: "c1", toolName: "search", content: "none", isError: false },
  ] },
  execution: {
    status: "suspended", startedAt: 1, runningSince: 2, continuationRequested: false, stopReason: "custom",
    usage: { inputTokens: 3, outputTokens: 4, cachedInputTokens: 1 }, metadata: { m: "x" },
    steps: [{
      index: 0, startedAt: 1, completedAt: 2, finishReason: "tool-calls", usage: { inputTokens: 3, outputTokens: 4 },
      response: { text: "", toolCalls: [], usage: { inputTokens: 3, outputTokens: 4 }, finishReason: "tool-calls", modelId: "m", metadata: {}, replayed: true, reasoning: "r" },
      toolExecutions: [
        { status: "success", toolCall: { id: "c1", name: "search", arguments: {} }, output: [1, "x"], startedAt: 1, completedAt: 2, usage: { inputTokens: 1, outputTokens: 1 }, replayed: true },
        { status: "failure", toolCall: { id: "c2", name: "x", arguments: {} }, error: { _tag: "ToolTimedOut", toolCallId: "c2", toolName: "x", timeoutMs: 5, message: "late" }, startedAt: 1, completedAt: 2 },
        { status: "blocked", toolCall: { id: "c3", name: "x", arguments: {} }, reason: "no", startedAt: 1, completedAt: 3 },
      ],
      attempts: [{ modelId: "m", startedAt: 1, durationMs: 2, usage: { inputTokens: 0, outputTokens: 0 }, error: { _tag: "InferenceFailed", message: "e", status: 500, retryable: true, retryAfterMs: 10 } }],
      toolAttempts: [{ toolCallId: "c1", toolName: "search", startedAt: 1, durationMs: 1, error: { _tag: "UnknownTool", toolCallId: "c1", toolName: "search", message: "?" } }],
      decisions: { c1: { _tag: "Approve", by: "me" }, c2: { _tag: "Edit", arguments: { q: 1 } }, c3: { _tag: "Reject", message: "no", reason: "r" } },
    }],
    stopSignals: [
      { reason: "Completed", message: "done", source: "loop" },
      { reason: "budget", message: "spent", source: "guard", priority: 50, kind: "hard" },
    ],
    errors: [
      { _tag: "HookFailed", hook: "h", trigger: "WrapInference", message: "m" },
      { _tag: "HookIsEffectful", hook: "h", trigger: "AfterInference", message: "m" },
      { _tag: "InferenceFailed", message: "m", retryable: false },
      { _tag: "ToolFailed", toolCallId: "c", toolName: "t", message: "m" },
      { _tag: "ToolBlocked", toolCallId: "c", toolName: "t", reason: "r", message: "m" },
      { _tag: "ToolArgumentsInvalid", toolCallId: "c", toolName: "t", path: "a", message: "m" },
      { _tag: "InvalidConfiguration", path: "a", message: "m" },
      { _tag: "DecodeFailed", path: "a", message: "m" },
      { _tag: "Aborted", message: "m" },
    ],
    pendingCalls: [{ toolCall: { id: "c9", name: "pay", arguments: { n: 1 } }, reason: "approve", payload: { p: 1 }, decision: { _tag: "Approve" }, expiresAt: 9 }],
    suspendedStep: { index: 1, startedAt: 3, usage: { inputTokens: 0, outputTokens: 0 }, toolExecutions: [] },
  },
})

// A state's JSON, frozen again as a caller builds one by hand: plain frozen records,
// its histories core's logs.
const rebuilt = (json: any): unknown => {
  const freeze = (u: unknown): unknown => {
    if (typeof u === "object" && u !== null && !Object.isFrozen(u) && !Json.isProxy?.(u)) {
      for (const key of Reflect.ownKeys(u)) {
        const property = Object.getOwnPropertyDescriptor(u, key)
        if (property !== undefined && "value" in property) freeze(property.value)
      }
      Object.freeze(u)
    }
    return u
  }
  const logOf = (u: unknown) => (Array.isArray(u) ? AppendLog.fromIterable(u.map(freeze)) : u)
  // A change may have made a shell odd (an accessor, a frozen Proxy): its list stays a list.
  const setLog = (shell: unknown, key: string) => {
    try {
      if (typeof shell === "object" && shell !== null) Reflect.set(shell, key, logOf((shell as Record<string, unknown>)[key]))
    } catch {
      // Left as it is.
    }
  }
  if (typeof json === "object" && json !== null) {
    setLog(json.context, "messages")
    setLog(json.execution, "steps")
  }
  return freeze(json)
}

// Every node of the encoded form below the root, with its keys.
const nodesOf = (value: unknown, keys: ReadonlyArray<string> = []): Array<ReadonlyArray<string>> => {
  if (typeof value !== "object" || value === null) return []
  return Object.keys(value).flatMap((key) => [[...keys, key], ...nodesOf((value as Record<string, unknown>)[key], [...keys, key])])
}

class Odd {}

// Ways a caller's value can differ from the decode's answer, or answer a later read otherwise.
type Change = (parent: any, key: string) => void
const put = (value: unknown): Change => (parent, key) => {
  parent[key] = value
}
const changes: ReadonlyArray<readonly [string, Change]> = [
  ["NaN", put(Number.NaN)],
  ["-0", put(-0)],
  ["Infinity", put(Number.POSITIVE_INFINITY)],
  ["undefined", put(undefined)],
  ["null", put(null)],
  ["a number", put(1.5)],
  ["zero", put(0)],
  ["an empty string", put("")],
  ["a string", put("robot")],
  ["a string past the bound", put("x".repeat(Json.maxStringLength + 1))],
  ["a text Truncation cuts", put("x".repeat(Truncation.defaultMaxLength + 1))],
  ["true", put(true)],
  ["an empty array", put([])],
  ["an empty object", put({})],
  ["an array with a hole", put([1, , 3])],
  ["a Date", put(new Date(0))],
  ["an extra key beside it", (parent) => {
    if (!Array.isArray(parent)) parent["extra"] = "x"
  }],
  ["an extra key below it", (parent, key) => {
    const node = parent[key]
    if (typeof node === "object" && node !== null) node["extra"] = 1
  }],
  ["its negation", (parent, key) => {
    if (typeof parent[key] === "number") parent[key] = parent[key] === 0 ? -1 : -parent[key]
  }],
  ["a priority and a kind beside it", (parent) => {
    if (!Array.isArray(parent)) Object.assign(parent, { priority: 50, kind: "hard" })
  }],
  ["an accessor", (parent, key) => {
    const value = parent[key]
    Object.defineProperty(parent, key, { get: () => value, enumerable: true, configurable: true })
  }],
  ["a hidden key", (parent, key) => {
    Object.defineProperty(parent, key, { value: parent[key], enumerable: false, configurable: true, writable: true })
  }],
  ["a symbol key", (parent, key) => {
    const node = parent[key]
    if (typeof node === "object" && node !== null) node[Symbol("s")] = 1
  }],
  ["a Proxy", (parent, key) => {
    const node = parent[key]
    if (typeof node === "object" && node !== null) parent[key] = new Proxy(Object.freeze(node), {})
  }],
  ["an unfrozen node", (parent, key) => {
    const node = parent[key]
    // A Proxy is left alone by the freeze, so its target (a copy) stays unfrozen.
    if (typeof node === "object" && node !== null) parent[key] = new Proxy(Array.isArray(node) ? [...node] : { ...node }, {})
  }],
  ["a null prototype", (parent, key) => {
    const node = parent[key]
    if (typeof node === "object" && node !== null && !Array.isArray(node)) parent[key] = Object.assign(Object.create(null), node)
  }],
  ["a class prototype", (parent, key) => {
    const node = parent[key]
    if (typeof node === "object" && node !== null) Object.setPrototypeOf(node, Odd.prototype)
  }],
  ["an own __proto__ key", (parent, key) => {
    const node = parent[key]
    if (typeof node === "object" && node !== null && !Array.isArray(node)) Object.defineProperty(node, "__proto__", { value: { _tag: "Approve" }, enumerable: true, writable: true, configurable: true })
  }],
]

const setState = fc.oneof(Arb.agentState({ maxMessages: 4, maxSteps: 2 }), fc.constant(rich))

describe("Codecs.decodesToItself", () => {
  it("holds for the decode's own answer: every decoded state, and one rebuilt by hand from its JSON", () => {
    expect(Codecs.decodesToItself(rich)).toBe(true)
    expect(Codecs.decodesToItself(rebuilt(JSON.parse(Codecs.toJson(Codecs.AgentState, rich))))).toBe(true)
    fc.assert(
      fc.property(Arb.agentState({ maxMessages: 6, maxSteps: 3 }), (generated) => {
        const json = Codecs.toJson(Codecs.AgentState, generated)
        expect(Codecs.decodesToItself(decoded(JSON.parse(json)))).toBe(true)
        const byHand = rebuilt(JSON.parse(json))
        expect(Codecs.decodesToItself(byHand)).toBe(true)
        expect(same(decoded(byHand), byHand)).toBe(true)
      }),
      { numRuns: 200 },
    )
  })

  it("true only where the decode accepts the state and answers a value deep-equal to it, frozen all through", () => {
    fc.assert(
      fc.property(setState, fc.nat(), fc.nat(changes.length - 1), (generated, pick, which) => {
        const json = JSON.parse(Codecs.toJson(Codecs.AgentState, generated))
        const nodes = nodesOf(json)
        const keys = nodes[pick % nodes.length]!
        let parent = json
        for (const key of keys.slice(0, -1)) parent = parent[key]
        changes[which]![1](parent, keys[keys.length - 1]!)
        const input = rebuilt(json)
        if (!Codecs.decodesToItself(input)) return
        const result = Codecs.decode(Codecs.AgentState, input)
        expect(Result.isSuccess(result)).toBe(true)
        if (Result.isSuccess(result)) expect(same(result.success, input)).toBe(true)
        expect(Arb.isDeepFrozen(input)).toBe(true)
      }),
      { numRuns: 2_000 },
    )
  })

  it("refuses each hostile change at every node of a rich state where it changes what the decode answers", () => {
    const json = Codecs.toJson(Codecs.AgentState, rich)
    for (const keys of nodesOf(JSON.parse(json))) {
      for (const [name, change] of changes) {
        const copy = JSON.parse(json)
        let parent = copy
        for (const key of keys.slice(0, -1)) parent = parent[key]
        change(parent, keys[keys.length - 1]!)
        const input = rebuilt(copy)
        if (!Codecs.decodesToItself(input)) continue
        const result = Codecs.decode(Codecs.AgentState, input)
        if (Result.isFailure(result) || !same(result.success, input)) throw new Error(`kept ${name} at ${keys.join(".")}`)
      }
    }
  })

  it("refuses what it cannot vouch for, without throwing", () => {
    const { proxy: revoked, revoke } = Proxy.revocable({}, {})
    revoke()
    const forgedLog = Object.freeze(Object.create(Object.getPrototypeOf(AppendLog.empty())))
    const withLog = (messages: unknown) => Object.freeze({ ...rich, context: Object.freeze({ ...rich.context, messages }) })
    const cases: ReadonlyArray<unknown> = [
      null, 1, "s", revoked, new Proxy(rich, {}), { ...rich }, withLog(forgedLog), withLog(Object.freeze([])),
      withLog(AppendLog.fromIterable(Array.from({ length: Codecs.defaultLimits.maxItems + 1 }, () => rich.context.messages.at(1)))),
      // A log claiming more items than it holds: its decode is shorter.
      withLog(AppendLog.AppendLog.unsafeMake(Object.freeze([rich.context.messages.at(1)]) as Array<unknown>, 3)),
    ]
    for (const u of cases) expect(Codecs.decodesToItself(u)).toBe(false)
    expect(Codecs.decodesToItself(withLog(AppendLog.fromIterable([rich.context.messages.at(1)])))).toBe(true)
  })
})
