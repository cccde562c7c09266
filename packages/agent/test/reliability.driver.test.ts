// Issue 12, items 2 and 3: everything a driver answers is checked at the boundary
// (a bad answer is InferenceFailed naming the path, through OnError and AfterExecution
// once), a stream ends at its first Finish with the text it streamed, and arguments
// nested 10,000 levels deep are a ToolArgumentsInvalid the model can correct, on every
// driver path.
import { Effect, Stream } from "effect"
import { describe, expect, it } from "vitest"
import {
  AgentError,
  AgentState,
  Codecs,
  Hook,
  HookContext,
  HookStack,
  HookTriggers,
  InferenceResponse,
  ToolCall,
  type InferenceRequest,
} from "@hookline/core"
import { AgentBuilder, AgentLoop, Driver, Tool, Tools, UseDriver, UseHook, UseTools, type AgentEvent } from "@hookline/agent"
import { add } from "./support.js"

/** An agent over `driver` that counts OnError and AfterExecution, and whose OnError hook sees the errors. */
const agentOver = (driver: Driver.DriverShape, options: { readonly handle?: boolean } = {}) => {
  const seen = { onError: [] as Array<AgentError.AgentError>, afterExecution: 0 }
  const onError = Hook.observe((ctx: HookContext) => void seen.onError.push(...ctx.errors))
  const handle = (ctx: HookContext) => (options.handle === true ? HookContext.markErrorsHandled(ctx) : ctx)
  const agent = AgentBuilder.make(
    UseDriver(driver),
    UseTools([add]),
    UseHook(onError, { triggers: HookTriggers.of("OnError"), name: "test:on_error" }),
    UseHook(handle, { triggers: HookTriggers.of("OnError"), name: "test:handle", priority: -1 }),
    UseHook(Hook.observe(() => void seen.afterExecution++), { triggers: HookTriggers.of("AfterExecution"), name: "test:end" }),
  )
  return { agent, seen }
}

const garbage: ReadonlyArray<readonly [string, unknown, RegExp]> = [
  ["undefined", undefined, /answer is invalid: expected an object, got undefined/],
  ["null", null, /answer is invalid: expected an object, got null/],
  ["toolCalls: [null]", { toolCalls: [null] }, /at toolCalls\[0\]: expected an object, got null/],
  ["toolCalls: \"abc\"", { toolCalls: "abc" }, /at toolCalls: expected an array/],
  ["toolCalls: [{}]", { toolCalls: [{}] }, /at toolCalls\[0\]\.id: expected a string, got undefined/],
  ["text: 42", { text: 42 }, /at text: expected a string, got number 42/],
  ["usage: NaN", { usage: NaN }, /at usage: expected an object, got number NaN/],
  ["usage.inputTokens: NaN", { usage: { inputTokens: NaN, outputTokens: 1 } }, /at usage\.inputTokens: expected a finite number >= 0/],
  ["finishReason: \"banana\"", { finishReason: "banana" }, /at finishReason: expected one of stop, .*got string "banana"/],
  ["arguments with a function", { toolCalls: [{ id: "c", name: "add", arguments: { a: () => 1 } }] }, /at toolCalls\[0\]\.arguments\.a: expected a JSON value, got function/],
  ["an array", [], /expected an object, got an array/],
]

const circular = (): Record<string, unknown> => {
  const metadata: Record<string, unknown> = { a: 1 }
  metadata["self"] = metadata
  return metadata
}

const throwingGetter = () =>
  Object.defineProperty({ text: "x" }, "toolCalls", {
    enumerable: true,
    get() {
      throw new Error("no calls for you")
    },
  })

const endsOnce = (final: AgentState, seen: { readonly afterExecution: number }) => {
  expect(seen.afterExecution).toBe(1)
  expect(Codecs.decode(Codecs.AgentState, JSON.parse(JSON.stringify(Codecs.AgentState.encode(final))))._tag).toBe("Success")
}

describe("the driver boundary (issue 12, item 2)", () => {
  describe("Driver.fromPromise generate", () => {
    for (const [name, answer, message] of garbage) {
      it(`makes ${name} an InferenceFailed naming the path, through OnError and AfterExecution once`, async () => {
        const { agent, seen } = agentOver(Driver.fromPromise({ generate: async () => answer as never }))
        const final = await agent.run("hi")
        expect(final.execution.status).toBe("failed")
        expect(seen.onError).toHaveLength(1)
        expect(seen.onError[0]).toMatchObject({ _tag: "InferenceFailed", message: expect.stringMatching(message) })
        endsOnce(final, seen)
      })
    }

    it("makes circular metadata an InferenceFailed", async () => {
      const { agent, seen } = agentOver(Driver.fromPromise({ generate: async () => ({ text: "x", metadata: circular() }) as never }))
      const final = await agent.run("hi")
      expect(seen.onError[0]?.message).toMatch(/at metadata\.self: expected a JSON value, got a circular reference/)
      endsOnce(final, seen)
    })

    it("makes a throwing getter an InferenceFailed", async () => {
      const { agent, seen } = agentOver(Driver.fromPromise({ generate: async () => throwingGetter() as never }))
      const final = await agent.run("hi")
      expect(seen.onError[0]?.message).toMatch(/reading it threw: no calls for you/)
      endsOnce(final, seen)
    })

    it("lets an OnError hook retry after a bad answer: the next good answer completes the run", async () => {
      let calls = 0
      const driver = Driver.fromPromise({ generate: async () => (calls++ === 0 ? { toolCalls: [null] } : { text: "fine" }) as never })
      const { agent, seen } = agentOver(driver, { handle: true })
      const final = await agent.run("hi")
      expect(final.execution.status).toBe("completed")
      expect(final.context.messages.at(-1)).toMatchObject({ role: "assistant", content: "fine" })
      endsOnce(final, seen)
    })

    it("copies the answer: the driver changing its object later changes nothing committed", async () => {
      const answer = { text: "x", toolCalls: [], metadata: { id: "r1" } }
      const { agent } = agentOver(Driver.fromPromise({ generate: async () => answer }))
      const final = await agent.run("hi")
      answer.metadata.id = "changed"
      expect(Object.isFrozen(answer)).toBe(false)
      expect(final.execution.steps.at(0)?.response?.metadata).toEqual({ id: "r1" })
    })
  })

  describe("an Effect driver", () => {
    it("makes a generate that throws, returns no Effect, dies or answers garbage an InferenceFailed", async () => {
      const drivers: ReadonlyArray<Driver.DriverShape> = [
        { generate: () => { throw new Error("sync throw") }, stream: () => Stream.empty },
        { generate: () => undefined as never, stream: () => Stream.empty },
        Driver.make({ generate: () => Effect.die(new TypeError("boom")) }),
        Driver.make({ generate: () => Effect.succeed({ text: 1 } as never) }),
      ]
      for (const driver of drivers) {
        const { agent, seen } = agentOver(driver)
        const final = await agent.run("hi")
        expect(final.execution.status).toBe("failed")
        expect(seen.onError[0]?._tag).toBe("InferenceFailed")
        endsOnce(final, seen)
      }
    })
  })

  describe("a stream", () => {
    const good = InferenceResponse.make({ text: "hello" })
    const streamOf = (...parts: ReadonlyArray<unknown>) => Driver.fromPromise({
      stream: async function*() {
        for (const part of parts) yield part as Driver.StreamPart
      },
    })
    const streamed = async (driver: Driver.DriverShape) => {
      const { agent, seen } = agentOver(driver)
      const events: Array<AgentEvent> = []
      for await (const event of agent.stream("hi")) events.push(event)
      const end = events.at(-1)
      if (end?._tag !== "RunEnded") throw new Error("no RunEnded")
      return { final: end.state, seen, text: events.flatMap((e) => (e._tag === "TextDelta" ? [e.text] : [])).join("") }
    }

    for (const [name, parts, message] of [
      ["a null part", [null], /stream is invalid at parts\[0\]: expected an object, got null/],
      ["a string part", ["hello"], /at parts\[0\]: expected an object, got string/],
      ["an unknown part", [{ _tag: "Banana" }], /at parts\[0\]\._tag: expected "TextDelta", "ReasoningDelta", "ToolCall" or "Finish"/],
      ["a Finish without toolCalls", [{ _tag: "Finish", response: { ...good, toolCalls: undefined } }], /at parts\[0\]\.response\.toolCalls: expected an array/],
      ["a delta with a number", [{ _tag: "TextDelta", text: 4 }], /at parts\[0\]\.text: expected a string/],
      ["deltas that are not the Finish's text", [{ _tag: "TextDelta", text: "bye" }, { _tag: "Finish", response: good }], /text deltas \(3 characters\) are not the text of its Finish \(5 characters\)/],
    ] as const) {
      it(`makes ${name} an InferenceFailed, through OnError and AfterExecution once`, async () => {
        const { final, seen } = await streamed(streamOf(...parts))
        expect(final.execution.status).toBe("failed")
        expect(seen.onError[0]).toMatchObject({ _tag: "InferenceFailed", message: expect.stringMatching(message) })
        endsOnce(final, seen)
      })
    }

    it("ends at its first Finish: parts after it are not read, and the streamed text is the committed text", async () => {
      let readAfter = false
      const driver = Driver.fromPromise({
        stream: async function*() {
          yield { _tag: "TextDelta", text: "hel" }
          yield { _tag: "TextDelta", text: "lo" }
          yield { _tag: "Finish", response: good }
          readAfter = true
          yield null as never
          yield { _tag: "Finish", response: InferenceResponse.make({ text: "other" }) }
        },
      })
      const { final, text, seen } = await streamed(driver)
      expect(final.execution.status).toBe("completed")
      expect(readAfter).toBe(false)
      expect(text).toBe("hello")
      expect(final.context.messages.at(-1)).toMatchObject({ role: "assistant", content: "hello" })
      endsOnce(final, seen)
    })

    it("streams the whole text once when the driver sent no delta", async () => {
      const { final, text } = await streamed(streamOf({ _tag: "Finish", response: good }))
      expect(final.execution.status).toBe("completed")
      expect(text).toBe("hello")
    })
  })
})

describe("arguments nested 10,000 levels deep (issue 12, item 3)", () => {
  const deep = (levels: number): unknown => {
    let value: unknown = 1
    for (let i = 0; i < levels; i++) value = { a: value }
    return value
  }
  const twoTurns = (args: unknown) => {
    let calls = 0
    const requests: Array<InferenceRequest> = []
    const driver = Driver.fromPromise({
      generate: async (request) => {
        requests.push(request)
        return calls++ === 0 ? { toolCalls: [{ id: "c1", name: "add", arguments: args as never }] } : { text: "sorry" }
      },
    })
    return { driver, requests }
  }

  it("is a ToolArgumentsInvalid fed back to the model through fromPromise; the run ends normally and round-trips", async () => {
    const { driver, requests } = twoTurns(deep(10_000))
    const { agent, seen } = agentOver(driver)
    const final = await agent.run("hi")
    expect(final.execution.status).toBe("completed")
    const execution = final.execution.steps.at(0)?.toolExecutions[0]
    expect(execution).toMatchObject({ status: "failure", error: { _tag: "ToolArgumentsInvalid", toolCallId: "c1" } })
    expect(execution?.status === "failure" && execution.error.message).toMatch(/at a\.a\.a.*: nested deeper than 512 levels/)
    // The model read the error and answered.
    expect(requests).toHaveLength(2)
    expect(requests[1]?.messages.at(-1)).toMatchObject({ role: "tool", toolCallId: "c1", isError: true })
    expect(seen.onError).toEqual([])
    endsOnce(final, seen)
  })

  it("is a ToolArgumentsInvalid through a stream and through an Effect driver too", async () => {
    const response = { text: "", toolCalls: [{ id: "c1", name: "add", arguments: deep(10_000) }], usage: { inputTokens: 0, outputTokens: 0 }, finishReason: "tool-calls", modelId: "m", metadata: {} }
    const done = InferenceResponse.make({ text: "ok" })
    for (const make of [
      (first: boolean) => Driver.make({ generate: () => Effect.succeed((first ? response : done) as never) }),
      (first: boolean) => Driver.make({ stream: () => Stream.make({ _tag: "Finish" as const, response: (first ? response : done) as never }) }),
    ]) {
      let n = 0
      const driver: Driver.DriverShape = {
        generate: (request, options) => make(n++ === 0).generate(request, options),
        stream: (request, options) => make(n++ === 0).stream(request, options),
      }
      for (const mode of ["run", "stream"] as const) {
        n = 0
        const { agent, seen } = agentOver(driver)
        let final: AgentState | undefined
        if (mode === "run") final = await agent.run("hi")
        else for await (const e of agent.stream("hi")) if (e._tag === "RunEnded") final = e.state
        expect(final?.execution.steps.at(0)?.toolExecutions[0]).toMatchObject({ error: { _tag: "ToolArgumentsInvalid" } })
        endsOnce(final as AgentState, seen)
      }
    }
  })

  it("is refused when a BeforeToolUse hook sets them, and is a ToolArgumentsInvalid for Tools.execute", async () => {
    const deepen = (ctx: HookContext) => HookContext.withToolArguments(ctx, deep(10_000) as never)
    const loop = AgentLoop.make({
      tools: [add],
      interceptor: HookStack.with(HookStack.empty, deepen, { triggers: HookTriggers.of("BeforeToolUse"), name: "test:deepen" }),
    })
    let n = 0
    const driver = Driver.make({
      generate: () => Effect.succeed(n++ === 0 ? InferenceResponse.make({ toolCalls: [ToolCall.make({ id: "c1", name: "add", arguments: { a: 1, b: 2 } })] }) : InferenceResponse.make({ text: "ok" })),
    })
    const final = await Effect.runPromise(AgentLoop.run(loop, "hi").pipe(Effect.provide(Driver.layer(driver))))
    // The hook's context is refused where it enters (HookFailed naming the hook), or the
    // call is: either way nothing overflows and the state round-trips.
    const refused = final.execution.errors.find((e) => e._tag === "HookFailed" || e._tag === "ToolArgumentsInvalid")
    expect(refused?._tag === "HookFailed" ? refused.hook : refused?._tag).toMatch(/test:deepen|ToolArgumentsInvalid/)
    expect(Codecs.decode(Codecs.AgentState, JSON.parse(JSON.stringify(Codecs.AgentState.encode(final))))._tag).toBe("Success")

    const direct = await Effect.runPromise(Tools.execute(Tools.make([add]), ToolCall.make({ id: "c2", name: "add", arguments: deep(10_000) as never }), { state: final }))
    expect(direct).toMatchObject({ status: "failure", error: { _tag: "ToolArgumentsInvalid", toolCallId: "c2" } })
  })

  it("keeps arguments at the bound: 511 levels run the validator as usual", async () => {
    const nested = Tool.make({ name: "nested", parameters: Codecs.JsonObject, jsonSchema: { type: "object" }, execute: () => "ok" })
    const direct = await Effect.runPromise(
      Tools.execute(Tools.make([nested]), ToolCall.make({ id: "c", name: "nested", arguments: deep(511) as never }), { state: AgentState.make({}) }),
    )
    expect(direct.status).toBe("success")
  })
})
