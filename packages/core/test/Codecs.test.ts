import { Result } from "effect"
import * as t from "io-ts"
import { describe, expect, expectTypeOf, it } from "vitest"
import {
  AgentError,
  AgentState,
  AppendLog,
  Codecs,
  HookContext,
  InferenceRequest,
  InferenceResponse,
  Message,
  Step,
  StopSignal,
  ToolCall,
  ToolExecution,
  Usage,
  type JsonValue,
} from "@hookline/core"
import { isDeepFrozen } from "./arbitraries.js"

const call = ToolCall.make({ id: "c1", name: "search", arguments: { q: "cats" } })

const state = AgentState.make({
  id: "s1",
  systemPrompt: "be brief",
  messages: [Message.user("hi"), Message.assistant("looking", [call]), Message.tool({ toolCallId: "c1", toolName: "search", content: "none" })],
  metadata: { run: 1 },
})

// The encoded state as untrusted JSON: plain mutable objects, as JSON.parse gives.
const encodedState = (): any => JSON.parse(Codecs.toJson(Codecs.AgentState, state))

const failureOf = <A>(result: Result.Result<A, AgentError.DecodeFailed>): AgentError.DecodeFailed => {
  if (Result.isSuccess(result)) throw new Error("expected the decoding to fail")
  return result.failure
}

const successOf = <A>(result: Result.Result<A, AgentError.DecodeFailed>): A => {
  if (Result.isFailure(result)) throw new Error(result.failure.message)
  return result.success
}

describe("Codecs", () => {
  describe("decode", () => {
    it("succeeds with a state equal to the one encoded", () => {
      expect(successOf(Codecs.decode(Codecs.AgentState, encodedState()))).toEqual(state)
    })

    it("names context.messages[1].role when a message has an unknown role", () => {
      const input = encodedState()
      input.context.messages[1].role = "robot"
      const error = failureOf(Codecs.decode(Codecs.AgentState, input))
      expect(error._tag).toBe("DecodeFailed")
      expect(error.path).toBe("context.messages[1].role")
      expect(error.message).toContain(`"robot"`)
    })

    it("names execution.usage.inputTokens when it has the wrong type", () => {
      const input = encodedState()
      input.execution.usage.inputTokens = "12"
      const error = failureOf(Codecs.decode(Codecs.AgentState, input))
      expect(error.path).toBe("execution.usage.inputTokens")
      expect(error.message).toContain(`"12"`)
    })

    it("names a missing id", () => {
      const input = encodedState()
      delete input.id
      expect(failureOf(Codecs.decode(Codecs.AgentState, input)).path).toBe("id")
    })

    it("names the missing field of a message whose role is known, not its role", () => {
      const input = encodedState()
      delete input.context.messages[2].isError
      expect(failureOf(Codecs.decode(Codecs.AgentState, input)).path).toBe("context.messages[2].isError")
    })

    it("names the path inside a tool call's arguments", () => {
      const input = encodedState()
      input.context.messages[1].toolCalls[0].arguments = { q: ["ok", Number.POSITIVE_INFINITY] }
      const error = failureOf(Codecs.decode(Codecs.AgentState, input))
      expect(error.path).toBe("context.messages[1].toolCalls[0].arguments.q[1]")
      expect(error.message).toContain("finite number")
    })

    it("names the tag of an error with an unknown _tag", () => {
      const input = encodedState()
      input.execution.errors = [{ _tag: "Oops", message: "?" }]
      expect(failureOf(Codecs.decode(Codecs.AgentState, input)).path).toBe("execution.errors[0]._tag")
    })

    it("fails at the root for input that is not an object", () => {
      const error = failureOf(Codecs.decode(Codecs.AgentState, 42))
      expect(error.path).toBe("")
      expect(error.message).toBe("cannot decode the root: expected AgentState, got 42")
    })

    it("rejects null for an absent optional field", () => {
      const input = encodedState()
      input.parentId = null
      expect(failureOf(Codecs.decode(Codecs.AgentState, input)).path).toBe("parentId")
    })

    it("sets every optional key to undefined, as the constructors do", () => {
      const decoded = successOf(Codecs.decode(Codecs.AgentState, encodedState()))
      expect(Object.keys(decoded)).toEqual(Object.keys(state))
      expect(Object.keys(decoded.context)).toEqual(Object.keys(state.context))
      expect(Object.keys(decoded.execution)).toEqual(Object.keys(state.execution))
      expect("parentId" in decoded && decoded.parentId === undefined).toBe(true)
      expect("startedAt" in decoded.execution && decoded.execution.startedAt === undefined).toBe(true)
    })

    it("drops keys the type does not have", () => {
      const input = encodedState()
      input.context.messages[0].extra = "x"
      input.extra = "y"
      const decoded = successOf(Codecs.decode(Codecs.AgentState, input))
      expect(Object.keys(decoded.context.messages.at(0)!)).toEqual(["role", "content"])
      expect("extra" in decoded).toBe(false)
    })

    it("returns a deeply frozen state", () => {
      expect(isDeepFrozen(successOf(Codecs.decode(Codecs.AgentState, encodedState())))).toBe(true)
    })

    it("gives messages that form an AppendLog which appends like any other", () => {
      const decoded = successOf(Codecs.decode(Codecs.AgentState, encodedState()))
      expect(AppendLog.isAppendLog(decoded.context.messages)).toBe(true)
      const next = AgentState.appendMessage(decoded, Message.user("more"))
      expect(AgentState.lastMessage(next)).toEqual(Message.user("more"))
      expect(next.context.messages.length).toBe(4)
      expect(decoded.context.messages.length).toBe(3)
    })

    it("accepts an AppendLog where an array is expected", () => {
      const log = AppendLog.fromIterable([Message.user("a"), Message.system("b")])
      const decoded = successOf(Codecs.decode(Codecs.appendLog(Codecs.Message), log))
      expect([...decoded]).toEqual([...log])
    })

    it("turns a throwing input into DecodeFailed at the root", () => {
      const input = { get id(): string { throw new Error("trap") } }
      const error = failureOf(Codecs.decode(Codecs.AgentState, input))
      expect(error).toEqual(AgentError.decodeFailed("", "trap"))
    })

    it("names the path inside a user's t.strict and t.refinement codecs", () => {
      const Options = t.type({
        retry: t.strict({ times: t.number }),
        limit: t.refinement(t.type({ max: t.number }), (l) => l.max > 0, "Limit"),
      })
      expect(failureOf(Codecs.decode(Options, { retry: { times: "3" }, limit: { max: 1 } })).path).toBe("retry.times")
      expect(failureOf(Codecs.decode(Options, { retry: { times: 3 }, limit: { max: "1" } })).path).toBe("limit.max")
    })

    it("returns zero usage as the shared Usage.empty", () => {
      expect(successOf(Codecs.decode(Codecs.Usage, { inputTokens: 0, outputTokens: 0 }))).toBe(Usage.empty)
    })

    it("round-trips cached input and reasoning tokens through JSON", () => {
      const usage = Usage.make(1200, 300, { cachedInputTokens: 1000, reasoningTokens: 120 })
      const text = Codecs.toJson(Codecs.Usage, usage)
      expect(JSON.parse(text)).toEqual({ inputTokens: 1200, outputTokens: 300, cachedInputTokens: 1000, reasoningTokens: 120 })
      const decoded = successOf(Codecs.fromJson(Codecs.Usage, text))
      expect(decoded).toStrictEqual(usage)
      expect(Object.isFrozen(decoded)).toBe(true)
    })

    it("decodes a state written before the usage details: no detail keys appear", () => {
      const input = encodedState()
      input.execution.usage = { inputTokens: 12, outputTokens: 3 }
      const decoded = successOf(Codecs.decode(Codecs.AgentState, input))
      expect(decoded.execution.usage).toStrictEqual({ inputTokens: 12, outputTokens: 3 })
      expect(Object.keys(Codecs.encode(Codecs.AgentState, decoded).execution.usage)).toEqual(["inputTokens", "outputTokens"])
    })

    it("names execution.usage.cachedInputTokens when it is not a finite number", () => {
      const input = encodedState()
      input.execution.usage = { inputTokens: 12, outputTokens: 3, cachedInputTokens: "10" }
      const error = failureOf(Codecs.decode(Codecs.AgentState, input))
      expect(error.path).toBe("execution.usage.cachedInputTokens")
      expect(error.message).toContain(`"10"`)
    })
  })

  describe("decodeUnsafe", () => {
    it("returns the decoded value", () => {
      const decoded = Codecs.decodeUnsafe(Codecs.Message, { role: "user", content: "hi" })
      expectTypeOf(decoded).toEqualTypeOf<Message>()
      expect(decoded).toEqual(Message.user("hi"))
    })

    it("throws a HooklineError that carries the DecodeFailed", () => {
      let thrown: unknown
      try {
        Codecs.decodeUnsafe(Codecs.Message, { role: "user" })
      } catch (e) {
        thrown = e
      }
      expect(thrown).toBeInstanceOf(AgentError.HooklineError)
      expect((thrown as AgentError.HooklineError).error).toEqual(AgentError.decodeFailed("content", "expected string, got undefined"))
    })
  })

  describe("encode", () => {
    it("encodes an AppendLog as a plain array", () => {
      const encoded = Codecs.encode(Codecs.appendLog(Codecs.Message), state.context.messages)
      expect(Array.isArray(encoded)).toBe(true)
      expect(Object.getPrototypeOf(encoded)).toBe(Array.prototype)
      expect(AppendLog.isAppendLog(encoded)).toBe(false)
      expect(encoded).toEqual([...state.context.messages])
    })

    it("leaves absent optional fields out", () => {
      const encoded = Codecs.encode(Codecs.AgentState, state)
      expect("parentId" in encoded).toBe(false)
      expect("responseFormat" in encoded.context).toBe(false)
      expect("startedAt" in encoded.execution).toBe(false)
      expect("status" in Codecs.encode(Codecs.AgentError, AgentError.inferenceFailed("down"))).toBe(false)
    })

    it("keeps present optional fields", () => {
      const encoded = Codecs.encode(Codecs.AgentError, AgentError.inferenceFailed("down", { status: 503, retryable: true }))
      expect(encoded).toEqual({ _tag: "InferenceFailed", message: "down", status: 503, retryable: true })
    })
  })

  describe("toJson", () => {
    it("writes the encoded form as JSON text", () => {
      const text = Codecs.toJson(Codecs.StopSignal, StopSignal.make("Completed", "done", "loop"))
      expect(JSON.parse(text)).toEqual({ reason: "Completed", message: "done", source: "loop" })
    })
  })

  describe("fromJson", () => {
    it("reads back what toJson wrote", () => {
      expect(successOf(Codecs.fromJson(Codecs.AgentState, Codecs.toJson(Codecs.AgentState, state)))).toEqual(state)
    })

    it("fails at the root with the parser's message for text that is not JSON", () => {
      let parserMessage = ""
      try {
        JSON.parse("{not json")
      } catch (e) {
        parserMessage = (e as Error).message
      }
      const error = failureOf(Codecs.fromJson(Codecs.AgentState, "{not json"))
      expect(error).toEqual(AgentError.decodeFailed("", parserMessage))
    })

    it("names the path of valid JSON that does not decode", () => {
      expect(failureOf(Codecs.fromJson(Codecs.StopSignal, `{"reason":"Bored","message":"","source":""}`)).path).toBe("reason")
    })
  })

  describe("JsonValue", () => {
    const rejects = (input: unknown) => failureOf(Codecs.decode(Codecs.JsonValue, input))

    it("rejects non-finite numbers", () => {
      expect(rejects({ a: [1, Number.NaN] }).path).toBe("a[1]")
      expect(rejects(Number.NEGATIVE_INFINITY).path).toBe("")
    })

    it("rejects functions", () => {
      expect(rejects({ f: () => 1 }).message).toContain("function")
    })

    it("rejects undefined inside arrays and holes", () => {
      expect(rejects([1, undefined]).path).toBe("[1]")
      expect(rejects([1, , 3]).path).toBe("[1]")
    })

    it("rejects class instances", () => {
      expect(rejects({ at: new Date(0) }).message).toContain("[object Date]")
      expect(rejects(new Map()).path).toBe("")
      expect(rejects(AppendLog.fromIterable([1])).path).toBe("")
    })

    it("rejects cycles", () => {
      const a: Record<string, unknown> = {}
      a["self"] = a
      expect(rejects(a).message).toContain("circular")
    })

    it("rejects nesting deeper than 512 levels", () => {
      const deep = JSON.parse("[".repeat(10_000) + "]".repeat(10_000)) as JsonValue
      expect(rejects(deep).message).toContain("512")
    })

    it("decodes -0 as 0, as JSON carries it: a value equals itself after a checkpoint", () => {
      const decoded = successOf(Codecs.decode(Codecs.JsonValue, { a: -0, b: [1, -0] })) as { a: number; b: Array<number> }
      expect(Object.is(decoded.a, 0)).toBe(true)
      expect(Object.is(decoded.b[1], 0)).toBe(true)
      expect(Object.is(successOf(Codecs.decode(Codecs.JsonValue, -0)), 0)).toBe(true)
      const usage = successOf(Codecs.decode(Codecs.Usage, { inputTokens: -0, outputTokens: 1 }))
      expect(Object.is(usage.inputTokens, 0)).toBe(true)
    })

    it("accepts a value shared by two branches", () => {
      const shared = { x: 1 }
      expect(successOf(Codecs.decode(Codecs.JsonValue, { a: shared, b: shared }))).toEqual({ a: { x: 1 }, b: { x: 1 } })
    })

    it("copies what it decodes and never freezes the input", () => {
      const input = { a: [1, { b: 2 }] }
      const decoded = successOf(Codecs.decode(Codecs.JsonValue, input))
      expect(decoded).not.toBe(input)
      expect(Object.isFrozen(input)).toBe(false)
      expect(Object.isFrozen(input.a)).toBe(false)
      expect(isDeepFrozen(decoded)).toBe(true)
    })
  })

  describe("Metadata", () => {
    it("keeps a parsed __proto__ key as an own data key without polluting any prototype", () => {
      const decoded = successOf(Codecs.decode(Codecs.Metadata, JSON.parse(`{"__proto__": {"polluted": true}}`)))
      expect(Object.hasOwn(decoded, "__proto__")).toBe(true)
      expect(Object.getOwnPropertyDescriptor(decoded, "__proto__")?.value).toEqual({ polluted: true })
      expect(Object.getPrototypeOf(decoded)).toBe(Object.prototype)
      expect((decoded as Record<string, unknown>)["polluted"]).toBeUndefined()
      expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined()
    })

    it("keeps constructor and prototype keys as own data", () => {
      const decoded = successOf(Codecs.decode(Codecs.Metadata, JSON.parse(`{"constructor": {"prototype": {"polluted": 1}}}`)))
      expect(Object.keys(decoded)).toEqual(["constructor"])
      expect(decoded["constructor"]).toEqual({ prototype: { polluted: 1 } })
      expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined()
    })

    it("round-trips a __proto__ key through JSON text", () => {
      const decoded = successOf(Codecs.fromJson(Codecs.Metadata, `{"__proto__": {"x": 1}, "a": 2}`))
      expect(Codecs.toJson(Codecs.Metadata, decoded)).toBe(`{"__proto__":{"x":1},"a":2}`)
    })

    it("rejects an array", () => {
      expect(failureOf(Codecs.decode(Codecs.Metadata, [])).path).toBe("")
    })
  })

  describe("AgentError", () => {
    it("rebuilds the exact record, message included", () => {
      const error = AgentError.hookFailed("audit", "BeforeStep", new Error("boom"))
      const decoded = successOf(Codecs.fromJson(Codecs.AgentError, Codecs.toJson(Codecs.AgentError, error)))
      expect(decoded).toStrictEqual(error)
      expect(Object.isFrozen(decoded)).toBe(true)
    })

    it("restores an absent InferenceFailed status as an undefined key", () => {
      const decoded = successOf(Codecs.decode(Codecs.AgentError, { _tag: "InferenceFailed", message: "down", retryable: false }))
      expect(Object.keys(decoded)).toEqual(Object.keys(AgentError.inferenceFailed("down")))
    })
  })

  describe("ToolCall", () => {
    it("keeps null arguments", () => {
      const decoded = successOf(Codecs.decode(Codecs.ToolCall, { id: "c", name: "n", arguments: null }))
      expect(decoded.arguments).toBeNull()
    })
  })

  describe("ToolExecution", () => {
    it("keeps a blocked execution's completion time", () => {
      const blocked = { ...ToolExecution.blocked(call, "no", 10), completedAt: 12 }
      const decoded = successOf(Codecs.decode(Codecs.ToolExecution, Codecs.encode(Codecs.ToolExecution, blocked)))
      expect(decoded).toEqual(blocked)
    })

    it("keeps the replay mark of every kind of execution, and decodes one written before the mark existed", () => {
      const made = [
        ToolExecution.withUsage(ToolExecution.success(call, { n: 1 }, 1, 2), Usage.make(3, 4)),
        ToolExecution.failure(call, AgentError.toolFailed("c1", "search", "x"), 1, 2),
        ToolExecution.blocked(call, "no", 1),
      ]
      for (const execution of made) {
        const replayed = ToolExecution.asReplayed(execution)
        const encoded = Codecs.encode(Codecs.ToolExecution, replayed)
        expect(encoded).toMatchObject({ replayed: true })
        const decoded = successOf(Codecs.decode(Codecs.ToolExecution, JSON.parse(JSON.stringify(encoded))))
        expect(decoded).toEqual(replayed)
        expect(ToolExecution.isReplayed(decoded)).toBe(true)
        // Written before: no key at all.
        const old = Codecs.encode(Codecs.ToolExecution, execution)
        expect("replayed" in old).toBe(false)
        expect(ToolExecution.isReplayed(successOf(Codecs.decode(Codecs.ToolExecution, old)))).toBe(false)
      }
      expect(failureOf(Codecs.decode(Codecs.ToolExecution, { ...Codecs.encode(Codecs.ToolExecution, made[0]!), replayed: false })).path).toBe("replayed")
    })

    it("names the error's tag when a failure carries an error a tool cannot end with", () => {
      const encoded = Codecs.encode(Codecs.ToolExecution, ToolExecution.failure(call, AgentError.toolFailed("c1", "search", "x"), 1))
      const result = Codecs.decode(Codecs.ToolExecution, { ...encoded, error: { _tag: "Aborted", message: "m" } })
      expect(failureOf(result).path).toBe("error._tag")
    })
  })

  describe("Step", () => {
    it("keeps an absent finish reason beside a response", () => {
      const response = InferenceResponse.make({ text: "x", finishReason: "length" })
      const step = { ...Step.make({ index: 0, startedAt: 1, response }), finishReason: undefined }
      const decoded = successOf(Codecs.decode(Codecs.Step, Codecs.encode(Codecs.Step, step)))
      expect(decoded.finishReason).toBeUndefined()
    })
  })

  describe("InferenceResponse", () => {
    it("keeps the replay mark, and decodes a response written before the mark existed", () => {
      const response = InferenceResponse.make({ text: "x", modelId: "m" })
      const replayed = InferenceResponse.asReplayed(response)
      const decoded = successOf(Codecs.fromJson(Codecs.InferenceResponse, Codecs.toJson(Codecs.InferenceResponse, replayed)))
      expect(decoded).toEqual(replayed)
      expect(InferenceResponse.isReplayed(decoded)).toBe(true)
      const old = successOf(Codecs.fromJson(Codecs.InferenceResponse, Codecs.toJson(Codecs.InferenceResponse, response)))
      expect(InferenceResponse.isReplayed(old)).toBe(false)
      expect("replayed" in old).toBe(false)
    })

    it("keeps the reasoning, decodes a response stored without it unchanged, and refuses reasoning that is not a string", () => {
      const response = InferenceResponse.make({ text: "4", reasoning: "2 + 2 is 4", modelId: "m" })
      const json = Codecs.toJson(Codecs.InferenceResponse, response)
      expect(JSON.parse(json)).toMatchObject({ reasoning: "2 + 2 is 4" })
      expect(successOf(Codecs.fromJson(Codecs.InferenceResponse, json))).toEqual(response)
      const stored = { text: "4", toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, finishReason: "stop", modelId: "m", metadata: {} }
      const old = successOf(Codecs.decode(Codecs.InferenceResponse, stored))
      expect("reasoning" in old).toBe(false)
      expect(Codecs.encode(Codecs.InferenceResponse, old)).toEqual(stored)
      expect(failureOf(Codecs.decode(Codecs.InferenceResponse, { ...stored, reasoning: 42 })).path).toBe("reasoning")
    })
  })

  describe("InferenceRequest", () => {
    it("decodes messages into an AppendLog and keeps absent options absent", () => {
      const request = InferenceRequest.make({ messages: [Message.user("q")], options: { temperature: 0.5 } })
      const decoded = successOf(Codecs.fromJson(Codecs.InferenceRequest, Codecs.toJson(Codecs.InferenceRequest, request)))
      expect(InferenceRequest.isInferenceRequest(decoded)).toBe(true)
      expect(Object.keys(decoded.options)).toEqual(["temperature"])
    })
  })

  describe("HookContext", () => {
    it("round-trips a blocked tool call", () => {
      const ctx = HookContext.withToolExecutionBlocked(
        HookContext.make({ trigger: "BeforeToolUse", state, createdAt: 5, toolCall: call }),
        "not allowed",
      )
      const decoded = successOf(Codecs.fromJson(Codecs.HookContext, Codecs.toJson(Codecs.HookContext, ctx)))
      expect(decoded).toEqual(ctx)
      expect(HookContext.isToolExecutionBlocked(decoded)).toBe(true)
    })
  })
})

describe("PendingCall with a kept decision", () => {
  const call = ToolCall.make({ id: "c1", name: "refund", arguments: { amount: 250 } })
  const suspended = AgentState.suspendCall(AgentState.make({ messages: [Message.user("hi")] }), call, "above the limit", { amount: 250 })

  it.each([
    { _tag: "Approve" } as const,
    { _tag: "Edit", arguments: { amount: 80 } } as const,
    { _tag: "Reject", message: "no" } as const,
  ])("round-trips a state whose pending call keeps %o", (decision) => {
    const state = AgentState.withPendingCalls(suspended, [{ ...(suspended.execution.pendingCalls?.[0] as AgentState.PendingCall), decision }])
    const decoded = Codecs.parseStateUnsafe(Codecs.stringifyState(state))
    expect(decoded).toEqual(state)
    expect(isDeepFrozen(decoded)).toBe(true)
  })

  it("names a decision it does not know by its path", () => {
    const encoded = JSON.parse(Codecs.stringifyState(suspended))
    encoded.execution.pendingCalls[0].decision = { _tag: "Maybe" }
    const decoded = Codecs.decode(Codecs.AgentState, encoded)
    expect(Result.isFailure(decoded) && decoded.failure.path).toBe("execution.pendingCalls[0].decision._tag")
  })
})
