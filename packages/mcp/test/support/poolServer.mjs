// A real MCP server over stdio for the pool's tests. Options:
//   --gate FILE      answer the handshake only once FILE exists (a slow start a test controls)
//   --started FILE   write the pid to FILE as soon as the process runs
// Tools: pid, env (the value of a variable), lists (how many tools/list it served),
// exit (ends the process), freeze (blocks its event loop: it stops answering, pings
// included), learn (adds the tool "later" and announces the change), later.
import { existsSync, writeFileSync } from "node:fs"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"

const option = (name) => {
  const at = process.argv.indexOf(name)
  return at === -1 ? undefined : process.argv[at + 1]
}
const started = option("--started")
if (started !== undefined) writeFileSync(started, String(process.pid))
const gate = option("--gate")
if (gate !== undefined) while (!existsSync(gate)) await new Promise((resolve) => setTimeout(resolve, 10))

const object = (properties = {}, required = []) => ({ type: "object", properties, required })
const baseTools = [
  { name: "pid", description: "The server's process id", inputSchema: object() },
  { name: "env", description: "The value of an environment variable", inputSchema: object({ name: { type: "string" } }, ["name"]) },
  { name: "lists", description: "How many tools/list requests it answered", inputSchema: object() },
  { name: "exit", description: "Ends the server's process", inputSchema: object() },
  { name: "freeze", description: "Blocks the server's event loop for good", inputSchema: object() },
  { name: "learn", description: "Adds the tool 'later'", inputSchema: object() },
]
const later = { name: "later", description: "Exists after 'learn'", inputSchema: object() }
const text = (t) => ({ content: [{ type: "text", text: t }] })

let learned = false
let lists = 0
const server = new Server({ name: "pool-tools", version: "1.0.0" }, { capabilities: { tools: { listChanged: true } } })
server.setRequestHandler(ListToolsRequestSchema, () => {
  lists++
  return { tools: learned ? [...baseTools, later] : baseTools }
})
server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
  const args = request.params.arguments ?? {}
  switch (request.params.name) {
    case "pid":
      return text(String(process.pid))
    case "env":
      return text(JSON.stringify(process.env[args.name] ?? null))
    case "lists":
      return text(String(lists))
    case "exit":
      setImmediate(() => process.exit(3))
      return new Promise(() => {})
    case "freeze":
      setImmediate(() => {
        for (;;) {}
      })
      return new Promise(() => {})
    case "learn":
      learned = true
      await server.notification({ method: "notifications/tools/list_changed" }, { relatedRequestId: extra.requestId })
      return text("learned")
    case "later":
      return text("later")
    default:
      return { content: [{ type: "text", text: `no tool ${request.params.name}` }], isError: true }
  }
})
await server.connect(new StdioServerTransport())
