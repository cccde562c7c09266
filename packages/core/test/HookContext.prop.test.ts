import { pipe } from "effect/Function"
import fc from "fast-check"
import type { Draft } from "immer"
import { describe, expect, it } from "vitest"
import { type AgentState, type HookContext as Ctx, HookContext, type Metadata } from "@hookline/core"
import * as Arb from "./arbitraries.js"

// A plain, unfrozen deep copy of JSON data: what a user builds by hand.
const thaw = <A>(value: A): A => JSON.parse(JSON.stringify(value)) as A
const plain = <A>(arb: fc.Arbitrary<A>): fc.Arbitrary<A> => arb.map(thaw)

type Change = (self: Ctx) => Ctx
type Recipe = (draft: Draft<AgentState>) => void

// Small states keep the suite fast; the laws do not depend on history length.
const sizes: Arb.Sizes = { maxMessages: 4, maxSteps: 2 }
const anyContext = Arb.hookContext(undefined, sizes)
const toolContext = fc.oneof(Arb.hookContext("BeforeToolUse", sizes), Arb.hookContext("AfterToolUse", sizes))
const inferenceContext = fc.oneof(Arb.hookContext("BeforeInference", sizes), Arb.hookContext("AfterInference", sizes))
const onStopContext = Arb.hookContext("OnStop", sizes)
const onErrorContext = Arb.hookContext("OnError", sizes)
const text = fc.string({ maxLength: 12 })

const recipe: fc.Arbitrary<Recipe> = fc.oneof(
  fc.constant<Recipe>((draft) => void draft.id),
  fc.tuple(Arb.json, text).map(([value, key]): Recipe => (draft) => {
    draft.metadata[`k${key}`] = value as Draft<typeof value>
  }),
  text.map((prompt): Recipe => (draft) => {
    draft.context.systemPrompt = prompt
  }),
)

// An unfrozen state with unfrozen parts, built by hand from a frozen one.
const plainState: fc.Arbitrary<AgentState> = fc
  .tuple(Arb.agentState(sizes), Arb.metadata)
  .map(([s, metadata]) => ({ ...s, context: { ...s.context }, metadata }))

const requestInput = fc.oneof(
  Arb.inferenceRequest(),
  fc.record({
    systemPrompt: text,
    messages: fc.array(plain(Arb.message()), { maxLength: 4 }),
    tools: plain(fc.array(fc.record({ name: text, description: text, parameters: fc.dictionary(text, Arb.json) }), { maxLength: 2 })),
  }),
)

// Every with* function of HookContext, each on contexts where it has something to do.
const changes: ReadonlyArray<readonly [string, fc.Arbitrary<Ctx>, fc.Arbitrary<Change>]> = [
  ["withState", anyContext, plainState.map((s): Change => (c) => HookContext.withState(c, s))],
  ["updateState", anyContext, recipe.map((r): Change => (c) => HookContext.updateState(c, r))],
  ["withRequest", inferenceContext, requestInput.map((r): Change => (c) => HookContext.withRequest(c, r))],
  ["withResponse", inferenceContext, plain(Arb.inferenceResponse()).map((r): Change => (c) => HookContext.withResponse(c, r))],
  ["withToolCall", toolContext, plain(Arb.toolCall).map((t): Change => (c) => HookContext.withToolCall(c, t))],
  ["withToolArguments", toolContext, Arb.json.map((a): Change => (c) => HookContext.withToolArguments(c, a))],
  ["withToolExecution", toolContext, plain(Arb.toolExecution).map((e): Change => (c) => HookContext.withToolExecution(c, e))],
  ["withToolResult", toolContext, Arb.json.map((o): Change => (c) => HookContext.withToolResult(c, o))],
  ["withToolExecutionBlocked", toolContext, text.map((r): Change => (c) => HookContext.withToolExecutionBlocked(c, r))],
  ["withStopSignal", anyContext, plain(Arb.stopSignal).map((s): Change => (c) => HookContext.withStopSignal(c, s))],
  [
    "requestContinuation",
    onStopContext,
    fc.option(text, { nil: undefined }).map((m): Change => (c) => HookContext.requestContinuation(c, m)),
  ],
  ["withMetadata", anyContext, Arb.metadata.map((m): Change => (c) => HookContext.withMetadata(c, m))],
  [
    "withErrors",
    onErrorContext,
    fc.array(plain(Arb.agentError), { maxLength: 3 }).map((e): Change => (c) => HookContext.withErrors(c, e)),
  ],
  ["markErrorsHandled", onErrorContext, fc.constant<Change>(HookContext.markErrorsHandled)],
]

describe("HookContext", () => {
  describe.each(changes)("%s", (_name, context, change) => {
    it("leaves its input unchanged", () => {
      fc.assert(
        fc.property(context, change, (ctx, f) => {
          const json = JSON.stringify(ctx)
          const top = { ...ctx }
          const messages = ctx.state.context.messages.length
          f(ctx)
          expect(JSON.stringify(ctx)).toBe(json)
          for (const [key, value] of Object.entries(top)) expect(ctx[key as keyof Ctx]).toBe(value)
          expect(ctx.state.context.messages.length).toBe(messages)
        }),
      )
    })

    it("returns deeply frozen data", () => {
      fc.assert(
        fc.property(context, change, (ctx, f) => {
          expect(Arb.isDeepFrozen(f(ctx))).toBe(true)
        }),
      )
    })

    it("keeps the trigger and the creation time", () => {
      fc.assert(
        fc.property(context, change, (ctx, f) => {
          const out = f(ctx)
          expect(out.trigger).toBe(ctx.trigger)
          expect(out.createdAt).toBe(ctx.createdAt)
        }),
      )
    })
  })

  describe("no-op laws", () => {
    it("withState returns the same context for its own state", () => {
      fc.assert(fc.property(anyContext, (ctx) => {
        expect(HookContext.withState(ctx, ctx.state)).toBe(ctx)
      }))
    })

    it("updateState returns the same context for a recipe that changes nothing", () => {
      fc.assert(
        fc.property(anyContext, (ctx) => {
          expect(HookContext.updateState(ctx, (draft) => void draft.metadata)).toBe(ctx)
          expect(HookContext.updateState(ctx, (draft) => {
            draft.context.systemPrompt = ctx.state.context.systemPrompt
          })).toBe(ctx)
        }),
      )
    })

    it("withRequest and withResponse return the same context for their own values", () => {
      fc.assert(
        fc.property(inferenceContext, (ctx) => {
          expect(HookContext.withRequest(ctx, ctx.request!)).toBe(ctx)
          if (ctx.response !== undefined) expect(HookContext.withResponse(ctx, ctx.response)).toBe(ctx)
        }),
      )
    })

    it("withToolCall, withToolArguments and withToolExecution return the same context for their own values", () => {
      fc.assert(
        fc.property(toolContext, (ctx) => {
          expect(HookContext.withToolCall(ctx, ctx.toolCall!)).toBe(ctx)
          expect(HookContext.withToolArguments(ctx, ctx.toolCall!.arguments)).toBe(ctx)
          if (ctx.toolExecution !== undefined) expect(HookContext.withToolExecution(ctx, ctx.toolExecution)).toBe(ctx)
        }),
      )
    })

    it("withToolResult is idempotent", () => {
      fc.assert(
        fc.property(toolContext, Arb.json, (ctx, output) => {
          const once = HookContext.withToolResult(ctx, output)
          expect(HookContext.withToolResult(once, output)).toBe(once)
        }),
      )
    })

    it("withToolExecutionBlocked returns the same context once blocked, whatever the reason", () => {
      fc.assert(
        fc.property(toolContext, text, text, (ctx, first, second) => {
          const once = HookContext.withToolExecutionBlocked(ctx, first)
          expect(once.toolExecutionBlocked).toBe(true)
          expect(HookContext.withToolExecutionBlocked(once, second)).toBe(once)
        }),
      )
    })

    it("withStopSignal returns the same context for a signal already there", () => {
      fc.assert(
        fc.property(anyContext, Arb.stopSignal, (ctx, signal) => {
          const once = HookContext.withStopSignal(ctx, signal)
          expect(HookContext.withStopSignal(once, signal)).toBe(once)
          for (const existing of ctx.state.execution.stopSignals) expect(HookContext.withStopSignal(ctx, existing)).toBe(ctx)
        }),
      )
    })

    it("requestContinuation without a message is idempotent", () => {
      fc.assert(
        fc.property(anyContext, (ctx) => {
          const once = HookContext.requestContinuation(ctx)
          expect(once.state.execution.continuationRequested).toBe(true)
          expect(HookContext.requestContinuation(once)).toBe(once)
        }),
      )
    })

    it("withMetadata returns the same context for no entries, and is idempotent", () => {
      fc.assert(
        fc.property(anyContext, Arb.metadata, (ctx, m) => {
          expect(HookContext.withMetadata(ctx, {})).toBe(ctx)
          const existing: Metadata = { ...ctx.metadata }
          expect(HookContext.withMetadata(ctx, existing)).toBe(ctx)
          const once = HookContext.withMetadata(ctx, m)
          expect(HookContext.withMetadata(once, m)).toBe(once)
        }),
      )
    })

    it("withErrors returns the same context for its own errors; markErrorsHandled is idempotent", () => {
      fc.assert(
        fc.property(onErrorContext, (ctx) => {
          expect(HookContext.withErrors(ctx, ctx.errors)).toBe(ctx)
          const handled = HookContext.markErrorsHandled(ctx)
          expect(handled.errors).toEqual([])
          expect(HookContext.markErrorsHandled(handled)).toBe(handled)
        }),
      )
    })
  })

  describe("a block", () => {
    it("is final: no sequence of changes lifts it or replaces its execution", () => {
      const anyChange = fc.oneof(...changes.map(([, , change]) => change))
      fc.assert(
        fc.property(toolContext, text, fc.array(anyChange, { maxLength: 6 }), (ctx, reason, later) => {
          const blocked = HookContext.withToolExecutionBlocked(ctx, reason)
          const out = later.reduce((c, f) => f(c), blocked)
          expect(out.toolExecutionBlocked).toBe(true)
          expect(out.toolExecution).toBe(blocked.toolExecution)
          expect(out.toolCall).toBe(blocked.toolCall)
        }),
      )
    })
  })

  describe("withStopSignal", () => {
    it("persists the signal into the state and keeps every other field", () => {
      fc.assert(
        fc.property(anyContext, Arb.stopSignal, (ctx, signal) => {
          const out = HookContext.withStopSignal(ctx, signal)
          expect(out.state.execution.stopSignals.some((s) => s.reason === signal.reason && s.source === signal.source)).toBe(true)
          expect(out.state.context).toBe(ctx.state.context)
          expect(out.toolCall).toBe(ctx.toolCall)
          expect(out.request).toBe(ctx.request)
          expect(out.metadata).toBe(ctx.metadata)
        }),
      )
    })
  })

  describe("dual forms", () => {
    const forms: ReadonlyArray<readonly [string, fc.Arbitrary<Ctx>, fc.Arbitrary<readonly [Change, Change]>]> = [
      ["withState", anyContext, Arb.agentState(sizes).map((s) => [(c) => HookContext.withState(c, s), HookContext.withState(s)] as const)],
      ["updateState", anyContext, recipe.map((r) => [(c) => HookContext.updateState(c, r), HookContext.updateState(r)] as const)],
      [
        "withRequest",
        inferenceContext,
        requestInput.map((r) => [(c) => HookContext.withRequest(c, r), HookContext.withRequest(r)] as const),
      ],
      [
        "withResponse",
        inferenceContext,
        Arb.inferenceResponse().map((r) => [(c) => HookContext.withResponse(c, r), HookContext.withResponse(r)] as const),
      ],
      ["withToolCall", toolContext, Arb.toolCall.map((t) => [(c) => HookContext.withToolCall(c, t), HookContext.withToolCall(t)] as const)],
      [
        "withToolArguments",
        toolContext,
        Arb.json.map((a) => [(c) => HookContext.withToolArguments(c, a), HookContext.withToolArguments(a)] as const),
      ],
      [
        "withToolExecution",
        toolContext,
        Arb.toolExecution.map((e) => [(c) => HookContext.withToolExecution(c, e), HookContext.withToolExecution(e)] as const),
      ],
      ["withToolResult", toolContext, Arb.json.map((o) => [(c) => HookContext.withToolResult(c, o), HookContext.withToolResult(o)] as const)],
      [
        "withToolExecutionBlocked",
        toolContext,
        text.map((r) => [(c) => HookContext.withToolExecutionBlocked(c, r), HookContext.withToolExecutionBlocked(r)] as const),
      ],
      [
        "withStopSignal",
        anyContext,
        Arb.stopSignal.map((s) => [(c) => HookContext.withStopSignal(c, s), HookContext.withStopSignal(s)] as const),
      ],
      [
        "requestContinuation",
        onStopContext,
        fc.option(text, { nil: undefined })
          .map((m) => [(c) => HookContext.requestContinuation(c, m), HookContext.requestContinuation(m)] as const),
      ],
      ["withMetadata", anyContext, Arb.metadata.map((m) => [(c) => HookContext.withMetadata(c, m), HookContext.withMetadata(m)] as const)],
      [
        "withErrors",
        onErrorContext,
        fc.array(Arb.agentError, { maxLength: 2 }).map((e) => [(c) => HookContext.withErrors(c, e), HookContext.withErrors(e)] as const),
      ],
    ]

    it.each(forms)("%s gives equal results data-first and data-last", (_name, context, pair) => {
      fc.assert(
        fc.property(context, pair, (ctx, [first, last]) => {
          expect(pipe(ctx, last)).toEqual(first(ctx))
        }),
      )
    })
  })
})
