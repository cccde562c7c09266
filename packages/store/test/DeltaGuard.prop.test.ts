// The delta's guard that skips what the step's journal entries checked
// (internal/deltaGuard.ts) answers exactly as `Checkpoint.DeltaCodec.is`, over generated
// steps and deltas, hostile ones included; and it spells out every field core's
// `Codecs.Step` guard reads.
import { AgentState, AppendLog, Codecs, Message, ToolCall, ToolExecution } from "@hookline/core"
import { Arbitraries } from "@hookline/testing"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { Checkpoint } from "../src/index.js"
import * as ByReference from "../src/internal/byReference.js"
import { assistantKeys, isDelta, isStep, restKeys, stepKeys, type Checked } from "../src/internal/deltaGuard.js"
import { readsOf, safely } from "./support/guardSpy.js"

const none: Checked = () => false

const deepFreeze = <A>(value: A): A => {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key])
    Object.freeze(value)
  }
  return value
}

// Values where a step's or a delta's field belongs that its codec may refuse.
const hostile: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<() => unknown>(
    () => undefined,
    () => null,
    () => Number.NaN,
    () => "x",
    () => 1,
    () => [],
    () => ({}),
    () => Object.freeze([undefined]),
    // eslint-disable-next-line no-sparse-arrays
    () => Object.freeze([, 1]),
    () => Object.freeze(Object.defineProperty({}, "boom", { enumerable: true, get: () => { throw new Error("boom") } })),
  ).map((f) => f()),
  fc.jsonValue().map(deepFreeze),
)

// The keys core's Step guard reads (a spy over valid steps): the fields to break.
const coreStepKeys = (): ReadonlyArray<string> => {
  const read = new Set<string>()
  for (const step of fc.sample(Arbitraries.step(), 100)) {
    const seen = readsOf(step, (u) => Codecs.Step.is(u))
    for (const key of seen.read) read.add(key)
    if (!seen.answer) throw new Error("a generated step is not a Step")
  }
  return [...read].sort()
}
const keys = coreStepKeys()

// `step` with `value` at one of its keys (or at none, or as one more execution), frozen or not.
const mutated = fc.tuple(Arbitraries.step(), hostile, fc.nat(keys.length + 1), fc.boolean()).map(([step, value, at, frozen]) => {
  const key = keys[at]
  const out: Record<string, unknown> = key === undefined ? { ...step } : { ...step, [key]: value }
  if (at === keys.length + 1 && step.toolExecutions.length > 0) out["toolExecutions"] = [...step.toolExecutions, value]
  return frozen ? Object.freeze(out) : out
})

// What the journal's entries would have checked: the step's answer and executions that
// their codecs' guards accept, vouched as `JournalEntry.entry` vouches them.
const journaled = (steps: ReadonlyArray<unknown>): Checked => {
  const measured = ByReference.measure()
  for (const step of steps) {
    if (typeof step !== "object" || step === null) continue
    const { response, toolExecutions } = step as { readonly response?: unknown; readonly toolExecutions?: unknown }
    if (response !== undefined) ByReference.vouched(measured, Codecs.InferenceResponse, response as never)
    if (Array.isArray(toolExecutions)) for (const e of toolExecutions) ByReference.vouched(measured, Codecs.ToolExecution, e)
  }
  return measured.checked
}

describe("the delta's guard, split (internal/deltaGuard.ts)", () => {
  it("reads every field core's Step guard reads", () => {
    expect([...stepKeys].sort()).toEqual(keys)
    // And reads them: each by name, none left out (a spy over generated steps).
    const read = new Set<string>()
    for (const step of fc.sample(Arbitraries.step(), 100)) {
      const seen = readsOf(step, (u) => isStep(u, none))
      for (const key of seen.read) read.add(key)
      expect(seen.answer).toBe(true)
    }
    expect([...read].sort()).toEqual(keys)
  })

  it("answers as Codecs.Step.is for any step, with and without what the journal checked", () => {
    let accepted = 0
    fc.assert(
      fc.property(mutated, (step) => {
        const full = safely(() => Codecs.Step.is(step))
        if (full) accepted++
        expect(safely(() => isStep(step, none))).toBe(full)
        expect(safely(() => isStep(step, journaled([step])))).toBe(full)
      }),
      { numRuns: 500 },
    )
    expect(accepted).toBeGreaterThan(0)
  }, 60_000)

  it("answers as Checkpoint.DeltaCodec.is for any delta, with and without what the journal checked", () => {
    let accepted = 0
    const deltas = fc.tuple(Arbitraries.agentState(), fc.nat(), mutated, hostile, fc.nat(4)).map(([state, cut, step, value, where]) => {
      const messages = state.context.messages.toArray()
      const prefix = AgentState.withContext(state, { ...state.context, messages: AppendLog.fromIterable(messages.slice(0, cut % (messages.length + 1))) })
      const delta = Checkpoint.diff(prefix, state) ?? { v: Checkpoint.version, id: state.id }
      const steps = delta.steps?.items ?? []
      switch (where) {
        case 0:
          return { ...delta, steps: { from: 0, items: [...steps, step] } }
        case 1:
          return { ...delta, steps: value }
        case 2:
          return { ...delta, status: value }
        case 3:
          return { ...delta, steps: { from: value, items: steps } }
        default:
          return delta
      }
    })
    fc.assert(
      fc.property(deltas, (delta) => {
        const full = safely(() => Checkpoint.DeltaCodec.is(delta))
        if (full) accepted++
        expect(safely(() => isDelta(delta, none))).toBe(full)
        const items = (delta.steps as { readonly items?: unknown } | undefined)?.items
        expect(safely(() => isDelta(delta, journaled(Array.isArray(items) ? items : [])))).toBe(full)
      }),
      { numRuns: 300 },
    )
    expect(accepted).toBeGreaterThan(0)
  }, 120_000)

  it("reads by name every field DeltaCodec reads, the tails aside, in its order", () => {
    // The keys each guard reads of a delta with nothing but its head (a spy records them).
    const readBy = (guard: (u: unknown) => boolean): ReadonlyArray<string> => {
      const seen = readsOf({ v: Checkpoint.version, id: "run" }, guard)
      expect(seen.answer).toBe(true)
      return seen.read
    }
    const tails = new Set(["v", "id", "steps", "messages"])
    const byCodec = readBy((u) => Checkpoint.DeltaCodec.is(u)).filter((key) => !tails.has(key))
    expect(readBy((u) => isDelta(u, none)).filter((key) => !tails.has(key))).toEqual(byCodec)
    expect(restKeys).toEqual(byCodec)
  })

  it("answers as Checkpoint.DeltaCodec.is with any one field of a run's first delta replaced", () => {
    let accepted = 0
    let refused = 0
    // Every field, each with every hostile value and a few generated ones, over a few
    // generated runs' first deltas (which hold every field, each as its codec writes it).
    const values = [...fc.sample(hostile, 40), null, undefined, "x", 1, true, [], {}]
    for (const state of fc.sample(Arbitraries.agentState(), 5)) {
      const first = Checkpoint.diff(undefined, state) as unknown as Record<string, unknown>
      for (const key of restKeys) {
        for (const value of [first[key], ...values]) {
          const delta = { ...first, [key]: value }
          const full = safely(() => Checkpoint.DeltaCodec.is(delta))
          if (full) accepted++
          else refused++
          expect(safely(() => isDelta(delta, none)), `${key}: ${String(value)}`).toBe(full)
        }
      }
    }
    expect(accepted).toBeGreaterThan(0)
    expect(refused).toBeGreaterThan(0)
  }, 120_000)

  it("reads every field of an assistant message that core's Message guard reads", () => {
    const read = new Set<string>()
    for (const response of fc.sample(Arbitraries.inferenceResponse(), 50)) {
      const seen = readsOf(Message.assistant("x", response.toolCalls), (u) => Codecs.Message.is(u))
      for (const key of seen.read) read.add(key)
      expect(seen.answer).toBe(true)
    }
    expect([...read].sort()).toEqual([...assistantKeys].sort())
  })

  it("answers as Checkpoint.DeltaCodec.is for a delta whose assistant message holds its step's answer's calls, whatever the message holds", () => {
    let shortCut = 0
    let refused = 0
    const deltas = fc
      .tuple(Arbitraries.step(), Arbitraries.inferenceResponse(), hostile, fc.nat(assistantKeys.length), fc.boolean(), fc.string({ maxLength: 8 }))
      .map(([base, response, value, at, frozen, content]) => {
        const step = Object.freeze({ ...base, response })
        const fields = { role: "assistant", content, toolCalls: response.toolCalls }
        const key = assistantKeys[at]
        const message = key === undefined ? fields : { ...fields, [key]: value }
        return {
          delta: Object.freeze({
            v: Checkpoint.version,
            id: "run",
            messages: Object.freeze({ from: 0, items: Object.freeze([frozen ? Object.freeze(message) : message]) }),
            steps: Object.freeze({ from: 0, items: Object.freeze([step]) }),
          }),
          step,
          shares: key !== "toolCalls",
        }
      })
    fc.assert(
      fc.property(deltas, ({ delta, step, shares }) => {
        const full = safely(() => Checkpoint.DeltaCodec.is(delta))
        if (full && shares) shortCut++
        if (!full) refused++
        expect(safely(() => isDelta(delta, none))).toBe(full)
        expect(safely(() => isDelta(delta, journaled([step])))).toBe(full)
      }),
      { numRuns: 400 },
    )
    expect(shortCut).toBeGreaterThan(0)
    expect(refused).toBeGreaterThan(0)
  }, 60_000)

  it("skips nothing the journal did not check: a value refused or never measured is checked in full", () => {
    const measured = ByReference.measure()
    const bad = Object.freeze({ ...fc.sample(Arbitraries.step(), 1)[0]!, index: Number.NaN })
    // Measured and frozen, but the codec refused it: not noted.
    expect(ByReference.vouched(measured, Codecs.Step, bad)).toBe(false)
    expect(measured.checked(bad, Codecs.Step)).toBe(false)
    // Noted for the codec that accepted it only, until `forget`.
    const execution = ToolExecution.success(ToolCall.make({ id: "c", name: "t", arguments: {} }), 1 as never, 1, 2)
    expect(ByReference.vouched(measured, Codecs.ToolExecution, execution)).toBe(true)
    expect(measured.checked(execution, Codecs.ToolExecution)).toBe(true)
    expect(measured.checked(execution, Codecs.InferenceResponse)).toBe(false)
    measured.forget()
    expect(measured.checked(execution, Codecs.ToolExecution)).toBe(false)
  })
})
