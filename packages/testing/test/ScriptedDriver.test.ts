import { AgentLoop, Driver } from "@hookline/agent"
import { AgentError, HookStack, InferenceRequest, InferenceResponse, Message, WrapHook } from "@hookline/core"
import { ScriptedDriver } from "@hookline/testing"
import { Cause, Effect, Exit, Fiber, Stream } from "effect"
import { TestClock } from "effect/testing"
import { describe, expect, it } from "vitest"

const request = InferenceRequest.make({ messages: [Message.user("hi")] })
const ask = (content: string) => InferenceRequest.make({ messages: [Message.user(content)] })
const options = (): Driver.CallOptions => ({ signal: new AbortController().signal })

const generate = (driver: ScriptedDriver, req = request) => Effect.runPromise(driver.generate(req, options()))
const failureOf = (driver: ScriptedDriver, req = request) => Effect.runPromise(Effect.flip(driver.generate(req, options())))
const collect = (driver: ScriptedDriver, req = request) => Effect.runPromise(Stream.runCollect(driver.stream(req, options())))

const thrown = (f: () => unknown): AgentError.HooklineError => {
  try {
    f()
  } catch (error) {
    if (error instanceof AgentError.HooklineError) return error
    throw error
  }
  throw new Error("expected a HooklineError, nothing was thrown")
}
const pathOf = (error: AgentError.HooklineError) => (error.error as AgentError.InvalidConfiguration).path

describe("ScriptedDriver", () => {
  describe("make", () => {
    it("answers in order, one entry per call", async () => {
      const driver = ScriptedDriver.make([
        ScriptedDriver.toolCalls([{ name: "add", arguments: { a: 2, b: 2 } }]),
        ScriptedDriver.text("4"),
      ])
      const first = await generate(driver)
      const second = await generate(driver)
      expect(first.toolCalls.map((c) => c.name)).toEqual(["add"])
      expect(first.finishReason).toBe("tool-calls")
      expect(second.text).toBe("4")
      expect(second.toolCalls).toEqual([])
      expect(second.finishReason).toBe("stop")
    })

    it("returns frozen responses with the default model id and zero usage", async () => {
      const response = await generate(ScriptedDriver.make([ScriptedDriver.text("ok")]))
      expect(response).toEqual(InferenceResponse.make({ text: "ok", modelId: "scripted", finishReason: "stop" }))
      expect(Object.isFrozen(response)).toBe(true)
      expect(response.usage).toEqual({ inputTokens: 0, outputTokens: 0 })
    })

    it("uses the default model id and usage of its options unless a turn states its own", async () => {
      const driver = ScriptedDriver.make([
        ScriptedDriver.text("a"),
        ScriptedDriver.text("b", { modelId: "m2", usage: { inputTokens: 7, outputTokens: 1 }, finishReason: "length" }),
      ], { modelId: "m1", usage: { inputTokens: 3, outputTokens: 2 } })
      const a = await generate(driver)
      const b = await generate(driver)
      expect([a.modelId, a.usage]).toEqual(["m1", { inputTokens: 3, outputTokens: 2 }])
      expect([b.modelId, b.usage, b.finishReason]).toEqual(["m2", { inputTokens: 7, outputTokens: 1 }, "length"])
    })

    it("consumes an entry when the call runs, not when its effect is made", async () => {
      const driver = ScriptedDriver.make([ScriptedDriver.text("a"), ScriptedDriver.text("b")])
      const later = driver.generate(ask("later"), options())
      expect(driver.remaining).toBe(2)
      expect(driver.requests).toEqual([])
      expect((await generate(driver, ask("now"))).text).toBe("a")
      expect((await Effect.runPromise(later)).text).toBe("b")
      expect(driver.remaining).toBe(0)
    })

    it("keeps each driver's cursor to itself", async () => {
      const script = [ScriptedDriver.text("a"), ScriptedDriver.text("b")]
      const one = ScriptedDriver.make(script)
      const two = ScriptedDriver.make(script)
      await generate(one)
      expect((await generate(two)).text).toBe("a")
      expect([one.remaining, two.remaining]).toEqual([1, 1])
    })

    it("fails with a message that says the script is exhausted", async () => {
      const driver = ScriptedDriver.make([ScriptedDriver.text("a"), ScriptedDriver.text("b")])
      await generate(driver)
      await generate(driver)
      const error = await failureOf(driver)
      expect(error._tag).toBe("InferenceFailed")
      expect(error.message).toContain("the script is exhausted after 2 calls")
      const streamed = await Effect.runPromise(Effect.flip(Stream.runCollect(driver.stream(request, options()))))
      expect(streamed.message).toContain("exhausted")
      expect(driver.requests).toHaveLength(4)
    })

    it("repeats the last entry when repeatLast is set", async () => {
      const driver = ScriptedDriver.make([ScriptedDriver.text("a"), ScriptedDriver.text("again")], { repeatLast: true })
      const texts = []
      for (let i = 0; i < 4; i++) texts.push((await generate(driver)).text)
      expect(texts).toEqual(["a", "again", "again", "again"])
      expect(driver.remaining).toBe(0)
    })

    it("throws with the path of an entry that is not a turn", () => {
      const error = thrown(() =>
        ScriptedDriver.make([ScriptedDriver.text("a"), { _tag: "Text", text: "forged" } as unknown as ScriptedDriver.Turn])
      )
      expect(error._tag).toBe("InvalidConfiguration")
      expect(pathOf(error)).toBe("script[1]")
      expect(error.message).toContain("script[1]")
    })

    it("throws with the path of a tool call without a name", () => {
      const error = thrown(() =>
        ScriptedDriver.make([ScriptedDriver.toolCalls([{ name: "ok" }, { name: "" }])])
      )
      expect(pathOf(error)).toBe("script[0].calls[1].name")
    })

    it("throws with the path inside a delayed turn", () => {
      const error = thrown(() =>
        ScriptedDriver.make([ScriptedDriver.text("a"), ScriptedDriver.delay("1 second", ScriptedDriver.toolCalls([{ name: "" }]))])
      )
      expect(pathOf(error)).toBe("script[1].turn.calls[0].name")
    })

    it("rejects chunks that do not add up to the text", () => {
      const error = thrown(() =>
        ScriptedDriver.make([ScriptedDriver.text("a"), ScriptedDriver.text("Hello", { chunks: ["He", "lo"] })])
      )
      expect(error._tag).toBe("InvalidConfiguration")
      expect(pathOf(error)).toBe("script[1].chunks")
    })

    it("rejects reasoning that is not a string, and reasoning chunks that do not add up to it", () => {
      expect(pathOf(thrown(() => ScriptedDriver.make([ScriptedDriver.text("a", { reasoning: 4 as unknown as string })])))).toBe("script[0].reasoning")
      expect(pathOf(thrown(() => ScriptedDriver.make([ScriptedDriver.text("a", { reasoning: "abc", reasoningChunks: ["a", "c"] })]))))
        .toBe("script[0].reasoningChunks")
    })

    it("answers with the scripted reasoning, streamed before the text as one delta or as its chunks", async () => {
      expect((await generate(ScriptedDriver.make([ScriptedDriver.text("4", { reasoning: "2 + 2" })]))).reasoning).toBe("2 + 2")
      const whole = await collect(ScriptedDriver.make([ScriptedDriver.text("4", { reasoning: "2 + 2" })]))
      expect(whole.map((p) => p._tag)).toEqual(["ReasoningDelta", "TextDelta", "Finish"])
      const chunked = await collect(ScriptedDriver.make([ScriptedDriver.toolCalls([{ name: "add" }], { reasoning: "ab", reasoningChunks: ["a", "b"] })]))
      expect(chunked.flatMap((p) => (p._tag === "ReasoningDelta" ? [p.text] : []))).toEqual(["a", "b"])
      expect(chunked.at(-1)).toMatchObject({ _tag: "Finish", response: { reasoning: "ab" } })
    })
  })

  describe("requests", () => {
    it("records every request in order, a failing call's too, frozen", async () => {
      const driver = ScriptedDriver.make([ScriptedDriver.text("a"), ScriptedDriver.failure("down"), ScriptedDriver.text("c")])
      const one = ask("one")
      await generate(driver, one)
      await failureOf(driver, ask("two"))
      await collect(driver, ask("three"))
      expect(driver.requests.map((r) => r.messages.at(0)?.content)).toEqual(["one", "two", "three"])
      expect(driver.requests[0]).toBe(one)
      expect(Object.isFrozen(driver.requests)).toBe(true)
    })
  })

  describe("toolCalls", () => {
    it("numbers tool calls without an id from call_1, across calls, and keeps given ids", async () => {
      const driver = ScriptedDriver.make([
        ScriptedDriver.toolCalls([{ name: "a" }, { name: "b", id: "mine" }]),
        ScriptedDriver.toolCalls([{ name: "c" }]),
      ])
      const first = await generate(driver)
      const second = await generate(driver)
      expect([...first.toolCalls, ...second.toolCalls].map((c) => c.id)).toEqual(["call_1", "mine", "call_3"])
    })

    it("passes arguments as given, a string for malformed arguments included, and defaults them to {}", async () => {
      const driver = ScriptedDriver.make([
        ScriptedDriver.toolCalls([{ name: "add", arguments: { a: 2, b: 2 } }, { name: "bad", arguments: "{not json" }, { name: "none" }], {
          text: "calling",
        }),
      ])
      const response = await generate(driver)
      expect(response.toolCalls.map((c) => c.arguments)).toEqual([{ a: 2, b: 2 }, "{not json", {}])
      expect(response.text).toBe("calling")
      expect(Object.isFrozen(response.toolCalls[0]?.arguments)).toBe(true)
    })
  })

  describe("stream", () => {
    it("yields the chunks, then a Finish with the response generate gives", async () => {
      const turn = ScriptedDriver.text("Hello world", { chunks: ["Hel", "lo ", "world"] })
      const parts = await collect(ScriptedDriver.make([turn]))
      const response = await generate(ScriptedDriver.make([turn]))
      expect(parts).toEqual([
        { _tag: "TextDelta", text: "Hel" },
        { _tag: "TextDelta", text: "lo " },
        { _tag: "TextDelta", text: "world" },
        { _tag: "Finish", response },
      ])
    })

    it("yields the text in one delta without chunks, then a part per tool call", async () => {
      const driver = ScriptedDriver.make([
        ScriptedDriver.toolCalls([{ name: "a" }, { name: "b" }], { text: "thinking" }),
      ])
      const parts = await collect(driver)
      expect(parts.map((p) => p._tag)).toEqual(["TextDelta", "ToolCall", "ToolCall", "Finish"])
      expect(parts[0]).toEqual({ _tag: "TextDelta", text: "thinking" })
      const finish = parts[3]
      expect(finish?._tag === "Finish" && finish.response.toolCalls.map((c) => c.id)).toEqual(["call_1", "call_2"])
    })

    it("consumes the same script as generate", async () => {
      const driver = ScriptedDriver.make([ScriptedDriver.text("a"), ScriptedDriver.text("b")])
      await collect(driver)
      expect((await generate(driver)).text).toBe("b")
    })
  })

  describe("failure", () => {
    it("fails the call with InferenceFailed carrying status and retryable", async () => {
      const driver = ScriptedDriver.make([ScriptedDriver.failure("rate limited", { status: 429, retryable: true })])
      expect(await failureOf(driver)).toEqual({ _tag: "InferenceFailed", message: "rate limited", status: 429, retryable: true })
    })

    it("takes the message of an Error and defaults to not retryable", async () => {
      const driver = ScriptedDriver.make([ScriptedDriver.failure(new Error("boom"))])
      expect(await failureOf(driver)).toEqual({ _tag: "InferenceFailed", message: "boom", status: undefined, retryable: false })
    })

    it("names its model on the driver, so a failed attempt records which model failed", async () => {
      const retryOnce = WrapHook.inference((ctx, next) => Effect.catch(next(ctx), () => next(ctx)))
      const loop = AgentLoop.make({ interceptor: HookStack.withWrap(HookStack.empty, retryOnce) })
      for (const [driver, id] of [
        [ScriptedDriver.make([ScriptedDriver.failure("busy"), ScriptedDriver.text("ok")]), "scripted"],
        [ScriptedDriver.make([ScriptedDriver.failure("busy"), ScriptedDriver.text("ok")], { modelId: "m1" }), "m1"],
      ] as const) {
        expect(driver.modelId).toBe(id)
        // Through its layer as well as given as the service.
        const final = await Effect.runPromise(AgentLoop.run(loop, "hi").pipe(Effect.provide(driver.layer)))
        expect(final.execution.steps.at(0)?.attempts?.map((a) => [a.modelId, a.error?.message])).toEqual([[id, "busy"], [id, undefined]])
      }
    })

    it("fails the stream as well", async () => {
      const driver = ScriptedDriver.make([ScriptedDriver.failure("down", { status: 503 })])
      const error = await Effect.runPromise(Effect.flip(Stream.runCollect(driver.stream(request, options()))))
      expect([error.message, error.status]).toEqual(["down", 503])
    })
  })

  describe("delay", () => {
    it("answers only once the TestClock has moved by the duration", async () => {
      const driver = ScriptedDriver.make([ScriptedDriver.delay("10 seconds", ScriptedDriver.text("late"))])
      const program = Effect.gen(function*() {
        const fiber = yield* Effect.forkChild(driver.generate(request, options()), { startImmediately: true })
        yield* TestClock.adjust("9 seconds")
        const early = fiber.pollUnsafe()
        yield* TestClock.adjust("1 second")
        const response = yield* Fiber.join(fiber)
        return { early, text: response.text }
      })
      expect(await Effect.runPromise(program.pipe(Effect.provide(TestClock.layer())))).toEqual({ early: undefined, text: "late" })
      expect(driver.aborted).toBe(0)
    })

    it("stops waiting and fails when the signal aborts", async () => {
      const driver = ScriptedDriver.make([ScriptedDriver.delay("10 seconds", ScriptedDriver.text("late"))])
      const controller = new AbortController()
      const program = Effect.gen(function*() {
        const fiber = yield* Effect.forkChild(driver.generate(request, { signal: controller.signal }), { startImmediately: true })
        yield* TestClock.adjust("1 second")
        controller.abort()
        return yield* Effect.flip(Fiber.join(fiber))
      })
      const error = await Effect.runPromise(program.pipe(Effect.provide(TestClock.layer())))
      expect(error).toEqual(AgentError.inferenceFailed("the call was aborted"))
      expect(driver.aborted).toBe(1)
    })

    it("fails at once when the signal is already aborted", async () => {
      const driver = ScriptedDriver.make([ScriptedDriver.delay("10 seconds", ScriptedDriver.text("late"))])
      const controller = new AbortController()
      controller.abort()
      const program = Effect.flip(driver.generate(request, { signal: controller.signal }))
      const error = await Effect.runPromise(program.pipe(Effect.provide(TestClock.layer())))
      expect(error.message).toBe("the call was aborted")
      expect([driver.aborted, driver.requests.length]).toEqual([1, 1])
    })
  })

  describe("hang", () => {
    it("never answers until interrupted, and counts the interruption", async () => {
      const driver = ScriptedDriver.make([ScriptedDriver.hang()])
      const program = Effect.gen(function*() {
        const fiber = yield* Effect.forkChild(driver.generate(request, options()), { startImmediately: true })
        yield* TestClock.adjust("1 day")
        const pending = fiber.pollUnsafe()
        yield* Fiber.interrupt(fiber)
        return { pending, exit: yield* Fiber.await(fiber) }
      })
      const { exit, pending } = await Effect.runPromise(program.pipe(Effect.provide(TestClock.layer())))
      expect(pending).toBeUndefined()
      expect(Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause)).toBe(true)
      expect(driver.aborted).toBe(1)
      expect(driver.requests).toHaveLength(1)
    })

    it("ends with InferenceFailed when the signal aborts", async () => {
      const driver = ScriptedDriver.make([ScriptedDriver.hang()])
      const controller = new AbortController()
      const program = Effect.gen(function*() {
        const fiber = yield* Effect.forkChild(Stream.runCollect(driver.stream(request, { signal: controller.signal })), {
          startImmediately: true,
        })
        yield* TestClock.adjust("1 hour")
        controller.abort()
        return yield* Effect.flip(Fiber.join(fiber))
      })
      const error = await Effect.runPromise(program.pipe(Effect.provide(TestClock.layer())))
      expect(error.message).toBe("the call was aborted")
      expect(driver.aborted).toBe(1)
    })
  })

  describe("respond", () => {
    it("computes the turn from the request and the call's index", async () => {
      const echo = ScriptedDriver.respond((req, index) => ScriptedDriver.text(`${index}:${req.messages.at(-1)?.content}`))
      const driver = ScriptedDriver.make([ScriptedDriver.text("first"), echo, echo])
      await generate(driver)
      expect((await generate(driver, ask("ping"))).text).toBe("1:ping")
      expect((await generate(driver, ask("pong"))).text).toBe("2:pong")
    })

    it("dies with the path when the function returns something that is not a turn", async () => {
      const driver = ScriptedDriver.make([ScriptedDriver.respond(() => "oops" as unknown as ScriptedDriver.Turn)])
      const exit = await Effect.runPromiseExit(driver.generate(request, options()))
      const defect = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
      expect(defect).toBeInstanceOf(AgentError.HooklineError)
      expect(pathOf(defect as AgentError.HooklineError)).toBe("script[0].respond(…)")
    })
  })

  describe("layer", () => {
    it("provides the driver as the Driver service", async () => {
      const driver = ScriptedDriver.make([ScriptedDriver.text("via layer")])
      const program = Driver.Driver.use((d) => d.generate(request, options()))
      const response = await Effect.runPromise(program.pipe(Effect.provide(driver.layer)))
      expect(response.text).toBe("via layer")
      expect(driver.requests).toEqual([request])
    })
  })
})
