import { Effect, Exit, Stream } from "effect"
import { describe, expect, it } from "vitest"
import { APICallError, simulateReadableStream } from "ai"
import { MockLanguageModelV3 } from "ai/test"
import type { Driver } from "@hookline/agent"
import { AgentError, InferenceRequest, InferenceResponse, Message, ToolCall } from "@hookline/core"
import { AiSdkDriver } from "@hookline/ai-sdk"
import { aiMajor } from "./support/specModels.js"

type V3Generate = Exclude<ConstructorParameters<typeof MockLanguageModelV3>[0], undefined>["doGenerate"]
type V3GenerateResult = Exclude<V3Generate, Function | Array<unknown> | undefined>
type V3StreamPart = { type: string; [key: string]: unknown }

const usage = (input: number | undefined, output: number | undefined) => ({
  inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: output, text: output, reasoning: undefined },
})

const result = (
  content: V3GenerateResult["content"],
  finish: V3GenerateResult["finishReason"]["unified"] = "stop",
  tokens: [number | undefined, number | undefined] = [3, 5],
): V3GenerateResult => ({
  content,
  finishReason: { unified: finish, raw: finish },
  usage: usage(tokens[0], tokens[1]),
  warnings: [],
  response: { id: "resp-1", modelId: "mock-model-1", timestamp: new Date(0) },
  providerMetadata: { mock: { cached: false } },
})

const signal = () => new AbortController().signal

const generate = (driver: Driver.DriverShape, request: InferenceRequest.InferenceRequest, s = signal()) =>
  Effect.runPromise(driver.generate(request, { signal: s }))

const failureOf = async <A>(effect: Effect.Effect<A, AgentError.InferenceFailed>) => {
  const exit = await Effect.runPromiseExit(effect)
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  const reason = exit.cause.reasons[0]
  if (reason === undefined || reason._tag !== "Fail") throw new Error(`expected a Fail, got ${String(reason?._tag)}`)
  return reason.error
}

const conversation = InferenceRequest.make({
  systemPrompt: "You are terse.",
  messages: [
    Message.user("add 1 and 2"),
    Message.assistant("let me add", [ToolCall.make({ id: "call-1", name: "add", arguments: { a: 1, b: 2 } })]),
    Message.tool({ toolCallId: "call-1", toolName: "add", content: "3" }),
    Message.assistant("", [ToolCall.make({ id: "call-2", name: "div", arguments: { a: 1, b: 0 } })]),
    Message.tool({ toolCallId: "call-2", toolName: "div", content: "division by zero", isError: true }),
    Message.system("Answer in one word."),
  ],
  tools: [{
    name: "add",
    description: "Adds two numbers",
    parameters: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
  }],
  options: {
    temperature: 0.2,
    topP: 0.9,
    topK: 40,
    maxOutputTokens: 100,
    seed: 7,
    stopSequences: ["END"],
    providerOptions: { mock: { flag: true } },
  },
})

describe("AiSdkDriver request mapping", () => {
  it("sends the system prompt, every message kind, the tools as JSON schema, the options and the signal", async () => {
    const model = new MockLanguageModelV3({ doGenerate: result([{ type: "text", text: "three" }]) })
    const controller = new AbortController()
    await generate(AiSdkDriver.make(model, { providerOptions: { other: { x: 1 } } }), conversation, controller.signal)
    expect(model.doGenerateCalls).toHaveLength(1)
    const call = model.doGenerateCalls[0]!
    expect(call.prompt).toEqual([
      { role: "system", content: "You are terse." },
      { role: "user", content: [{ type: "text", text: "add 1 and 2" }] },
      {
        role: "assistant",
        content: [
          { type: "text", text: "let me add" },
          { type: "tool-call", toolCallId: "call-1", toolName: "add", input: { a: 1, b: 2 } },
        ],
      },
      { role: "tool", content: [{ type: "tool-result", toolCallId: "call-1", toolName: "add", output: { type: "text", value: "3" } }] },
      { role: "assistant", content: [{ type: "tool-call", toolCallId: "call-2", toolName: "div", input: { a: 1, b: 0 } }] },
      {
        role: "tool",
        content: [{
          type: "tool-result",
          toolCallId: "call-2",
          toolName: "div",
          output: { type: "error-text", value: "division by zero" },
        }],
      },
      { role: "system", content: "Answer in one word." },
    ])
    expect(call.tools).toEqual([{
      type: "function",
      name: "add",
      description: "Adds two numbers",
      inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
    }])
    expect(call).toMatchObject({
      temperature: 0.2,
      topP: 0.9,
      topK: 40,
      maxOutputTokens: 100,
      seed: 7,
      stopSequences: ["END"],
      providerOptions: { mock: { flag: true }, other: { x: 1 } },
    })
    expect(call.abortSignal).toBeDefined()
    expect(call.abortSignal?.aborted).toBe(false)
    // The call's signal follows the given one only while the call runs (no listener is
    // left on a long-lived signal): an abort after it ended reaches nothing. An abort
    // during a call is tested over HTTP (http.test.ts: the socket closes).
    controller.abort()
    expect(call.abortSignal?.aborted).toBe(false)
  })

  it("keeps a provider named __proto__ as data when it merges provider options", async () => {
    const model = new MockLanguageModelV3({ doGenerate: result([{ type: "text", text: "ok" }]) })
    // Options decoded from JSON may hold any key; the merge must not set a prototype.
    const own = JSON.parse('{"__proto__": {"x": 1}, "mock": {"flag": true}}') as Record<string, Record<string, number | boolean>>
    await generate(
      AiSdkDriver.make(model, { providerOptions: { mock: { base: 1 } } }),
      InferenceRequest.make({ messages: [Message.user("hi")], options: { providerOptions: own } }),
    )
    const sent = model.doGenerateCalls[0]!.providerOptions as Record<string, unknown>
    expect(Object.getPrototypeOf(sent)).toBe(Object.prototype)
    expect(Object.hasOwn(sent, "__proto__")).toBe(true)
    expect(Object.getOwnPropertyDescriptor(sent, "__proto__")?.value).toEqual({ x: 1 })
    expect(sent["mock"]).toEqual({ base: 1, flag: true })
  })

  it("sends no tools and no system prompt when there are none, and a JSON response format when asked", async () => {
    const model = new MockLanguageModelV3({ doGenerate: result([{ type: "text", text: "{\"answer\":4" }]) })
    const schema = { type: "object", properties: { answer: { type: "number" } } }
    const response = await generate(
      AiSdkDriver.make(model),
      InferenceRequest.make({ messages: [Message.user("2+2?")], responseFormat: { type: "json", schema, name: "Answer" } }),
    )
    const call = model.doGenerateCalls[0]!
    expect(call.prompt).toEqual([{ role: "user", content: [{ type: "text", text: "2+2?" }] }])
    expect(call.tools).toBeUndefined()
    expect(call.responseFormat).toEqual({ type: "json", schema, name: "Answer" })
    // The text comes back as written (even when it is not valid JSON): hookline decodes it.
    expect(response.text).toBe("{\"answer\":4")
  })
})

describe("AiSdkDriver response mapping", () => {
  it("maps text, tool calls, usage, finish reason, model id and metadata", async () => {
    const model = new MockLanguageModelV3({
      doGenerate: result([
        { type: "text", text: "adding" },
        { type: "tool-call", toolCallId: "c1", toolName: "add", input: "{\"a\":1,\"b\":2}" },
      ], "tool-calls", [10, 20]),
    })
    const response = await generate(AiSdkDriver.make(model), conversation)
    expect(response).toEqual(InferenceResponse.make({
      text: "adding",
      toolCalls: [ToolCall.make({ id: "c1", name: "add", arguments: { a: 1, b: 2 } })],
      usage: { inputTokens: 10, outputTokens: 20 },
      finishReason: "tool-calls",
      modelId: "mock-model-1",
      metadata: { responseId: "resp-1", providerMetadata: { mock: { cached: false } } },
    }))
  })

  it("counts missing usage as 0", async () => {
    const model = new MockLanguageModelV3({ doGenerate: result([{ type: "text", text: "x" }], "stop", [undefined, undefined]) })
    expect((await generate(AiSdkDriver.make(model), conversation)).usage).toEqual({ inputTokens: 0, outputTokens: 0 })
  })

  it.each(["stop", "length", "content-filter", "tool-calls", "error", "other"] as const)("maps finish reason %s", async (reason) => {
    const model = new MockLanguageModelV3({ doGenerate: result([{ type: "text", text: "x" }], reason) })
    expect((await generate(AiSdkDriver.make(model), conversation)).finishReason).toBe(reason)
  })

  it("maps unknown finish reasons to other", () => {
    expect(AiSdkDriver.finishReasonOf("unknown")).toBe("other")
    expect(AiSdkDriver.finishReasonOf(undefined)).toBe("other")
  })
})

const streamModel = (parts: Array<V3StreamPart>) =>
  new MockLanguageModelV3({
    doStream: async () => ({ stream: simulateReadableStream({ chunks: parts as never[] }) }),
  })

const streamedParts: Array<V3StreamPart> = [
  { type: "stream-start", warnings: [] },
  { type: "response-metadata", id: "resp-1", modelId: "mock-model-1", timestamp: new Date(0) },
  { type: "text-start", id: "t1" },
  { type: "text-delta", id: "t1", delta: "add" },
  { type: "text-delta", id: "t1", delta: "ing" },
  { type: "text-end", id: "t1" },
  { type: "tool-call", toolCallId: "c1", toolName: "add", input: "{\"a\":1,\"b\":2}" },
  {
    type: "finish",
    finishReason: { unified: "tool-calls", raw: "tool_calls" },
    usage: usage(10, 20),
    providerMetadata: { mock: { cached: false } },
  },
]

describe("AiSdkDriver streaming", () => {
  it("streams text deltas and tool calls, then a Finish equal to what generate gives", async () => {
    const parts = await Effect.runPromise(Stream.runCollect(AiSdkDriver.make(streamModel(streamedParts)).stream(conversation, { signal: signal() })))
    const generated = await generate(
      AiSdkDriver.make(
        new MockLanguageModelV3({
          doGenerate: result([
            { type: "text", text: "adding" },
            { type: "tool-call", toolCallId: "c1", toolName: "add", input: "{\"a\":1,\"b\":2}" },
          ], "tool-calls", [10, 20]),
        }),
      ),
      conversation,
    )
    expect(parts).toEqual([
      { _tag: "TextDelta", text: "add" },
      { _tag: "TextDelta", text: "ing" },
      { _tag: "ToolCall", toolCall: ToolCall.make({ id: "c1", name: "add", arguments: { a: 1, b: 2 } }) },
      { _tag: "Finish", response: generated },
    ])
  })

  it("sends the same request as generate", async () => {
    const model = streamModel(streamedParts)
    await Effect.runPromise(Stream.runDrain(AiSdkDriver.make(model).stream(conversation, { signal: signal() })))
    const generating = new MockLanguageModelV3({ doGenerate: result([{ type: "text", text: "x" }]) })
    await generate(AiSdkDriver.make(generating), conversation)
    const { abortSignal: _a, headers: _h1, ...streamed } = model.doStreamCalls[0]!
    const { abortSignal: _b, headers: _h2, ...generated } = generating.doGenerateCalls[0]!
    expect(streamed).toEqual({ ...generated, includeRawChunks: false })
  })

  it("fails with InferenceFailed on an error part", async () => {
    const model = streamModel([
      { type: "stream-start", warnings: [] },
      { type: "text-start", id: "t1" },
      { type: "text-delta", id: "t1", delta: "par" },
      { type: "error", error: new APICallError({ message: "overloaded", url: "https://x", requestBodyValues: {}, statusCode: 529, isRetryable: true }) },
    ])
    const error = await failureOf(Stream.runDrain(AiSdkDriver.make(model).stream(conversation, { signal: signal() })))
    expect(error).toMatchObject({ _tag: "InferenceFailed", status: 529, retryable: true })
  })
})

// The model's reasoning (issue 25), from the AI SDK's own mock models: V3 on both majors
// (ai 7 adapts it to V4), and V4 itself on ai 7.
const reasoningParts: Array<V3StreamPart> = [
  { type: "stream-start", warnings: [] },
  { type: "response-metadata", id: "resp-1", modelId: "mock-model-1", timestamp: new Date(0) },
  { type: "reasoning-start", id: "r1" },
  { type: "reasoning-delta", id: "r1", delta: "1 + 2 " },
  { type: "reasoning-delta", id: "r1", delta: "is 3." },
  { type: "reasoning-end", id: "r1" },
  { type: "reasoning-start", id: "r2" },
  { type: "reasoning-delta", id: "r2", delta: " Say it." },
  { type: "reasoning-end", id: "r2" },
  { type: "text-start", id: "t1" },
  { type: "text-delta", id: "t1", delta: "three" },
  { type: "text-end", id: "t1" },
  { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage: usage(10, 20) },
]
const reasoningContent: V3GenerateResult["content"] = [
  { type: "reasoning", text: "1 + 2 is 3." },
  { type: "reasoning", text: " Say it." },
  { type: "text", text: "three" },
]

describe("AiSdkDriver reasoning", () => {
  it("gives the reasoning of generate's answer (its step's reasoningText), and none when the model gave none", async () => {
    const response = await generate(AiSdkDriver.make(new MockLanguageModelV3({ doGenerate: result(reasoningContent) })), conversation)
    expect(response).toMatchObject({ text: "three", reasoning: "1 + 2 is 3. Say it." })
    const plain = await generate(AiSdkDriver.make(new MockLanguageModelV3({ doGenerate: result([{ type: "text", text: "x" }]) })), conversation)
    expect("reasoning" in plain).toBe(false)
  })

  it("streams the reasoning deltas as ReasoningDelta parts, and the Finish carries what generate gives", async () => {
    const parts = await Effect.runPromise(Stream.runCollect(AiSdkDriver.make(streamModel(reasoningParts)).stream(conversation, { signal: signal() })))
    expect(parts.map((p) => (p._tag === "Finish" ? "finish" : `${p._tag}:${p._tag === "ToolCall" ? p.toolCall.id : p.text}`))).toEqual([
      "ReasoningDelta:1 + 2 ",
      "ReasoningDelta:is 3.",
      "ReasoningDelta: Say it.",
      "TextDelta:three",
      "finish",
    ])
    const generated = await generate(AiSdkDriver.make(new MockLanguageModelV3({ doGenerate: result(reasoningContent, "stop", [10, 20]) })), conversation)
    const finish = parts.at(-1)
    expect(finish?._tag === "Finish" && { ...finish.response, metadata: {} }).toEqual({ ...generated, metadata: {} })
  })

  if (aiMajor === 7) it("reads the reasoning of a specification v4 model (ai 7's MockLanguageModelV4), generated and streamed", async () => {
    const { MockLanguageModelV4 } = (await import("ai/test")) as unknown as {
      MockLanguageModelV4: new(options: { doGenerate?: unknown; doStream?: unknown }) => Parameters<typeof AiSdkDriver.make>[0]
    }
    const v4 = new MockLanguageModelV4({
      doGenerate: async () => result(reasoningContent),
      doStream: async () => ({ stream: simulateReadableStream({ chunks: reasoningParts as never[] }) }),
    })
    const driver = AiSdkDriver.make(v4)
    expect((await generate(driver, conversation)).reasoning).toBe("1 + 2 is 3. Say it.")
    const parts = await Effect.runPromise(Stream.runCollect(driver.stream(conversation, { signal: signal() })))
    expect(parts.flatMap((p) => (p._tag === "ReasoningDelta" ? [p.text] : [])).join("")).toBe("1 + 2 is 3. Say it.")
    expect(parts.at(-1)).toMatchObject({ _tag: "Finish", response: { reasoning: "1 + 2 is 3. Say it.", text: "three" } })
  })
})

describe("AiSdkDriver errors", () => {
  const secret = "sk-live-very-secret-key-0123456789"
  const apiError = (statusCode: number, isRetryable: boolean, message = "nope") =>
    new APICallError({
      message,
      url: `https://api.example.com/v1/chat/completions?key=${secret}`,
      requestBodyValues: { model: "m", messages: [{ role: "user", content: "hi" }], apiKey: secret },
      statusCode,
      isRetryable,
      responseHeaders: { "x-echo-authorization": `Bearer ${secret}` },
      responseBody: JSON.stringify({ error: { message, key: secret } }),
    })
  const failing = (error: unknown) =>
    new MockLanguageModelV3({
      doGenerate: async () => {
        throw error
      },
    })

  it("gives the status and retryable flag of a provider error", async () => {
    const error = await failureOf(AiSdkDriver.make(failing(apiError(429, true, "Rate limit reached"))).generate(conversation, { signal: signal() }))
    expect(error).toMatchObject({ _tag: "InferenceFailed", status: 429, retryable: true })
    expect(error.message).toContain("Rate limit reached")
    const server = await failureOf(AiSdkDriver.make(failing(apiError(500, false))).generate(conversation, { signal: signal() }))
    expect(server).toMatchObject({ status: 500, retryable: false })
  })

  it("never carries the key, the request body, headers or URL, even when the provider echoes the key", async () => {
    const error = await failureOf(
      AiSdkDriver.make(failing(apiError(401, false, `Incorrect API key provided: ${secret}`))).generate(conversation, { signal: signal() }),
    )
    expect(error.status).toBe(401)
    const everything = JSON.stringify(error) + error.message
    expect(everything).not.toContain(secret)
    expect(everything).not.toContain("very-secret")
    expect(everything).not.toContain("api.example.com")
    expect(everything).not.toContain("\"messages\"")
  })

  it("makes no retries of its own by default (the loop and its hooks own retries)", async () => {
    const model = failing(apiError(503, true))
    const error = await failureOf(AiSdkDriver.make(model).generate(conversation, { signal: signal() }))
    expect(error).toMatchObject({ status: 503, retryable: true })
    expect(model.doGenerateCalls).toHaveLength(1)
  })

  it("wraps anything else as InferenceFailed without status", async () => {
    const error = await failureOf(AiSdkDriver.make(failing(new TypeError("fetch failed"))).generate(conversation, { signal: signal() }))
    expect(error).toMatchObject({ _tag: "InferenceFailed", status: undefined, retryable: false })
    expect(error.message).toContain("fetch failed")
  })
})

describe("AiSdkDriver.usageOf", () => {
  const sdk = (fields: Record<string, unknown>) => fields as unknown as Parameters<typeof AiSdkDriver.usageOf>[0]

  it("reads the details of AI SDK 6 (inputTokenDetails, outputTokenDetails)", () => {
    expect(AiSdkDriver.usageOf(sdk({
      inputTokens: 100,
      outputTokens: 20,
      inputTokenDetails: { noCacheTokens: 40, cacheReadTokens: 60, cacheWriteTokens: undefined },
      outputTokenDetails: { textTokens: 15, reasoningTokens: 5 },
    }))).toStrictEqual({ inputTokens: 100, outputTokens: 20, cachedInputTokens: 60, reasoningTokens: 5 })
  })

  it("falls back to the deprecated flat fields", () => {
    expect(AiSdkDriver.usageOf(sdk({ inputTokens: 100, outputTokens: 20, cachedInputTokens: 30, reasoningTokens: 2 })))
      .toStrictEqual({ inputTokens: 100, outputTokens: 20, cachedInputTokens: 30, reasoningTokens: 2 })
  })

  it("caps details by their totals and drops what is not a count", () => {
    expect(AiSdkDriver.usageOf(sdk({
      inputTokens: 10,
      outputTokens: Number.NaN,
      inputTokenDetails: { cacheReadTokens: 50 },
      outputTokenDetails: { reasoningTokens: 3 },
    }))).toStrictEqual({ inputTokens: 10, outputTokens: 0, cachedInputTokens: 10 })
    expect(AiSdkDriver.usageOf(undefined)).toBe(AiSdkDriver.usageOf(sdk({ inputTokens: 0, outputTokens: 0 })))
  })
})

describe("AiSdkDriver.make model", () => {
  it("names the model and its provider before any call (the provider's family, as the GenAI conventions spell it)", () => {
    const model = new MockLanguageModelV3({ provider: "openai.responses", modelId: "gpt-5-mini" })
    expect(AiSdkDriver.make(model).model).toEqual({ provider: "openai", id: "gpt-5-mini" })
    expect(AiSdkDriver.make("anthropic/claude-sonnet-5").model).toEqual({ provider: "anthropic", id: "claude-sonnet-5" })
  })
})

describe("AiSdkDriver telemetry default", () => {
  it("turns the AI SDK's telemetry off when the driver is given none (no second chat span beside UseTelemetry's), and passes given settings as they are", async () => {
    const Sdk = await import("../src/internal/sdk.js")
    expect(Sdk.callTelemetry(undefined)).toEqual({ isEnabled: false })
    const given = { functionId: "support" } as never
    expect(Sdk.callTelemetry(given)).toBe(given)
  })
})
