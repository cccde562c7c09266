// The built-ins that edit the history a model reads (PiiRedaction edits a result before
// it is committed, never the history) never put a message between an
// assistant's tool calls and their results: the dispatcher's check (core's
// contextCheck.ts) would refuse their return with HookFailed. Property tests over
// histories as a loop writes them, the last round possibly still open.
import fc from "fast-check"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { AgentState, HookContext, HookStack, InferenceRequest, InferenceResponse, Message, ToolCall, type Hook, type HookTrigger } from "@hookline/core"
import { Driver } from "@hookline/agent"
import { ClearToolResults, SlidingWindow, Summarization } from "@hookline/middleware"

const call = (id: string) => ToolCall.make({ id, name: "lookup", arguments: { q: id } })
const result = (id: string) => Message.tool({ toolCallId: id, toolName: "lookup", content: `result of ${id}: mail bob@example.com` })

const turn: fc.Arbitrary<number | ReadonlyArray<Message>> = fc.oneof(
  fc.constant([Message.user("question")]),
  fc.constant([Message.assistant("an answer")]),
  fc.integer({ min: 1, max: 3 }),
  fc.constant([Message.system("a note")]),
)

// Whole rounds, then maybe one round whose results are still to come (mid-step).
const history = fc.tuple(fc.array(turn, { maxLength: 14 }), fc.option(fc.tuple(fc.integer({ min: 1, max: 3 }), fc.nat(2)), { nil: undefined }))
  .map(([turns, open]) => {
    let next = 0
    const round = (calls: number, answered: number): ReadonlyArray<Message> => {
      const ids = Array.from({ length: calls }, () => `call_${next++}`)
      return [Message.assistant("", ids.map(call)), ...ids.slice(0, answered).map(result)]
    }
    const messages = turns.flatMap((t) => (typeof t === "number" ? round(t, t) : t))
    return open === undefined ? messages : [...messages, ...round(open[0], Math.min(open[1], open[0] - 1))]
  })

const contextAt = (trigger: HookTrigger, messages: ReadonlyArray<Message>): HookContext => {
  const state = AgentState.make({ id: "r", messages })
  const request = trigger === "BeforeInference" ? InferenceRequest.make({ systemPrompt: "Be brief.", messages: state.context.messages }) : undefined
  return HookContext.make({ trigger, state, createdAt: 0, request })
}

const stackOf = (hook: Hook.AnyHook<unknown, never>, trigger: HookTrigger, name: string) =>
  HookStack.with(HookStack.empty, hook, { triggers: trigger, name })

const summarizer = Driver.make({ generate: () => Effect.succeed(InferenceResponse.make({ text: "the story so far" })) })

const pure: ReadonlyArray<readonly [string, Hook, HookTrigger]> = [
  ["SlidingWindow(1)", SlidingWindow.make({ maxMessages: 1 }), "BeforeInference"],
  ["SlidingWindow(4)", SlidingWindow.make({ maxMessages: 4 }), "BeforeInference"],
  ["ClearToolResults(keep 0)", ClearToolResults.make({ keep: 0 }), "BeforeInference"],
  ["ClearToolResults(keep 2)", ClearToolResults.make({ keep: 2 }), "BeforeInference"],
]

describe("the built-ins that edit the history", () => {
  it.each(pure)("%s never splits a tool round: the dispatcher accepts every return", (name, hook, trigger) => {
    fc.assert(
      fc.property(history, (messages) => {
        // HookStack.run throws HookFailed for a return the check refuses.
        const out = HookStack.run(stackOf(hook, trigger, name), contextAt(trigger, messages))
        expect(out.trigger).toBe(trigger)
      }),
      { numRuns: 300 },
    )
  })

  it("Summarization never splits a tool round, whether it summarizes or not", async () => {
    await fc.assert(
      fc.asyncProperty(history, fc.integer({ min: 1, max: 60 }), fc.nat(4), async (messages, maxTokens, keep) => {
        const hook = Summarization.make({ driver: summarizer, maxTokens, keep })
        const out = await Effect.runPromise(HookStack.intercept(stackOf(hook, "BeforeInference", "summarization"), contextAt("BeforeInference", messages)))
        expect(out.request).toBeDefined()
      }),
      { numRuns: 200 },
    )
  })

  it("would be refused if it did split one (the check these properties rely on)", () => {
    const splitting: Hook = (ctx) =>
      HookContext.withRequest(ctx, InferenceRequest.make({ ...ctx.request!, messages: [Message.assistant("", [call("x")]), Message.user("in the way"), result("x")] }))
    expect(() => HookStack.run(stackOf(splitting, "BeforeInference", "splitter"), contextAt("BeforeInference", [Message.user("q")]))).toThrow(/request\.messages\[1\]: a user message comes between/)
  })
})
