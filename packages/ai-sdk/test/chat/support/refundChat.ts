// The test chat: a refund agent on the scripted model, its runs in a MemoryStore, behind
// `chatAgent` on a node:http server on 127.0.0.1; and a client that talks to it as
// useChat does (the AI SDK's DefaultChatTransport, read with readUIMessageStream).
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { Readable } from "node:stream"
import { AgentBuilder, Tool, UseDriver, UseTools } from "@hookline/agent"
import type { AgentState, Json } from "@hookline/core"
import { UseApproval } from "@hookline/middleware"
import { MemoryStore, RunStore, UseCheckpoints } from "@hookline/store"
import { ScriptedDriver } from "@hookline/testing"
import { DefaultChatTransport, readUIMessageStream, type UIMessage } from "ai"
import * as t from "io-ts"
import { chatAgent } from "@hookline/ai-sdk"

const amountOf = (args: Json.JsonValue): number => {
  const amount = typeof args === "object" && args !== null && !Array.isArray(args) ? (args as { readonly [key: string]: Json.JsonValue })["amount"] : undefined
  return typeof amount === "number" ? amount : Infinity
}

export const makeChat = (options: {
  readonly role?: string
  readonly store?: RunStore.RunStore
  /** Awaited by the refund tool before it refunds: a test holds a turn mid-run with it. */
  readonly hold?: () => Promise<void>
  /** Replaces the chat's loader (a test wraps the store's, e.g. to line up two requests). */
  readonly load?: (load: (id: string) => Promise<AgentState | undefined>) => (id: string) => Promise<AgentState | undefined>
  readonly busyTimeout?: number
} = {}) => {
  const refunds: Array<{ readonly order: string; readonly amount: number; readonly role: unknown }> = []
  let calls = 0
  const refund = Tool.make({
    name: "refund",
    description: "Refunds an amount on an order",
    parameters: t.type({ order: t.string, amount: t.number }),
    execute: async ({ order, amount }, context) => {
      await options.hold?.()
      refunds.push({ order, amount, role: context.runContext })
      return { refunded: amount, order }
    },
  })
  // Asks for the refund the user wrote ("refund 250 on order A7"), then says what came back.
  const model = ScriptedDriver.make([
    ScriptedDriver.respond((request) => {
      const last = request.messages.toArray().at(-1)
      if (last?.role === "tool") {
        const text = last.isError ? `No refund: ${last.content}` : `Refund done: ${last.content}`
        return ScriptedDriver.text(text, { chunks: [text.slice(0, 8), text.slice(8)] })
      }
      const asked = last?.role === "user" ? last.content : ""
      const amount = Number(/(\d+)/.exec(asked)?.[1] ?? "0")
      const order = /order\s+(\w+)/i.exec(asked)?.[1] ?? "unknown"
      return ScriptedDriver.toolCalls([{ id: `call-${++calls}`, name: "refund", arguments: { order, amount } }], {
        text: "Checking your order.",
        chunks: ["Checking ", "your order."],
      })
    }),
  ], { repeatLast: true, usage: { inputTokens: 10, outputTokens: 5 } })
  const store = options.store ?? MemoryStore.make()
  const agent = AgentBuilder.make(
    UseDriver(model),
    UseTools([refund]),
    UseApproval({ when: (call) => call.name === "refund" && amountOf(call.arguments) > 100, reason: () => "above the limit of 100" }),
    UseCheckpoints(store),
  )
  const stored = (id: string) => RunStore.load(store, id).then((saved) => saved?.state)
  const load = options.load?.(stored) ?? stored
  const chat = chatAgent(agent, {
    load,
    ...(options.busyTimeout === undefined ? {} : { busyTimeout: options.busyTimeout }),
    context: (request) => request?.headers.get("x-role") ?? options.role ?? "anonymous",
  })
  return { chat, agent, load, stored, store, refunds }
}

/** A node:http server on 127.0.0.1 that hands each request to `respond` as a fetch Request. */
export const serve = async (respond: (request: Request) => Promise<Response>): Promise<{ readonly url: string; readonly close: () => Promise<void> }> => {
  const server: Server = createServer((req, res) => {
    const abort = new AbortController()
    res.on("close", () => {
      if (!res.writableFinished) abort.abort()
    })
    const request = new Request(`http://127.0.0.1${req.url ?? "/"}`, {
      method: req.method ?? "GET",
      headers: Object.entries(req.headers).flatMap(([k, v]) => (typeof v === "string" ? [[k, v] as [string, string]] : [])),
      body: req.method === "GET" || req.method === "HEAD" ? null : (Readable.toWeb(req) as ReadableStream<Uint8Array>),
      signal: abort.signal,
      duplex: "half",
    } as RequestInit)
    void respond(request).then(async (response) => {
      res.writeHead(response.status, Object.fromEntries(response.headers))
      // A body the handler refused unread: the connection is dropped after the answer, not drained.
      const finish = () => res.end(() => req.complete || req.destroy())
      if (response.body === null) return finish()
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) res.write(chunk)
      finish()
    }, (error: unknown) => {
      res.writeHead(500).end(String(error))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/api/chat`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/** Sends the messages as useChat does and reads the answer into one UI message (the last assistant message when it continues one). */
export const send = async (url: string, chatId: string, messages: Array<UIMessage>, headers: Record<string, string> = {}): Promise<UIMessage> => {
  const transport = new DefaultChatTransport({ api: url, headers })
  const last = messages.at(-1)
  const stream = await transport.sendMessages({ chatId, messages, trigger: "submit-message", messageId: undefined, abortSignal: undefined })
  let message: UIMessage | undefined
  let failure: unknown
  for await (const m of readUIMessageStream({
    ...(last?.role === "assistant" ? { message: structuredClone(last) } : {}),
    stream,
    onError: (error) => {
      failure = error
    },
  })) message = m
  if (failure !== undefined) throw failure
  // A stream that changes nothing (a repeated decision) yields no new state of the message.
  if (message === undefined && last?.role === "assistant") return last
  if (message === undefined) throw new Error("no message")
  return message
}

/** The chunk types of the answer, as the AI SDK's transport parsed them. */
export const chunkTypes = async (url: string, chatId: string, messages: Array<UIMessage>): Promise<Array<string>> => {
  const stream = await new DefaultChatTransport({ api: url }).sendMessages({ chatId, messages, trigger: "submit-message", messageId: undefined, abortSignal: undefined })
  const types: Array<string> = []
  for await (const chunk of stream as unknown as AsyncIterable<{ readonly type: string }>) types.push(chunk.type)
  return types
}

export const user = (id: string, text: string): UIMessage => ({ id, role: "user", parts: [{ type: "text", text }] })

/** The message with the call's approval answered, as `addToolApprovalResponse` leaves it. */
export const answer = (message: UIMessage, toolCallId: string, approved: boolean, reason?: string): UIMessage => ({
  ...message,
  parts: message.parts.map((part) =>
    "toolCallId" in part && part.toolCallId === toolCallId && part.state === "approval-requested"
      ? ({ ...part, state: "approval-responded", approval: { id: part.approval.id, approved, ...(reason === undefined ? {} : { reason }) } } as unknown as typeof part)
      : part
  ),
})
