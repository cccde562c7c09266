// A real MCP server made with the official SDK, for the tests: over stdio when run as a
// script (a child process), or in-process behind the streamable HTTP transport.
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { pathToFileURL } from "node:url"

const object = (properties = {}, required = []) => ({ type: "object", properties, required })

const baseTools = [
  { name: "add", description: "Adds two numbers", inputSchema: object({ a: { type: "number" }, b: { type: "number" } }, ["a", "b"]) },
  { name: "echo", description: "Says the text back", inputSchema: object({ text: { type: "string" } }, ["text"]) },
  { name: "pid", description: "The server's process id", inputSchema: object() },
  { name: "fail", description: "Always fails", inputSchema: object() },
  { name: "learn", description: "Adds the tool 'later'", inputSchema: object() },
  { name: "exit", description: "Ends the server's process", inputSchema: object() },
  { name: "structured", description: "Structured output", inputSchema: object() },
  { name: "big", description: "A long output", inputSchema: object({ n: { type: "integer" } }, ["n"]) },
  { name: "meta", description: "The _meta of the call, as JSON", inputSchema: object() },
  { name: "family", description: "Its parent's pid and the pid in SIBLING_PID (a process its wrapper started)", inputSchema: object() },
]
const later = { name: "later", description: "Exists after 'learn'", inputSchema: object() }

const text = (t) => ({ content: [{ type: "text", text: t }] })

export const makeServer = () => {
  let learned = false
  const server = new Server({ name: "test-tools", version: "1.0.0" }, { capabilities: { tools: { listChanged: true } } })
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: learned ? [...baseTools, later] : baseTools }))
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const args = request.params.arguments ?? {}
    switch (request.params.name) {
      case "add":
        return text(String(args.a + args.b))
      case "echo":
        return text(args.text)
      case "pid":
        return text(String(process.pid))
      case "fail":
        return { content: [{ type: "text", text: "it failed" }], isError: true }
      case "learn":
        learned = true
        // Sent with the call (over HTTP: on the call's own stream), before its answer.
        await server.notification({ method: "notifications/tools/list_changed" }, { relatedRequestId: extra.requestId })
        return text("learned")
      case "later":
        return text("later")
      case "exit":
        setImmediate(() => process.exit(3))
        return new Promise(() => {})
      case "structured":
        return { content: [{ type: "text", text: "{\"n\":1}" }], structuredContent: { n: 1 } }
      case "big":
        return text("x".repeat(args.n))
      case "meta":
        return text(JSON.stringify(request.params._meta ?? null))
      case "family":
        return text(JSON.stringify({ parent: process.ppid, sibling: Number(process.env.SIBLING_PID) }))
      default:
        return { content: [{ type: "text", text: `no tool ${request.params.name}` }], isError: true }
    }
  })
  return server
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  await makeServer().connect(new StdioServerTransport())
}
