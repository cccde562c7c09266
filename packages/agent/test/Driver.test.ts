import { Effect, Exit, Fiber, Stream } from "effect"
import { describe, expect, it } from "vitest"
import { AgentError, InferenceRequest, InferenceResponse, Message, ToolCall } from "@hookline/core"
import { Driver } from "@hookline/agent"

const request = InferenceRequest.make({ messages: [Message.user("hi")] })
const call = ToolCall.make({ id: "c1", name: "add", arguments: { a: 1 } })
const response = InferenceResponse.make({ text: "hello", toolCalls: [call], modelId: "m" })
const options = { signal: new AbortController().signal }

describe("Driver", () => {
  describe("make", () => {
    it("derives the stream from generate: the text, each tool call, then the response", async () => {
      const driver = Driver.make({ generate: () => Effect.succeed(response) })
      const parts = await Effect.runPromise(Stream.runCollect(driver.stream(request, options)))
      expect(parts).toEqual([
        { _tag: "TextDelta", text: "hello" },
        { _tag: "ToolCall", toolCall: call },
        { _tag: "Finish", response },
      ])
    })

    it("derives generate from the stream's Finish", async () => {
      const driver = Driver.make({
        stream: () =>
          Stream.make({ _tag: "TextDelta" as const, text: "hel" }, { _tag: "TextDelta" as const, text: "lo" }, { _tag: "Finish" as const, response }),
      })
      expect(await Effect.runPromise(driver.generate(request, options))).toEqual(response)
    })

    it("fails with InferenceFailed when a stream ends without a response", async () => {
      const driver = Driver.make({ stream: () => Stream.make({ _tag: "TextDelta" as const, text: "cut" }) })
      const error = await Effect.runPromise(Effect.flip(driver.generate(request, options)))
      expect(error).toMatchObject({ _tag: "InferenceFailed", message: "the model's stream ended without a response" })
    })
  })

  describe("fromPromise", () => {
    it("lifts an async generate that returns the fields of a response", async () => {
      const seen: Array<number> = []
      const driver = Driver.fromPromise({
        generate: async (req) => {
          seen.push(req.messages.length)
          return { text: "ok", usage: { inputTokens: 3, outputTokens: 1 } }
        },
      })
      const out = await Effect.runPromise(driver.generate(request, options))
      expect(out).toEqual(InferenceResponse.make({ text: "ok", usage: { inputTokens: 3, outputTokens: 1 } }))
      expect(Object.isFrozen(out)).toBe(true)
      expect(seen).toEqual([1])
    })

    it("turns a rejection into InferenceFailed, keeping one that already is", async () => {
      const plain = Driver.fromPromise({ generate: () => Promise.reject(new Error("503 overloaded")) })
      expect(await Effect.runPromise(Effect.flip(plain.generate(request, options)))).toMatchObject({
        _tag: "InferenceFailed",
        message: "503 overloaded",
      })
      const typed = AgentError.inferenceFailed("rate limited", { status: 429, retryable: true })
      const passing = Driver.fromPromise({ generate: () => Promise.reject(typed) })
      expect(await Effect.runPromise(Effect.flip(passing.generate(request, options)))).toBe(typed)
    })

    it("lifts an async iterable stream", async () => {
      const driver = Driver.fromPromise({
        stream: async function*() {
          yield { _tag: "TextDelta" as const, text: "hello" }
          yield { _tag: "Finish" as const, response }
        },
      })
      const parts = await Effect.runPromise(Stream.runCollect(driver.stream(request, options)))
      expect(parts.map((p) => p._tag)).toEqual(["TextDelta", "Finish"])
      expect(await Effect.runPromise(driver.generate(request, options))).toEqual(response)
    })

    it("aborts the signal it gave the promise when the call is interrupted", async () => {
      let aborted = false
      const driver = Driver.fromPromise({
        generate: (_req, { signal }) =>
          new Promise((_resolve, reject) => {
            signal.addEventListener("abort", () => {
              aborted = true
              reject(new Error("aborted"))
            })
          }),
      })
      const exit = await Effect.runPromise(
        Effect.gen(function*() {
          const fiber = yield* Effect.forkChild(driver.generate(request, options), { startImmediately: true })
          yield* Effect.yieldNow
          yield* Fiber.interrupt(fiber)
          return yield* Fiber.await(fiber)
        }),
      )
      expect(Exit.hasInterrupts(exit)).toBe(true)
      expect(aborted).toBe(true)
    })

    it("aborts when the run's signal aborts", async () => {
      const controller = new AbortController()
      const driver = Driver.fromPromise({
        generate: (_req, { signal }) => new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(new Error("stopped")))),
      })
      const pending = Effect.runPromise(Effect.flip(driver.generate(request, { signal: controller.signal })))
      controller.abort()
      expect(await pending).toMatchObject({ _tag: "InferenceFailed", message: "stopped" })
    })

    it("checks its answer once, where the Promise settles: generateChecked gives that answer as it is", async () => {
      const driver = Driver.fromPromise({ generate: async () => ({ text: "ok" }) })
      const direct = await Effect.runPromise(driver.generate(request, options))
      const checked = await Effect.runPromise(Driver.generateChecked(driver, request, options))
      expect(checked).toEqual(direct)
      expect(Object.isFrozen(checked)).toBe(true)
    })

    it("needs generate or stream", () => {
      expect(() => Driver.fromPromise({})).toThrow(AgentError.HooklineError)
    })
  })

  describe("generateChecked", () => {
    it("fails with InferenceFailed, naming it, for a generate that is not a function", async () => {
      const driver = { generate: undefined, stream: () => Stream.empty } as unknown as Driver.DriverShape
      const error = await Effect.runPromise(Effect.flip(Driver.generateChecked(driver, request, options)))
      expect(error).toMatchObject({ _tag: "InferenceFailed", message: "the driver's generate is not a function" })
    })


    it("calls generate on its driver (a driver's method may read its own fields)", async () => {
      const driver = {
        answer: response,
        generate(this: { readonly answer: InferenceResponse }) {
          return Effect.succeed(this.answer)
        },
        stream: () => Stream.empty,
      }
      expect(await Effect.runPromise(Driver.generateChecked(driver as unknown as Driver.DriverShape, request, options))).toBe(response)
    })
  })
})
