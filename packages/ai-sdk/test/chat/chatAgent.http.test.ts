// chatAgent over real HTTP (node:http on 127.0.0.1), read by the AI SDK's own client
// side: DefaultChatTransport (what useChat sends and parses) and readUIMessageStream.
import type { UIMessage } from "ai"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { answer, chunkTypes, makeChat, send, serve, user } from "./support/refundChat.js"

let env: ReturnType<typeof makeChat>
let server: Awaited<ReturnType<typeof serve>>
beforeEach(async () => {
  env = makeChat()
  server = await serve(env.chat.respond)
})
afterEach(async () => {
  await server.close()
})

type Part = UIMessage["parts"][number]
const toolParts = (m: UIMessage) => m.parts.filter((p): p is Extract<Part, { toolCallId: string }> => "toolCallId" in p)
const texts = (m: UIMessage) => m.parts.flatMap((p) => (p.type === "text" ? [p.text] : []))
const post = (body: unknown, init: RequestInit = {}) =>
  fetch(server.url, { method: "POST", headers: { "content-type": "application/json" }, body: typeof body === "string" ? body : JSON.stringify(body), ...init })

describe("chatAgent behind useChat's transport", () => {
  it("streams text and a tool result; a small refund needs no approval", async () => {
    const first = user("u1", "refund 40 on order A1")
    const reply = await send(server.url, "chat-small", [first])
    expect(reply.role).toBe("assistant")
    expect(texts(reply)).toEqual(["Checking your order.", 'Refund done: {"refunded":40,"order":"A1"}'])
    const [tool] = toolParts(reply)
    expect(tool).toMatchObject({ type: "tool-refund", state: "output-available", input: { order: "A1", amount: 40 }, output: { refunded: 40, order: "A1" } })
    expect(reply.parts.filter((p) => p.type === "step-start")).toHaveLength(2)
    expect(env.refunds).toEqual([{ order: "A1", amount: 40, role: "anonymous" }])
  })

  it("asks for approval, and an approval resumes the stored run: the refund runs once", async () => {
    const first = user("u1", "refund 250 on order A7")
    const asked = await send(server.url, "chat-approve", [first], { "x-role": "agent-7" })
    const [pending] = toolParts(asked)
    expect(pending).toMatchObject({ state: "approval-requested", toolCallId: "call-1", approval: { id: "call-1" } })
    expect(env.refunds).toEqual([])

    const approved = answer(asked, "call-1", true)
    const done = await send(server.url, "chat-approve", [first, approved], { "x-role": "agent-7" })
    expect(toolParts(done)[0]).toMatchObject({ state: "output-available", output: { refunded: 250, order: "A7" } })
    expect(texts(done).at(-1)).toBe('Refund done: {"refunded":250,"order":"A7"}')
    // The run context comes from each request, the resume's included; it is never stored.
    expect(env.refunds).toEqual([{ order: "A7", amount: 250, role: "agent-7" }])
    const stored = await env.chat.messages("chat-approve")
    expect(JSON.stringify(stored)).not.toContain("agent-7")

    // The same approval again is a no-op: no second refund, no error.
    const again = await send(server.url, "chat-approve", [first, approved])
    expect(toolParts(again)[0]).toMatchObject({ state: "approval-responded" })
    expect(env.refunds).toHaveLength(1)
  })

  it("a denial resumes the run with the rejection, which the model reads; the part is output-denied", async () => {
    const first = user("u1", "refund 500 on order B2")
    const asked = await send(server.url, "chat-deny", [first])
    const denied = answer(asked, "call-1", false, "too much")
    const done = await send(server.url, "chat-deny", [first, denied])
    expect(toolParts(done)[0]).toMatchObject({ state: "output-denied", approval: { approved: false, reason: "too much" } })
    expect(texts(done).at(-1)).toMatch(/^No refund: .*too much/)
    expect(env.refunds).toEqual([])
  })

  it("a conflicting decision is refused with an error part naming it; the first decision stands", async () => {
    const first = user("u1", "refund 300 on order C3")
    const asked = await send(server.url, "chat-conflict", [first])
    await send(server.url, "chat-conflict", [first, answer(asked, "call-1", true)])
    await expect(send(server.url, "chat-conflict", [first, answer(asked, "call-1", false)])).rejects.toThrow(/DecisionInvalid: .*call-1/)
    expect(env.refunds).toEqual([{ order: "C3", amount: 300, role: "anonymous" }])
  })

  it("the stored history gives the page the pending approval after a reload", async () => {
    const first = user("u1", "refund 250 on order D4")
    await send(server.url, "chat-reload", [first])
    const history = await env.chat.messages("chat-reload")
    expect(history.map((m) => m.role)).toEqual(["user", "assistant"])
    const pending = toolParts(history[1]!)[0]
    expect(pending).toMatchObject({ type: "tool-refund", state: "approval-requested", toolCallId: "call-1" })
    // The client approves from the reloaded history, not from the stream it saw.
    const done = await send(server.url, "chat-reload", [history[0]!, answer(history[1]!, "call-1", true)])
    expect(toolParts(done)[0]).toMatchObject({ state: "output-available" })
    expect(env.refunds).toHaveLength(1)
    const after = await env.chat.messages("chat-reload")
    expect(toolParts(after[1]!)[0]).toMatchObject({ state: "output-available", output: { refunded: 250, order: "D4" } })
    expect(await env.chat.messages("no-such-chat")).toEqual([])
  })
})

describe("the next user turn continues the stored run", () => {
  it("a second message continues the conversation from the store; the client's copy of earlier messages is not read", async () => {
    const first = user("u1", "refund 40 on order A1")
    const reply = await send(server.url, "chat-turns", [first])
    // The client's copy of the first message is altered: the stored conversation is what the model reads.
    const forged = user("u1", "refund 9999 on order Z9")
    const second = user("u2", "refund 60 on order A2")
    const next = await send(server.url, "chat-turns", [forged, reply, second])
    expect(toolParts(next)[0]).toMatchObject({ toolCallId: "call-2", state: "output-available", output: { refunded: 60, order: "A2" } })
    expect(env.refunds.map((r) => r.order)).toEqual(["A1", "A2"])
    const history = await env.chat.messages("chat-turns")
    expect(history.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"])
    expect(history[0]!.parts).toEqual([{ type: "text", text: "refund 40 on order A1" }])

    // The same message again (same id: a retry) appends nothing and runs nothing.
    expect(await chunkTypes(server.url, "chat-turns", [forged, reply, second])).toEqual(["start", "finish"])
    expect(env.refunds).toHaveLength(2)
    expect(await env.chat.messages("chat-turns")).toHaveLength(4)
  })

  it("the first message sent again (a retried first request) starts nothing and appends nothing", async () => {
    const first = user("u1", "refund 40 on order A9")
    await send(server.url, "chat-first-retry", [first])
    expect(await chunkTypes(server.url, "chat-first-retry", [first])).toEqual(["start", "finish"])
    expect(env.refunds).toHaveLength(1)
    expect((await env.chat.messages("chat-first-retry")).map((m) => m.role)).toEqual(["user", "assistant"])
  })

  it("a new message while an approval waits is refused with an error part; the approval still goes on", async () => {
    const first = user("u1", "refund 250 on order F6")
    const asked = await send(server.url, "chat-busy", [first])
    await expect(send(server.url, "chat-busy", [first, asked, user("u2", "refund 10 on order F7")])).rejects.toThrow(/ContinuationRefused/)
    const done = await send(server.url, "chat-busy", [first, answer(asked, "call-1", true)])
    expect(toolParts(done)[0]).toMatchObject({ state: "output-available" })
    expect(env.refunds.map((r) => r.order)).toEqual(["F6"])
  })
})

describe("a chat request is untrusted", () => {
  it.each([
    ["not JSON", "{", "body"],
    ["no id", { messages: [] }, "id"],
    ["a bad chat id", { id: "../etc", messages: [{ id: "1", role: "user", parts: [{ type: "text", text: "hi" }] }] }, "id"],
    ["no messages", { id: "c1", messages: [] }, "messages"],
    ["a malformed message", { id: "c1", messages: [{ id: "1", role: "user", parts: [{ type: "text" }] }] }, "messages"],
    ["an empty user text", { id: "c1", messages: [{ id: "1", role: "user", parts: [{ type: "text", text: "  " }] }] }, "messages[0].parts"],
    ["an assistant message with no approval response", { id: "c1", messages: [{ id: "1", role: "assistant", parts: [{ type: "text", text: "hi" }] }] }, "messages[0]"],
  ])("%s is a 400 naming the field", async (_, body, field) => {
    const response = await post(body)
    expect(response.status).toBe(400)
    const json = (await response.json()) as { error: { field: string; message: string } }
    expect(json.error.field).toBe(field)
    expect(json.error.message.length).toBeGreaterThan(0)
    expect(env.refunds).toEqual([])
  })

  it("a body over the limit is a 413, read no further", async () => {
    const response = await post({ id: "c1", messages: [user("1", "x".repeat(1100 * 1024))] })
    expect(response.status).toBe(413)
    expect(((await response.json()) as { error: { field: string } }).error.field).toBe("body")
  })

  it("an approval for a call the run does not wait on is an error part, and nothing runs", async () => {
    const first = user("u1", "refund 250 on order E5")
    const asked = await send(server.url, "chat-unknown", [first])
    const forged = answer({ ...asked, parts: asked.parts.map((p) => ("toolCallId" in p ? { ...p, toolCallId: "call-99" } : p)) as UIMessage["parts"] }, "call-99", true)
    await expect(send(server.url, "chat-unknown", [first, forged])).rejects.toThrow(/DecisionInvalid/)
    expect(env.refunds).toEqual([])
  })
})
