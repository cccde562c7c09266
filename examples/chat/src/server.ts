// The chat's server (Hono on Node): POST /api/chat is useChat's endpoint (chatAgent),
// GET /api/chat/:id the stored conversation a reloaded page starts from, and the page
// Vite built (dist/) for everything else. Listens on 127.0.0.1 only.
import { serve } from "@hono/node-server"
import { serveStatic } from "@hono/node-server/serve-static"
import type { AddressInfo } from "node:net"
import { relative } from "node:path"
import { fileURLToPath } from "node:url"
import { chatAgent } from "@hookline/ai-sdk"
import { MemoryStore, RunStore } from "@hookline/store"
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
  const chat = chatAgent(agent, {
    load: (id) => RunStore.load(store, id).then((saved) => saved?.state),
    // The run context comes with each request (here a header; in an app, the session), never stored.
    context: (request) => ({ user: request?.headers.get("x-user")?.slice(0, 64) ?? "guest" }),
  })
  const app = new Hono()
  app.post("/api/chat", (c) => chat.respond(c.req.raw))
  app.get("/api/chat/:id", async (c) => c.json(await chat.messages(c.req.param("id"))))
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
