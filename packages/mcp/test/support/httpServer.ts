// The test tool server behind the streamable HTTP transport, on 127.0.0.1 and a free
// port, one session per client.
import { randomUUID } from "node:crypto"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { makeServer } from "./toolServer.mjs"

export interface HttpToolServer {
  readonly url: string
  /** Open sessions: a client that closed ends its session. */
  readonly sessions: () => number
  readonly close: () => Promise<void>
}

export const startHttp = async (): Promise<HttpToolServer> => {
  const sessions = new Map<string, StreamableHTTPServerTransport>()
  const http: Server = createServer((req, res) => {
    const id = req.headers["mcp-session-id"]
    const known = typeof id === "string" ? sessions.get(id) : undefined
    const handle = async () => {
      if (known !== undefined) return known.handleRequest(req, res)
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => {
          sessions.set(sid, transport)
        },
        onsessionclosed: (sid) => {
          sessions.delete(sid)
        },
      })
      await makeServer().connect(transport)
      return transport.handleRequest(req, res)
    }
    handle().catch(() => {
      if (!res.headersSent) res.writeHead(500)
      res.end()
    })
  })
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve))
  const { port } = http.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    sessions: () => sessions.size,
    close: async () => {
      for (const transport of sessions.values()) await transport.close().catch(() => undefined)
      http.closeAllConnections()
      await new Promise<void>((resolve) => http.close(() => resolve()))
    },
  }
}
