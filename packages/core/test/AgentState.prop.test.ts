import { pipe } from "effect/Function"
import fc from "fast-check"
import type { Draft } from "immer"
import { describe, expect, it } from "vitest"
import { AgentState, AppendLog, type Message, type Metadata } from "@hookline/core"
import * as Arb from "./arbitraries.js"

// A plain, unfrozen deep copy of JSON data: what a user builds by hand.
const thaw = <A>(value: A): A => JSON.parse(JSON.stringify(value)) as A
const plain = <A>(arb: fc.Arbitrary<A>): fc.Arbitrary<A> => arb.map(thaw)

type Change = (self: AgentState) => AgentState
type Recipe = (draft: Draft<AgentState>) => void

const time = fc.integer({ min: 0, max: 4_000_000_000_000 })

// Recipes a user might write for AgentState.update.
const recipe: fc.Arbitrary<Recipe> = fc.oneof(
  fc.constant<Recipe>((draft) => void draft.context.messages.length),
  fc.tuple(Arb.json, fc.string({ maxLength: 4 })).map(([value, key]): Recipe => (draft) => {
    draft.metadata[`k${key}`] = value as Draft<typeof value>
  }),
  fc.string({ maxLength: 8 }).map((prompt): Recipe => (draft) => {
    draft.context.systemPrompt = prompt
  }),
  Arb.status.map((status): Recipe => (draft) => {
    draft.execution.status = status
  }),
  plain(Arb.stopSignal).map((signal): Recipe => (draft) => {
    draft.execution.stopSignals.push(signal)
  }),
  Arb.message().map((m): Recipe => (draft) => {
    draft.context.messages = AppendLog.append(draft.context.messages as AppendLog<Message>, m)
  }),
)

// Every combinator of AgentState, with arguments as users pass them (plain data where it is data).
const changes: ReadonlyArray<readonly [string, fc.Arbitrary<Change>]> = [
  ["update", recipe.map((r): Change => (s) => AgentState.update(s, r))],
  ["withContext", fc.string({ maxLength: 8 }).map((p): Change => (s) => AgentState.withContext(s, { ...s.context, systemPrompt: p }))],
  ["withExecution", Arb.status.map((status): Change => (s) => AgentState.withExecution(s, { ...s.execution, status }))],
  ["appendMessage", plain(Arb.message()).map((m): Change => (s) => AgentState.appendMessage(s, m))],
  ["appendMessages", fc.array(plain(Arb.message()), { maxLength: 3 }).map((ms): Change => (s) => AgentState.appendMessages(s, ms))],
  ["withSystemPrompt", fc.string({ maxLength: 8 }).map((p): Change => (s) => AgentState.withSystemPrompt(s, p))],
  [
    "withResponseFormat",
    fc.option(plain(Arb.responseFormat), { nil: undefined }).map((f): Change => (s) => AgentState.withResponseFormat(s, f)),
  ],
  ["withMetadata", Arb.metadata.map((m): Change => (s) => AgentState.withMetadata(s, m))],
  ["withStopSignal", plain(Arb.stopSignal).map((sig): Change => (s) => AgentState.withStopSignal(s, sig))],
  ["addError", plain(Arb.agentError).map((e): Change => (s) => AgentState.addError(s, e))],
  ["appendStep", fc.nat(5).chain(Arb.step).map(thaw).map((st): Change => (s) => AgentState.appendStep(s, st))],
  [
    "withStatus",
    fc.tuple(Arb.status, fc.option(time, { nil: undefined })).map(([st, at]): Change => (s) => AgentState.withStatus(s, st, at)),
  ],
  ["withContinuationRequested", fc.boolean().map((b): Change => (s) => AgentState.withContinuationRequested(s, b))],
  ["clearStopSignals", fc.constant<Change>(AgentState.clearStopSignals)],
]

// Everything observable about a state, taken before a change.
const snapshot = (s: AgentState) => ({
  json: JSON.stringify(s),
  top: { ...s },
  context: { ...s.context },
  execution: { ...s.execution },
  messages: s.context.messages.length,
  steps: s.execution.steps.length,
})

const expectUnchanged = (s: AgentState, before: ReturnType<typeof snapshot>) => {
  expect(JSON.stringify(s)).toBe(before.json)
  for (const [key, value] of Object.entries(before.top)) expect(s[key as keyof AgentState]).toBe(value)
  for (const [key, value] of Object.entries(before.context)) expect(s.context[key as keyof AgentState["context"]]).toBe(value)
  for (const [key, value] of Object.entries(before.execution)) expect(s.execution[key as keyof AgentState["execution"]]).toBe(value)
  expect(s.context.messages.length).toBe(before.messages)
  expect(s.execution.steps.length).toBe(before.steps)
}

describe("AgentState", () => {
  describe.each(changes)("%s", (_name, change) => {
    it("leaves its input unchanged", () => {
      fc.assert(
        fc.property(Arb.agentState(), change, (s, f) => {
          const before = snapshot(s)
          f(s)
          expectUnchanged(s, before)
        }),
      )
    })

    it("returns deeply frozen data", () => {
      fc.assert(
        fc.property(Arb.agentState(), change, (s, f) => {
          expect(Arb.isDeepFrozen(f(s))).toBe(true)
        }),
      )
    })
  })

  describe("no-op laws", () => {
    it("update returns the same state for a recipe that changes nothing", () => {
      fc.assert(
        fc.property(Arb.agentState(), (s) => {
          expect(AgentState.update(s, (draft) => void draft.metadata)).toBe(s)
          expect(AgentState.update(s, (draft) => {
            draft.context.systemPrompt = s.context.systemPrompt
            draft.execution.status = s.execution.status
          })).toBe(s)
        }),
      )
    })

    it("withContext and withExecution return the same state for its own parts", () => {
      fc.assert(
        fc.property(Arb.agentState(), (s) => {
          expect(AgentState.withContext(s, s.context)).toBe(s)
          expect(AgentState.withExecution(s, s.execution)).toBe(s)
        }),
      )
    })

    it("appendMessages returns the same state for no messages", () => {
      fc.assert(fc.property(Arb.agentState(), (s) => {
        expect(AgentState.appendMessages(s, [])).toBe(s)
      }))
    })

    it("withSystemPrompt and withResponseFormat return the same state for the current value", () => {
      fc.assert(
        fc.property(Arb.agentState(), (s) => {
          expect(AgentState.withSystemPrompt(s, s.context.systemPrompt)).toBe(s)
          expect(AgentState.withResponseFormat(s, s.context.responseFormat)).toBe(s)
        }),
      )
    })

    it("withMetadata returns the same state for entries already there, and is idempotent", () => {
      fc.assert(
        fc.property(Arb.agentState(), Arb.metadata, fc.nat(), (s, m, n) => {
          const keys = Object.keys(s.metadata)
          const existing: Metadata = Object.fromEntries(keys.slice(0, n % (keys.length + 1)).map((k) => [k, s.metadata[k]!]))
          expect(AgentState.withMetadata(s, existing)).toBe(s)
          const once = AgentState.withMetadata(s, m)
          expect(AgentState.withMetadata(once, m)).toBe(once)
        }),
      )
    })

    it("withStopSignal returns the same state for a signal of the same reason and source", () => {
      fc.assert(
        fc.property(Arb.agentState(), Arb.stopSignal, (s, signal) => {
          const once = AgentState.withStopSignal(s, signal)
          expect(AgentState.withStopSignal(once, { ...signal, message: `${signal.message}!` })).toBe(once)
          for (const existing of s.execution.stopSignals) expect(AgentState.withStopSignal(s, existing)).toBe(s)
        }),
      )
    })

    it("withStatus and withContinuationRequested return the same state for the current value", () => {
      fc.assert(
        fc.property(Arb.agentState(), (s) => {
          expect(AgentState.withStatus(s, s.execution.status)).toBe(s)
          expect(AgentState.withContinuationRequested(s, s.execution.continuationRequested)).toBe(s)
        }),
      )
    })

    it("clearStopSignals is idempotent", () => {
      fc.assert(
        fc.property(Arb.agentState(), (s) => {
          const once = AgentState.clearStopSignals(s)
          expect(once.execution.stopSignals).toEqual([])
          expect(AgentState.clearStopSignals(once)).toBe(once)
        }),
      )
    })
  })

  describe("structural sharing", () => {
    it("appendMessage shares the execution, the metadata and every old message", () => {
      fc.assert(
        fc.property(Arb.agentState(), Arb.message(), (s, m) => {
          const next = AgentState.appendMessage(s, m)
          expect(next.execution).toBe(s.execution)
          expect(next.metadata).toBe(s.metadata)
          expect(next.context.metadata).toBe(s.context.metadata)
          expect(next.context.messages.length).toBe(s.context.messages.length + 1)
          ;[...s.context.messages].forEach((old, i) => expect(next.context.messages.at(i)).toBe(old))
          expect(next.context.messages.last()).toBe(m)
        }),
      )
    })

    it("appendMessage on an older state leaves newer states unchanged", () => {
      fc.assert(
        fc.property(Arb.agentState(), Arb.message(), Arb.message(), Arb.message(), (s, a, b, c) => {
          const newer = AgentState.appendMessage(s, a)
          const newest = AgentState.appendMessage(newer, c)
          const branch = AgentState.appendMessage(s, b)
          expect(newer.context.messages.last()).toBe(a)
          expect(newest.context.messages.at(-2)).toBe(a)
          expect(newest.context.messages.last()).toBe(c)
          expect(branch.context.messages.last()).toBe(b)
          expect(branch.context.messages.length).toBe(s.context.messages.length + 1)
        }),
      )
    })

    it("update of the metadata shares the context and the execution", () => {
      fc.assert(
        fc.property(Arb.agentState(), Arb.json, (s, value) => {
          const next = AgentState.update(s, (draft) => {
            draft.metadata["__changed"] = value as Draft<typeof value>
          })
          expect(next.context).toBe(s.context)
          expect(next.execution).toBe(s.execution)
        }),
      )
    })

    it("appendStep shares the context and adds the step's usage", () => {
      fc.assert(
        fc.property(Arb.agentState(), Arb.step(0), (s, step) => {
          const next = AgentState.appendStep(s, step)
          expect(next.context).toBe(s.context)
          expect(AgentState.stepCount(next)).toBe(AgentState.stepCount(s) + 1)
          expect(AgentState.lastStep(next)).toBe(step)
          expect(AgentState.totalTokens(next)).toBe(AgentState.totalTokens(s) + step.usage.inputTokens + step.usage.outputTokens)
        }),
      )
    })
  })

  describe("dual forms", () => {
    const forms: ReadonlyArray<readonly [string, fc.Arbitrary<readonly [Change, Change]>]> = [
      ["update", recipe.map((r) => [(s) => AgentState.update(s, r), AgentState.update(r)] as const)],
      ["appendMessage", Arb.message().map((m) => [(s) => AgentState.appendMessage(s, m), AgentState.appendMessage(m)] as const)],
      [
        "appendMessages",
        fc.array(Arb.message(), { maxLength: 3 }).map((ms) => [(s) => AgentState.appendMessages(s, ms), AgentState.appendMessages(ms)] as const),
      ],
      ["withSystemPrompt", fc.string().map((p) => [(s) => AgentState.withSystemPrompt(s, p), AgentState.withSystemPrompt(p)] as const)],
      [
        "withResponseFormat",
        Arb.responseFormat.map((f) => [(s) => AgentState.withResponseFormat(s, f), AgentState.withResponseFormat(f)] as const),
      ],
      ["withMetadata", Arb.metadata.map((m) => [(s) => AgentState.withMetadata(s, m), AgentState.withMetadata(m)] as const)],
      ["withStopSignal", Arb.stopSignal.map((x) => [(s) => AgentState.withStopSignal(s, x), AgentState.withStopSignal(x)] as const)],
      ["addError", Arb.agentError.map((e) => [(s) => AgentState.addError(s, e), AgentState.addError(e)] as const)],
      ["appendStep", Arb.step(0).map((st) => [(s) => AgentState.appendStep(s, st), AgentState.appendStep(st)] as const)],
      [
        "withStatus",
        fc.tuple(Arb.status, fc.option(time, { nil: undefined }))
          .map(([st, at]) => [(s) => AgentState.withStatus(s, st, at), AgentState.withStatus(st, at)] as const),
      ],
      [
        "withContinuationRequested",
        fc.boolean().map((b) => [(s) => AgentState.withContinuationRequested(s, b), AgentState.withContinuationRequested(b)] as const),
      ],
    ]

    it.each(forms)("%s gives equal results data-first and data-last", (_name, pair) => {
      fc.assert(
        fc.property(Arb.agentState(), pair, (s, [first, last]) => {
          expect(pipe(s, last)).toEqual(first(s))
        }),
      )
    })
  })
})
