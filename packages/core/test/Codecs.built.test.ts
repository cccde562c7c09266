// A state folded from parts core's codecs decoded (what a store's load does) is known as
// checked (`Codecs.rememberBuilt`, `Codecs.isBuilt`), so the agent's entry does not decode
// it again; nothing else is: a part made by hand, a Proxy, an accessor, an extra key, a
// part decoded under looser bounds. Whatever it takes, the codec accepts as it is.
import fc from "fast-check"
import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { AgentState, AppendLog, Codecs, Json, Message } from "@hookline/core"
import * as Arb from "./arbitraries.js"

const decode = <A>(codec: Codecs.Codec<A, any>, u: unknown, options?: Codecs.DecodeOptions): A => {
  const result = Codecs.decode(codec, u, options)
  if (Result.isFailure(result)) throw new Error(result.failure.message)
  return result.success
}

// The state's parts decoded one by one from its JSON, then folded with AgentState's
// functions, as `Checkpoint.restore` folds a store's deltas.
const fold = (state: AgentState, options?: Codecs.DecodeOptions): AgentState => {
  const json = JSON.parse(Codecs.toJson(Codecs.AgentState, state))
  const e = json.execution
  const base = AgentState.make({ id: json.id, parentId: json.parentId, metadata: decode(Codecs.Metadata, json.metadata, options) })
  return AgentState.withExecution(
    AgentState.withContext(base, {
      systemPrompt: json.context.systemPrompt,
      responseFormat: json.context.responseFormat === undefined ? undefined : decode(Codecs.ResponseFormat, json.context.responseFormat, options),
      messages: AppendLog.fromIterable(json.context.messages.map((m: unknown) => decode(Codecs.Message, m, options))),
      metadata: decode(Codecs.Metadata, json.context.metadata, options),
    }),
    {
      status: e.status,
      startedAt: e.startedAt,
      runningSince: e.runningSince,
      completedAt: e.completedAt,
      steps: AppendLog.fromIterable(e.steps.map((s: unknown) => decode(Codecs.Step, s, options))),
      stopSignals: Object.freeze(e.stopSignals.map((s: unknown) => decode(Codecs.StopSignal, s, options))),
      continuationRequested: e.continuationRequested,
      stopReason: e.stopReason,
      metadata: decode(Codecs.Metadata, e.metadata ?? {}, options),
      usage: decode(Codecs.Usage, e.usage, options),
      errors: Object.freeze(e.errors.map((x: unknown) => decode(Codecs.AgentError, x, options))),
      ...(e.pendingCalls === undefined ? {} : { pendingCalls: Object.freeze(e.pendingCalls.map((p: unknown) => decode(Codecs.PendingCall, p, options))) }),
      ...(e.suspendedStep === undefined ? {} : { suspendedStep: decode(Codecs.Step, e.suspendedStep, options) }),
    },
  )
}

const folded = () => fold(AgentState.make({ id: "s", messages: [Message.user("hi"), Message.assistant("hello")], metadata: { a: 1 } }))

describe("Codecs.rememberBuilt", () => {
  it("takes a state folded from decoded parts, as it is, and the codec accepts it as it is", () => {
    fc.assert(
      fc.property(Arb.agentState({ maxMessages: 4, maxSteps: 3 }), (generated) => {
        const state = fold(generated)
        expect(Codecs.isBuilt(state)).toBe(false)
        expect(Codecs.rememberBuilt(state)).toBe(state)
        expect(Codecs.isBuilt(state)).toBe(true)
        expect(decode(Codecs.AgentState, state)).toEqual(state)
        expect(Arb.isDeepFrozen(state)).toBe(true)
      }),
      { numRuns: 100 },
    )
  })

  it("knows a state Codecs.AgentState decoded", () => {
    const state = decode(Codecs.AgentState, JSON.parse(Codecs.toJson(Codecs.AgentState, folded())))
    expect(Codecs.isBuilt(state)).toBe(true)
  })

  const refused: ReadonlyArray<readonly [string, () => unknown]> = [
    ["a state made by hand (its parts never decoded)", () => AgentState.make({ id: "s", messages: [Message.user("hi")] })],
    ["one message made by hand among decoded ones", () => AgentState.appendMessage(folded(), Message.user("mine"))],
    ["a Proxy over a folded state", () => new Proxy(folded(), {})],
    ["an extra key on the state", () => Object.freeze({ ...folded(), extra: "x".repeat(100) })],
    ["an accessor on the state", () => {
      const { id: _, ...rest } = folded()
      return Object.freeze(Object.defineProperty({ ...rest }, "id", { get: () => "s", enumerable: true }))
    }],
    ["a state whose shell is not frozen", () => ({ ...folded() })],
    ["a system prompt past Json.maxStringLength", () => AgentState.withSystemPrompt(folded(), "x".repeat(Json.maxStringLength + 1))],
    ["a status that is not one", () => Object.freeze({ ...folded(), execution: Object.freeze({ ...folded().execution, status: "sleeping" }) })],
    ["metadata made by hand", () => Object.freeze({ ...folded(), metadata: Object.freeze({ a: 1 }) })],
    ["parts decoded under looser bounds", () => fold(folded(), { maxStringLength: Json.maxStringLength * 2 })],
    ["null", () => null],
    ["a string", () => "state"],
  ]

  it.each(refused)("does not take %s", (_, make) => {
    const state = make()
    expect(Codecs.rememberBuilt(state)).toBe(state)
    expect(Codecs.isBuilt(state)).toBe(false)
  })

  it("does not take a part decoded under looser bounds, even alone", () => {
    const message = decode(Codecs.Message, { role: "user", content: "hi" }, { maxItems: Codecs.defaultLimits.maxItems * 2 })
    expect(Codecs.isBuilt(message)).toBe(false)
    expect(Codecs.isBuilt(decode(Codecs.Message, { role: "user", content: "hi" }, { maxItems: 10 }))).toBe(true)
  })
})
