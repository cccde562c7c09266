// The model's reasoning (InferenceResponse.reasoning, issue 25): checked where the
// driver's answer enters, streamed as ReasoningDelta events like the text, held back with
// checked text, dropped by TextReset with the text, and kept in the step's record.
import { Effect, Stream } from "effect"
import { TestClock } from "effect/testing"
import { describe, expect, it } from "vitest"
import { AgentError, Codecs, HookContext, HookStack, InferenceResponse, WrapHook, type Hook } from "@hookline/core"
import { type AgentEvent, AgentLoop, Driver } from "@hookline/agent"
import { ScriptedDriver } from "@hookline/testing"
import { stackOf } from "./support.js"

const provide = <A, E>(effect: Effect.Effect<A, E, Driver.Driver>, driver: Driver.DriverShape) =>
  Effect.runPromise(effect.pipe(Effect.provideService(Driver.Driver, driver), Effect.provide(TestClock.layer())))

// The text and reasoning events of a stream, in order.
const spoken = (events: ReadonlyArray<AgentEvent>) =>
  events.flatMap((e) =>
    e._tag === "ReasoningDelta" ? [`think:${e.step}:${e.text}`] : e._tag === "TextDelta" ? [`say:${e.step}:${e.text}`] : e._tag === "TextReset" ? ["reset"] : []
  )

const thinking = () =>
  ScriptedDriver.make([ScriptedDriver.text("It is 4.", { reasoning: "2 + 2 = 4", reasoningChunks: ["2 + 2", " = 4"], chunks: ["It is ", "4."] })])

describe("reasoning", () => {
  describe("the step's record", () => {
    it("keeps the reasoning in the step's response, through the state's codec, and not in the assistant message", async () => {
      const final = await provide(AgentLoop.run(AgentLoop.make({}), "What is 2+2?"), thinking())
      const response = final.execution.steps.at(0)?.response
      expect(response?.reasoning).toBe("2 + 2 = 4")
      expect(final.context.messages.at(-1)).toMatchObject({ role: "assistant", content: "It is 4." })
      expect(JSON.stringify(final.context.messages)).not.toContain("2 + 2 = 4")
      const reloaded = Codecs.parseStateUnsafe(Codecs.stringifyState(final))
      expect(reloaded.execution.steps.at(0)?.response?.reasoning).toBe("2 + 2 = 4")
    })

    it("leaves a response without reasoning without the key", async () => {
      const final = await provide(AgentLoop.run(AgentLoop.make({}), "hi"), ScriptedDriver.make([ScriptedDriver.text("hello")]))
      expect("reasoning" in (final.execution.steps.at(0)?.response ?? {})).toBe(false)
    })
  })

  describe("stream", () => {
    it("emits each reasoning delta the driver streams, before the text, joined to the response's reasoning", async () => {
      const events = await provide(Stream.runCollect(AgentLoop.stream(AgentLoop.make({ textDeltas: "live" }), "What is 2+2?")), thinking())
      expect(spoken(events)).toEqual(["think:0:2 + 2", "think:0: = 4", "say:0:It is ", "say:0:4."])
    })

    it("emits the reasoning of a stream derived from generate as one delta", async () => {
      const driver = Driver.make({ generate: () => Effect.succeed(InferenceResponse.make({ text: "4", reasoning: "adding" })) })
      const events = await provide(Stream.runCollect(AgentLoop.stream(AgentLoop.make({}), "q")), driver)
      expect(spoken(events)).toEqual(["think:0:adding", "say:0:4"])
    })

    it("emits the reasoning of a Finish when the stream gave no reasoning delta", async () => {
      const driver = Driver.make({
        stream: () => Stream.make({ _tag: "Finish" as const, response: InferenceResponse.make({ text: "4", reasoning: "adding" }) }),
      })
      const events = await provide(Stream.runCollect(AgentLoop.stream(AgentLoop.make({}), "q")), driver)
      expect(spoken(events)).toEqual(["think:0:adding", "say:0:4"])
    })

    it("holds the reasoning back with checked text, and emits what the AfterInference hooks let through", async () => {
      const hide: Hook = (ctx) =>
        ctx.response === undefined ? ctx : HookContext.withResponse(ctx, InferenceResponse.make({ ...ctx.response, reasoning: "[hidden]" }))
      const loop = AgentLoop.make({ interceptor: stackOf([hide, { triggers: "AfterInference", name: "hide" }]) })
      const events = await provide(Stream.runCollect(AgentLoop.stream(loop, "What is 2+2?")), thinking())
      expect(spoken(events)).toEqual(["think:0:[hidden]", "say:0:It is 4."])
      const ended = events.at(-1)
      expect(ended?._tag === "RunEnded" && ended.state.execution.steps.at(0)?.response?.reasoning).toBe("[hidden]")
    })

    it("drops the reasoning of a failed attempt with TextReset, then streams the retry's", async () => {
      let call = 0
      const driver = Driver.make({
        stream: () =>
          call++ === 0
            ? Stream.concat(Stream.make({ _tag: "ReasoningDelta" as const, text: "hm" }), Stream.fail(AgentError.inferenceFailed("cut", { retryable: true })))
            : Stream.make(
              { _tag: "ReasoningDelta" as const, text: "ok" },
              { _tag: "Finish" as const, response: InferenceResponse.make({ text: "done", reasoning: "ok" }) },
            ),
      })
      const retry = WrapHook.inference((ctx, next) => Effect.catch(next(ctx), () => next(ctx)))
      const loop = AgentLoop.make({ interceptor: HookStack.withWrap(HookStack.empty, retry, { name: "retry" }) })
      const events = await provide(Stream.runCollect(AgentLoop.stream(loop, "q")), driver)
      expect(spoken(events)).toEqual(["think:0:hm", "reset", "think:0:ok", "say:0:done"])
    })
  })

  describe("the driver's answer", () => {
    const failureOf = async (driver: Driver.DriverShape, streaming: boolean) => {
      const loop = AgentLoop.make({})
      const final = streaming
        ? (await provide(Stream.runCollect(AgentLoop.stream(loop, "q")), driver)).flatMap((e) => (e._tag === "RunEnded" ? [e.state] : []))[0]
        : await provide(AgentLoop.run(loop, "q"), driver)
      expect(final?.execution.status).toBe("failed")
      return final?.execution.errors[0]
    }
    const answer = { text: "4", toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, finishReason: "stop", modelId: "m", metadata: {} }

    it("refuses reasoning that is not a string: InferenceFailed naming it", async () => {
      const driver = Driver.make({ generate: () => Effect.succeed({ ...answer, reasoning: 42 } as unknown as InferenceResponse.InferenceResponse) })
      const error = await failureOf(driver, false)
      expect(error).toMatchObject({ _tag: "InferenceFailed" })
      expect(error?.message).toContain("at reasoning: expected a string or nothing, got number 42")
    })

    it("refuses a reasoning delta that is not a string, and deltas that are not the Finish's reasoning", async () => {
      const bad = Driver.make({ stream: () => Stream.make({ _tag: "ReasoningDelta", text: null } as unknown as Driver.StreamPart) })
      expect((await failureOf(bad, true))?.message).toContain("at parts[0].text: expected a string")
      const disagree = Driver.make({
        stream: () =>
          Stream.make(
            { _tag: "ReasoningDelta" as const, text: "a" },
            { _tag: "Finish" as const, response: InferenceResponse.make({ text: "4", reasoning: "b" }) },
          ),
      })
      expect((await failureOf(disagree, true))?.message).toContain("its reasoning deltas (1 characters) are not the reasoning of its Finish (1 characters)")
    })
  })
})
