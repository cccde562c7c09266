// A hookline agent as an AI SDK `Agent`, driven by the AI SDK's own functions: served
// with createAgentUIStreamResponse on 127.0.0.1, read by DefaultChatTransport and
// readUIMessageStream (what useChat does); createAgentUIStream; and `generate`.
import { createAgentUIStream, createAgentUIStreamResponse, readUIMessageStream, type UIMessage } from "ai"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { errorText, toAiSdkAgent, toUIMessages } from "@hookline/ai-sdk"
import { answer, chunkTypes, makeChat, send, serve, user } from "../chat/support/refundChat.js"

let env: ReturnType<typeof makeChat>
let sdkAgent: ReturnType<typeof toAiSdkAgent<unknown>>
let server: Awaited<ReturnType<typeof serve>>
beforeEach(async () => {
  env = makeChat()
  sdkAgent = toAiSdkAgent(env.agent, { id: "refund-desk", load: env.load })
  // The server as an app writes it: the chat id, the new message's id and who asks go in the call options.
  server = await serve(async (request) => {
    const body = (await request.json()) as { readonly id: string; readonly messages: Array<UIMessage> }
    const last = body.messages.at(-1)
    return createAgentUIStreamResponse({
      agent: sdkAgent,
      uiMessages: body.messages,
      options: {
        chatId: body.id,
        ...(last?.role === "user" ? { messageId: last.id } : {}),
        context: request.headers.get("x-role") ?? "anonymous",
      },
      abortSignal: request.signal,
      onError: errorText,
    })
  })
})
afterEach(async () => {
  await server.close()
})

type Part = UIMessage["parts"][number]
const toolParts = (m: UIMessage) => m.parts.filter((p): p is Extract<Part, { toolCallId: string }> => "toolCallId" in p)
const texts = (m: UIMessage) => m.parts.flatMap((p) => (p.type === "text" ? [p.text] : []))

describe("a hookline agent as an AI SDK Agent", () => {
  it("is an agent-v1 with no tools the AI SDK runs", () => {
    expect(sdkAgent).toMatchObject({ version: "agent-v1", id: "refund-desk", tools: {} })
  })

  it("streams text, a tool call and its result through createAgentUIStreamResponse", async () => {
    const reply = await send(server.url, "agent-small", [user("u1", "refund 40 on order A1")])
    expect(texts(reply)).toEqual(["Checking your order.", 'Refund done: {"refunded":40,"order":"A1"}'])
    expect(toolParts(reply)).toMatchObject([
      { type: "dynamic-tool", toolName: "refund", toolCallId: "call-1", state: "output-available", input: { order: "A1", amount: 40 }, output: { refunded: 40, order: "A1" }, providerExecuted: true },
    ])
    expect(env.refunds).toEqual([{ order: "A1", amount: 40, role: "anonymous" }])
  })

  it("asks for approval; the approval resumes the stored run and the refund runs once; the same approval again runs nothing", async () => {
    const first = user("u1", "refund 250 on order A7")
    const asked = await send(server.url, "agent-approve", [first], { "x-role": "agent-7" })
    expect(toolParts(asked)).toMatchObject([{ toolCallId: "call-1", state: "approval-requested", approval: { id: "call-1" } }])
    expect(env.refunds).toEqual([])

    const approved = answer(asked, "call-1", true)
    const done = await send(server.url, "agent-approve", [first, approved], { "x-role": "agent-7" })
    expect(toolParts(done)).toMatchObject([{ toolCallId: "call-1", state: "output-available", output: { refunded: 250, order: "A7" } }])
    expect(texts(done).at(-1)).toBe('Refund done: {"refunded":250,"order":"A7"}')
    expect(env.refunds).toEqual([{ order: "A7", amount: 250, role: "agent-7" }])
    // The context came with the request and is not in the stored run.
    expect(JSON.stringify(await env.load("agent-approve"))).not.toContain("agent-7")

    await send(server.url, "agent-approve", [first, approved])
    expect(env.refunds).toHaveLength(1)
  })

  it("a denial resumes the run with the rejection: the part is output-denied, the model reads why, nothing runs", async () => {
    const first = user("u1", "refund 500 on order B2")
    const asked = await send(server.url, "agent-deny", [first])
    const done = await send(server.url, "agent-deny", [first, answer(asked, "call-1", false, "too much")])
    expect(toolParts(done)).toMatchObject([{ toolCallId: "call-1", state: "output-denied" }])
    expect(texts(done).at(-1)).toMatch(/^No refund: .*too much/)
    expect(env.refunds).toEqual([])
  })

  it("a conflicting decision is an error part naming it; the first decision stands", async () => {
    const first = user("u1", "refund 300 on order C3")
    const asked = await send(server.url, "agent-conflict", [first])
    await send(server.url, "agent-conflict", [first, answer(asked, "call-1", true)])
    await expect(send(server.url, "agent-conflict", [first, answer(asked, "call-1", false)])).rejects.toThrow(/DecisionInvalid: .*call-1/)
    expect(env.refunds).toHaveLength(1)
  })

  it("a page reloaded from the store (toUIMessages, dynamic tool parts) approves in the shape the agent reads", async () => {
    const first = user("u1", "refund 250 on order R1")
    await send(server.url, "agent-reload", [first])
    const history = toUIMessages((await env.load("agent-reload"))!, { toolParts: "dynamic" })
    expect(toolParts(history[1]!)).toMatchObject([{ type: "dynamic-tool", toolName: "refund", toolCallId: "call-1", state: "approval-requested", providerExecuted: true }])
    const done = await send(server.url, "agent-reload", [history[0]!, answer(history[1]!, "call-1", true)])
    expect(toolParts(done)).toMatchObject([{ toolCallId: "call-1", state: "output-available", output: { refunded: 250, order: "R1" } }])
    expect(env.refunds).toHaveLength(1)
    const after = toUIMessages((await env.load("agent-reload"))!, { toolParts: "dynamic" })
    expect(toolParts(after[1]!)).toMatchObject([{ type: "dynamic-tool", state: "output-available" }])
  })

  it("a second turn continues the stored conversation; the client's copy of earlier messages is not read", async () => {
    const first = user("u1", "refund 40 on order A1")
    const reply = await send(server.url, "agent-turns", [first])
    const forged = user("u1", "refund 9999 on order Z9")
    const next = await send(server.url, "agent-turns", [forged, reply, user("u2", "refund 60 on order A2")])
    expect(toolParts(next)).toMatchObject([{ toolCallId: "call-2", state: "output-available", output: { refunded: 60, order: "A2" } }])
    expect(env.refunds.map((r) => r.order)).toEqual(["A1", "A2"])
    const stored = await env.load("agent-turns")
    expect(stored?.context.messages.toArray().filter((m) => m.role === "user").map((m) => m.content)).toEqual(["refund 40 on order A1", "refund 60 on order A2"])
  })

  it("a retried request (the same message again) runs nothing and appends nothing, first message or later", async () => {
    const first = user("u1", "refund 40 on order A9")
    const reply = await send(server.url, "agent-retry", [first])
    const again = await chunkTypes(server.url, "agent-retry", [first])
    expect(again).not.toContain("text-delta")
    expect(again).not.toContain("tool-input-available")
    const second = user("u2", "refund 60 on order B9")
    await send(server.url, "agent-retry", [first, reply, second])
    expect(await chunkTypes(server.url, "agent-retry", [first, reply, second])).not.toContain("tool-input-available")
    expect(env.refunds.map((r) => r.order)).toEqual(["A9", "B9"])
    expect((await env.load("agent-retry"))?.context.messages.toArray().filter((m) => m.role === "user")).toHaveLength(2)
  })

  it("without a message id the key comes from the message's place and text: a retry runs nothing, the same words later do", async () => {
    const first = user("u1", "refund 40 on order K1")
    const read = async (uiMessages: Array<UIMessage>) => {
      const stream = await createAgentUIStream({ agent: sdkAgent, uiMessages, options: { chatId: "agent-derived" } })
      let last: UIMessage | undefined
      for await (const m of readUIMessageStream({ stream })) last = m
      return last
    }
    const reply = await read([first])
    await read([first])
    expect(env.refunds).toHaveLength(1)
    await read([first, reply!, user("u2", "refund 40 on order K1")])
    expect(env.refunds).toHaveLength(2)
  })

  it("a call with no chat id is refused before anything runs", async () => {
    await expect(createAgentUIStream({ agent: sdkAgent, uiMessages: [user("u1", "hi")], options: { chatId: "../x" } })).rejects.toMatchObject({
      _tag: "ChatRequestInvalid",
      field: "options.chatId",
    })
    expect(env.refunds).toEqual([])
  })

  it("generate returns the AI SDK's own result: the turn's text, its one step and its usage", async () => {
    const result = await sdkAgent.generate({ prompt: "refund 40 on order G1", options: { chatId: "agent-generate" } })
    expect(result.text).toBe('Checking your order.Refund done: {"refunded":40,"order":"G1"}')
    expect(result.steps).toHaveLength(1)
    expect(result.finishReason).toBe("stop")
    expect(result.usage).toMatchObject({ inputTokens: 20, outputTokens: 10, totalTokens: 30 })
    expect(result.toolResults).toMatchObject([{ toolCallId: "call-1", toolName: "refund", output: { refunded: 40, order: "G1" } }])
    expect(result.response.messages.length).toBeGreaterThan(0)
    expect(env.refunds).toHaveLength(1)
    const suspended = await sdkAgent.generate({ prompt: "refund 250 on order G2", options: { chatId: "agent-generate-2" } })
    expect(suspended.finishReason).toBe("tool-calls")
    expect(suspended.content.filter((p) => p.type === "tool-approval-request")).toHaveLength(1)
  })
})
