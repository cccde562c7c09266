// The chat's server (Hono on Node): POST /api/chat is useChat's endpoint (chatAgent),
// POST /api/agent the same agent as an AI SDK `Agent` (toAiSdkAgent) served by the AI
// SDK's own createAgentUIStreamResponse, GET /api/chat/:id the stored conversation a
// reloaded page starts from, and the page Vite built (dist/) for everything else.
// Listens on 127.0.0.1 only.
import { serve } from "@hono/node-server"
import { serveStatic } from "@hono/node-server/serve-static"
import type { AddressInfo } from "node:net"
import { relative } from "node:path"
import { fileURLToPath } from "node:url"
import { chatAgent, ChatRequestInvalid, defaultLimits, errorText, readBody, toAiSdkAgent, toUIMessages, type AiSdkAgentCallOptions } from "@hookline/ai-sdk"
import { MemoryStore, RunStore } from "@hookline/store"
import { createAgentUIStreamResponse, type Agent, type UIMessage } from "ai"
import { Hono } from "hono"
import { makeAgent, type Refund } from "./agent.js"

/** Where `vite build` puts the page. */
export const pageDir = fileURLToPath(new URL("../dist", import.meta.url))

export interface ChatServer {
  readonly url: string
  /** The refunds the agent's tool made, in order. */
  readonly refunds: ReadonlyArray<Refund>
  readonly close: () => Promise<void>
}

/** Starts the server on 127.0.0.1 (`port` 0: any free port). */
export const start = async (port = 0): Promise<ChatServer> => {
  const store = MemoryStore.make()
  const { agent, refunds } = makeAgent(store)
  const load = (id: string) => RunStore.load(store, id).then((saved) => saved?.state)
  // The run context comes with each request (here a header; in an app, the session), never stored.
  const userOf = (request: Request | undefined) => ({ user: request?.headers.get("x-user")?.slice(0, 64) ?? "guest" })
  const chat = chatAgent(agent, { load, context: userOf })
  // Typed as this app's `ai` (7) spells `Agent`, whichever `ai` the package's types resolve.
  const sdkAgent: Agent<AiSdkAgentCallOptions<{ readonly user: string }>> = toAiSdkAgent(agent, { id: "refund-desk", load })
  const app = new Hono()
  app.post("/api/chat", (c) => chat.respond(c.req.raw))
  app.post("/api/agent", async (c) => {
    try {
      // The body is untrusted: read bounded; the messages are validated by the AI SDK, the chat id and the turn by the agent.
      const body = await readBody(c.req.raw, defaultLimits.maxBodyBytes)
      const { id, messages } = (typeof body === "object" && body !== null ? body : {}) as { readonly id?: unknown; readonly messages?: unknown }
      if (typeof id !== "string" || !Array.isArray(messages)) throw new ChatRequestInvalid({ field: "body", message: "expected { id, messages }" })
      const last = messages.at(-1) as { readonly id?: unknown; readonly role?: unknown } | undefined
      return await createAgentUIStreamResponse({
        agent: sdkAgent,
        uiMessages: messages as Array<UIMessage>,
        options: { chatId: id, ...(last?.role === "user" && typeof last.id === "string" ? { messageId: last.id } : {}), context: userOf(c.req.raw) },
        abortSignal: c.req.raw.signal,
        onError: errorText,
      })
    } catch (error) {
      if (error instanceof ChatRequestInvalid) return c.json({ error: { field: error.field, message: error.message } }, 400)
      throw error
    }
  })
  // The Agent route's page asks for its tool calls as the dynamic-tool parts that route streams.
  app.get("/api/chat/:id", async (c) => {
    if (c.req.query("parts") !== "dynamic") return c.json(await chat.messages(c.req.param("id")))
    const state = await load(c.req.param("id"))
    return c.json(state === undefined ? [] : toUIMessages(state, { toolParts: "dynamic" }))
  })
  app.use("/*", serveStatic({ root: relative(process.cwd(), pageDir) }))
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port, hostname: "127.0.0.1" }, () => resolve(s))
  })
  const address = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${address.port}`,
    refunds,
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  }
}
