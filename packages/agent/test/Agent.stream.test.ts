import { Effect, Stream } from "effect"
import { describe, expect, it } from "vitest"
import { HookStack, InferenceResponse, ToolCall, WrapHook, type AgentState, type HookExecuted, type Interceptor } from "@hookline/core"
import { AgentBuilder, AgentEvent, AgentLoop, Driver, UseDriver, UseInterceptor, UseLoopOptions, UseTools } from "@hookline/agent"
import { add } from "./support.js"

// The Promise facade's iterables (internal/fiberIterable.ts) and the streamed run of a
// driver whose stream is derived from generate (internal/derivedStream.ts).

const answers = [
  InferenceResponse.make({ text: "Let me add.", toolCalls: [ToolCall.make({ id: "c1", name: "add", arguments: { a: 2, b: 2 } })] }),
  InferenceResponse.make({ text: "It is 4." }),
]
const answer = (messages: number) => answers[(messages - 1) >> 1] as InferenceResponse

// The same answers through generate only, and through a stream written out by hand.
const generateOnly = () => Driver.make({ generate: (request) => Effect.succeed(answer(request.messages.length)) })
const handStream = () =>
  Driver.make({
    stream: (request) => {
      const response = answer(request.messages.length)
      return Stream.fromIterable<Driver.StreamPart>([
        ...(response.text === "" ? [] : [{ _tag: "TextDelta" as const, text: response.text }]),
        ...response.toolCalls.map((toolCall) => ({ _tag: "ToolCall" as const, toolCall })),
        { _tag: "Finish", response },
      ])
    },
  })

// The events without times (HookExecuted carries clock readings).
const shapeOf = (events: ReadonlyArray<AgentEvent>) =>
  events.map((e) =>
    e._tag === "HookExecuted"
      ? `hook:${(e.event as HookExecuted.HookExecuted).hook}`
      : e._tag === "TextDelta"
      ? `text:${e.step}:${e.text}`
      : e._tag === "ToolCallRequested"
      ? `call:${e.toolCall.id}`
      : e._tag === "ToolResult"
      ? `result:${e.execution.status}`
      : e._tag
  )

const collect = async <A>(iterable: AsyncIterable<A>): Promise<Array<A>> => {
  const out: Array<A> = []
  for await (const a of iterable) out.push(a)
  return out
}

describe("Agent", () => {
  describe("stream", () => {
    for (const textDeltas of ["live", "checked"] as const) {
      it(`gives a generate-only driver the events of the same answers streamed (${textDeltas})`, async () => {
        const agentOf = (driver: Driver.DriverShape) => AgentBuilder.make(UseDriver(driver), UseTools([add]), UseLoopOptions({ textDeltas }))
        const derived = await collect(agentOf(generateOnly()).stream("What is 2+2?"))
        const written = await collect(agentOf(handStream()).stream("What is 2+2?"))
        expect(shapeOf(derived)).toEqual(shapeOf(written))
        expect(shapeOf(derived).filter((s) => s.startsWith("text:"))).toEqual(["text:0:Let me add.", "text:1:It is 4."])
      })
    }

    it("gives AgentLoop.stream's events, in order", async () => {
      const driver = generateOnly()
      const agent = AgentBuilder.make(UseDriver(driver), UseTools([add]))
      const viaStream = await Effect.runPromise(
        Stream.runCollect(AgentLoop.stream(agent.loop, "What is 2+2?", { hookEvents: true })).pipe(Effect.provideService(Driver.Driver, driver)),
      )
      expect(shapeOf(await collect(agent.stream("What is 2+2?", { hookEvents: true })))).toEqual(shapeOf(viaStream))
    })

    it("starts a run of its own for each iteration, and stays done after the end", async () => {
      const iterable = AgentBuilder.make(UseDriver(generateOnly()), UseTools([add])).stream("What is 2+2?")
      const first = await collect(iterable)
      const second = await collect(iterable)
      expect(shapeOf(second)).toEqual(shapeOf(first))
      expect(first.at(-1)?._tag).toBe("RunEnded")
      const iterator = iterable[Symbol.asyncIterator]()
      while (!(await iterator.next()).done) {
        // drain
      }
      expect(await iterator.next()).toEqual({ done: true, value: undefined })
    })

    it("rejects the iteration with the defect when the run dies", async () => {
      // A driver's defect is the model call's failure (checked at the boundary), so is a
      // custom interceptor's (its HookFailed); a programmer error core raises is a defect
      // of the run itself: a custom interceptor running a stack whose wrap hooks the loop
      // cannot see.
      const stack = HookStack.withWrap(HookStack.empty, WrapHook.inference((ctx, next) => next(ctx)), { name: "unseen" })
      const dying: Interceptor = { intercept: (ctx) => stack.intercept(ctx) }
      const agent = AgentBuilder.make(UseDriver(generateOnly()), UseInterceptor(dying))
      await expect(collect(agent.stream("hi"))).rejects.toThrow("Interceptor.around")
      await expect(collect(agent.iterate("hi"))).rejects.toThrow("Interceptor.around")
    })

    it("ends the run failed, not the iteration, when the driver dies", async () => {
      const dying = Driver.make({ generate: () => Effect.die(new Error("driver bug")) })
      const states = await collect(AgentBuilder.make(UseDriver(dying)).iterate("hi"))
      const final = states.at(-1) as AgentState
      expect(final.execution.status).toBe("failed")
      expect(final.execution.errors[0]).toMatchObject({ _tag: "InferenceFailed", message: expect.stringContaining("driver bug") })
    })
  })
})
