// A small MCP server, made with the official SDK: notes kept in memory, spoken to over
// stdio. The agent starts it as a child process for each run.
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"

const notes = [
  { title: "standup", text: "Ship the MCP example. Call Dana at +1 415 555 0134." },
  { title: "billing", text: "Customer card 4111 1111 1111 1111, contact billing@example.com." },
]

const tools = [
  { name: "list_notes", description: "Titles of all notes", inputSchema: { type: "object", properties: {} } },
  {
    name: "read_note",
    description: "The text of one note",
    inputSchema: { type: "object", properties: { title: { type: "string" } }, required: ["title"] },
  },
  {
    name: "add_note",
    description: "Adds a note",
    inputSchema: { type: "object", properties: { title: { type: "string" }, text: { type: "string" } }, required: ["title", "text"] },
  },
]

const text = (t) => ({ content: [{ type: "text", text: t }] })

// hookline sends each call's idempotency key (runId:toolCallId) in the request's _meta:
// a call repeated after a crash has the same key, and gets the first answer back.
const idempotencyKey = "io.hookline/idempotencyKey"
const served = new Map()

const server = new Server({ name: "notes", version: "1.0.0" }, { capabilities: { tools: {} } })
server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }))
server.setRequestHandler(CallToolRequestSchema, (request) => {
  const args = request.params.arguments ?? {}
  switch (request.params.name) {
    case "list_notes":
      return text(notes.map((n) => n.title).join("\n"))
    case "read_note": {
      const note = notes.find((n) => n.title === args.title)
      return note === undefined ? { content: [{ type: "text", text: `no note "${args.title}"` }], isError: true } : text(note.text)
    }
    case "add_note": {
      const key = request.params._meta?.[idempotencyKey]
      if (typeof key === "string" && served.has(key)) return served.get(key)
      notes.push({ title: String(args.title), text: String(args.text) })
      const result = text(`added "${args.title}" (${notes.length} notes)`)
      if (typeof key === "string") served.set(key, result)
      return result
    }
    default:
      return { content: [{ type: "text", text: `unknown tool ${request.params.name}` }], isError: true }
  }
})
await server.connect(new StdioServerTransport())
