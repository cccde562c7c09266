import { createOpenAI } from "@ai-sdk/openai"
import * as Ai from "ai"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { HookContext, StopSignal, type AgentState, type HookTrigger } from "@hookline/core"
import { Agent, AgentBuilder, Tool, UseDriver, UseHook, UseTools } from "@hookline/agent"
import { AiSdkDriver } from "@hookline/ai-sdk"
import { Output } from "@hookline/middleware"
import { apiKey, reply, serverPerTest } from "./support/openaiServer.js"
import { aiMajor } from "./support/specModels.js"

const server = serverPerTest()

let added = 0
const add = Tool.make({
  name: "add",
  description: "Adds two numbers",
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => {
    added++
    return a + b
  },
})

const driver = () => AiSdkDriver.make(createOpenAI({ baseURL: server.baseURL, apiKey }).chat("gpt-4o-mini"))

// An OpenTelemetry tracer that records the names of the spans it starts (ai 6's `tracer` setting).
const tracer = (spans: Array<string>) => {
  const span: Record<string, unknown> = {
    spanContext: () => ({ traceId: "0".repeat(32), spanId: "0".repeat(16), traceFlags: 0 }),
    isRecording: () => true,
    end: () => {},
    recordException: () => {},
  }
  for (const method of ["setAttribute", "setAttributes", "addEvent", "addLink", "addLinks", "setStatus", "updateName"]) span[method] = () => span
  return {
    startSpan: (name: string) => (spans.push(name), span),
    startActiveSpan: (name: string, ...rest: Array<unknown>) => (spans.push(name), (rest.at(-1) as (s: unknown) => unknown)(span)),
  }
}

const on = (trigger: HookTrigger, name: string) => ({ triggers: trigger, name })

const messages = (state: AgentState) =>
  [...state.context.messages].map((m) =>
    m.role === "assistant" && m.toolCalls.length > 0
      ? `assistant:${m.toolCalls.map((c) => `${c.name}(${JSON.stringify(c.arguments)})`).join(",")}`
      : `${m.role}:${m.content}`
  )

// The run through agent.stream: the driver's stream form, deltas as events.
const runStreamed = async (agent: Agent, input: string, options?: { signal: AbortSignal }) => {
  let final: AgentState | undefined
  for await (const event of agent.stream(input, options)) if (event._tag === "RunEnded") final = event.state
  if (final === undefined) throw new Error("the stream ended without RunEnded")
  return final
}

describe.each([
  ["generate", (agent: Agent, input: string, options?: { signal: AbortSignal }) => agent.run(input, options)],
  ["stream", runStreamed],
] as const)("AiSdkDriver over HTTP (%s)", (mode, run) => {
  it("runs a tool call round trip: the second request carries the tool result", async () => {
    added = 0
    server.script(reply.toolCalls({ id: "call_1", name: "add", arguments: { a: 2, b: 3 } }), reply.text("The sum is 5."))
    const final = await run(AgentBuilder.make(UseDriver(driver()), UseTools([add])), "what is 2+3?")
    expect(final.execution.status).toBe("completed")
    expect(messages(final)).toEqual(["user:what is 2+3?", "assistant:add({\"a\":2,\"b\":3})", "tool:5", "assistant:The sum is 5."])
    expect(added).toBe(1)
    expect(server.requests).toHaveLength(2)
    const [first, second] = server.requests.map((r) => r.body)
    expect(first.model).toBe("gpt-4o-mini")
    expect(first.stream ?? false).toBe(mode === "stream")
    expect(first.tools).toEqual([{
      type: "function",
      function: {
        name: "add",
        description: "Adds two numbers",
        parameters: expect.objectContaining({ type: "object", properties: { a: expect.anything(), b: expect.anything() } }),
        ...(first.tools[0].function.strict === undefined ? {} : { strict: first.tools[0].function.strict }),
      },
    }])
    expect(second.messages).toEqual([
      { role: "user", content: "what is 2+3?" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_1", type: "function", function: { name: "add", arguments: "{\"a\":2,\"b\":3}" } }],
      },
      { role: "tool", tool_call_id: "call_1", content: "5" },
    ])
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${apiKey}`)
    const usage = [...final.execution.steps].map((s) => s.usage)
    expect(usage[0]).toEqual({ inputTokens: 11, outputTokens: 7 })
  })

  it("maps cached input and reasoning tokens from the provider's usage details onto the steps and the run", async () => {
    added = 0
    server.script(
      reply.toolCalls({ id: "call_1", name: "add", arguments: { a: 1, b: 2 } }),
      reply.text("3", { prompt: 1500, completion: 40, cached: 1024, reasoning: 16 }),
    )
    const final = await run(AgentBuilder.make(UseDriver(driver()), UseTools([add])), "1+2?")
    expect(final.execution.status).toBe("completed")
    // The first reply has no details (the server's default usage): no detail keys.
    expect([...final.execution.steps].map((s) => s.usage)).toStrictEqual([
      { inputTokens: 11, outputTokens: 7 },
      { inputTokens: 1500, outputTokens: 40, cachedInputTokens: 1024, reasoningTokens: 16 },
    ])
    expect(final.execution.usage).toStrictEqual({ inputTokens: 1511, outputTokens: 47, cachedInputTokens: 1024, reasoningTokens: 16 })
  })

  it("passes the AI SDK call settings through: headers, provider options, telemetry", async () => {
    server.script(reply.text("hi"))
    // A telemetry integration given with the call: both majors send it the call's start.
    const starts: Array<unknown> = []
    const integration = { onStart: (event: { readonly functionId?: string | undefined }) => void starts.push(event.functionId) }
    const spans: Array<string> = []
    const model = createOpenAI({ baseURL: server.baseURL, apiKey }).chat("gpt-4o-mini")
    const settings = AiSdkDriver.make(model, {
      headers: { "x-tenant": "acme", "x-request-source": "hookline-test" },
      providerOptions: { openai: { user: "user-42" } },
      // ai 6 also makes OpenTelemetry spans with a given tracer; ai 7 has no tracer setting.
      telemetry: { isEnabled: true, functionId: "support-agent", integrations: [integration], ...(aiMajor === 6 ? { tracer: tracer(spans) } : {}) } as never,
    })
    const final = await run(AgentBuilder.make(UseDriver(settings)), "hello")
    expect(final.execution.status).toBe("completed")
    const seen = server.requests[0]!
    expect(seen.headers["x-tenant"]).toBe("acme")
    expect(seen.headers["x-request-source"]).toBe("hookline-test")
    expect(seen.body.user).toBe("user-42")
    expect(starts).toEqual(["support-agent"])
    if (aiMajor === 6) expect(spans).toContain(mode === "generate" ? "ai.generateText" : "ai.streamText")
  })

  // ai 7 only (the CI leg of AI SDK 7 runs it): its telemetry goes to registered integrations.
  if (aiMajor === 7) it("ai 7: telemetry settings reach an integration registered with registerTelemetry", async () => {
    server.script(reply.text("hi"))
    const starts: Array<unknown> = []
    const register = (Ai as unknown as { registerTelemetry: (...integrations: ReadonlyArray<unknown>) => void }).registerTelemetry
    register({ onStart: (event: { readonly functionId?: string }) => void starts.push(event.functionId) })
    try {
      const model = createOpenAI({ baseURL: server.baseURL, apiKey }).chat("gpt-4o-mini")
      const final = await run(AgentBuilder.make(UseDriver(AiSdkDriver.make(model, { telemetry: { functionId: "support-agent" } }))), "hello")
      expect(final.execution.status).toBe("completed")
      expect(starts).toEqual(["support-agent"])
    } finally {
      // The registry is global: leave none behind for the other tests.
      ;(globalThis as { AI_SDK_TELEMETRY_INTEGRATIONS?: unknown }).AI_SDK_TELEMETRY_INTEGRATIONS = undefined
    }
  })

  it("structured output: the schema goes as response_format json_schema, the JSON answer decodes", async () => {
    const answer = Output.make(z.object({ city: z.string(), population: z.number() }), { retries: 1 })
    server.script(reply.text("{\"city\":\"Tokyo\",\"population\":\"many\"}"), reply.text("{\"city\":\"Tokyo\",\"population\":37400068}"))
    const final = await run(AgentBuilder.make(UseDriver(driver()), answer.use), "Largest city?")
    expect(final.execution.status).toBe("completed")
    expect(await answer.value(final)).toEqual({ city: "Tokyo", population: 37400068 })
    expect(server.requests).toHaveLength(2) // the first answer did not decode: fed back once
    const format = server.requests[0]!.body.response_format
    expect(format).toMatchObject({ type: "json_schema", json_schema: { schema: { type: "object", properties: { city: expect.anything(), population: expect.anything() } } } })
    expect(server.requests[1]!.body.messages.at(-1)).toMatchObject({ role: "user", content: expect.stringContaining("population") })
  })

  it("fires hooks: a BeforeToolUse block reaches the model as a tool message", async () => {
    added = 0
    server.script(reply.toolCalls({ id: "call_9", name: "add", arguments: { a: 1, b: 1 } }), reply.text("ok, I won't."))
    const block = (ctx: HookContext) => HookContext.withToolExecutionBlocked(ctx, "adding is not allowed today")
    const final = await run(
      AgentBuilder.make(UseDriver(driver()), UseTools([add]), UseHook(block, on("BeforeToolUse", "test:block"))),
      "add 1 and 1",
    )
    expect(added).toBe(0)
    expect(final.execution.status).toBe("completed")
    const toolMessage = server.requests[1]!.body.messages[2]
    expect(toolMessage).toMatchObject({ role: "tool", tool_call_id: "call_9" })
    expect(toolMessage.content).toContain("adding is not allowed today")
  })

  it("429: InferenceFailed with status 429, retryable, and the run ends failed", async () => {
    server.script(reply.status(429, "Rate limit reached for gpt-4o-mini", { "retry-after": "1" }))
    const final = await run(AgentBuilder.make(UseDriver(driver())), "hi")
    expect(final.execution.status).toBe("failed")
    expect(final.execution.errors).toEqual([expect.objectContaining({ _tag: "InferenceFailed", status: 429, retryable: true })])
    expect(server.requests).toHaveLength(1) // no hidden SDK retries
  })

  it("429 handled by an OnError hook: the loop retries and completes", async () => {
    server.script(reply.status(429, "Rate limit reached", { "retry-after": "0" }), reply.text("second try"))
    const retry = (ctx: HookContext) =>
      ctx.errors.every((e) => e._tag === "InferenceFailed" && e.retryable) ? HookContext.markErrorsHandled(ctx) : ctx
    const final = await run(AgentBuilder.make(UseDriver(driver()), UseHook(retry, on("OnError", "test:retry"))), "hi")
    expect(final.execution.status).toBe("completed")
    expect(messages(final)).toEqual(["user:hi", "assistant:second try"])
    expect(server.requests).toHaveLength(2)
  })

  it("500: InferenceFailed with status 500", async () => {
    server.script(reply.status(500, "The server had an error"))
    const final = await run(AgentBuilder.make(UseDriver(driver())), "hi")
    expect(final.execution.status).toBe("failed")
    expect(final.execution.errors).toEqual([expect.objectContaining({ _tag: "InferenceFailed", status: 500, retryable: true })])
  })

  it("401: the error never carries the API key", async () => {
    server.script(reply.status(401, `Incorrect API key provided: ${apiKey}. You can find your API key at https://example.com.`))
    const final = await run(AgentBuilder.make(UseDriver(driver())), "hi")
    expect(final.execution.status).toBe("failed")
    const [error] = final.execution.errors
    expect(error).toMatchObject({ _tag: "InferenceFailed", status: 401, retryable: false })
    expect(JSON.stringify(final.execution)).not.toContain(apiKey)
    expect(JSON.stringify(final.execution)).not.toContain("test-secret")
  })

  it("a malformed body: InferenceFailed", async () => {
    server.script(reply.malformed())
    const final = await run(AgentBuilder.make(UseDriver(driver())), "hi")
    expect(final.execution.status).toBe("failed")
    expect(final.execution.errors).toEqual([expect.objectContaining({ _tag: "InferenceFailed" })])
  })
})

describe("AiSdkDriver over HTTP (stream only)", () => {
  it("streams text deltas as events", async () => {
    server.script(reply.text("Hello there, world"))
    const deltas: Array<string> = []
    for await (const event of AgentBuilder.make(UseDriver(driver())).stream("hi")) {
      if (event._tag === "TextDelta") deltas.push(event.text)
    }
    expect(deltas.join("")).toBe("Hello there, world")
    expect(deltas.length).toBeGreaterThan(1)
    expect(server.requests[0]!.body.stream).toBe(true)
  })

  it("a connection cut mid-stream: InferenceFailed", async () => {
    server.script(reply.cutMidStream("Hel"))
    const final = await runStreamed(AgentBuilder.make(UseDriver(driver())), "hi")
    expect(final.execution.status).toBe("failed")
    expect(final.execution.errors).toEqual([expect.objectContaining({ _tag: "InferenceFailed" })])
  })

  it("the abort signal closes the connection; the run ends stopped with UserRequested", async () => {
    server.script(reply.hang("thinking"))
    const controller = new AbortController()
    const running = runStreamed(AgentBuilder.make(UseDriver(driver())), "hi", { signal: controller.signal })
    await server.request(1)
    controller.abort()
    await server.hungUpSocketClosed()
    const final = await running
    expect(final.execution.status).toBe("stopped")
    expect(StopSignal.highest(final.execution.stopSignals)?.reason).toBe("UserRequested")
  })
})

describe("AiSdkDriver over HTTP (generate only)", () => {
  it("the abort signal closes the connection; the run ends stopped with UserRequested", async () => {
    server.script(reply.hang(""))
    const controller = new AbortController()
    const running = AgentBuilder.make(UseDriver(driver())).run("hi", { signal: controller.signal })
    await server.request(1)
    controller.abort()
    await server.hungUpSocketClosed()
    const final = await running
    expect(final.execution.status).toBe("stopped")
    expect(StopSignal.highest(final.execution.stopSignals)?.reason).toBe("UserRequested")
  })
})
