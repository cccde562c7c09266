// A real MCP server over stdio whose tools are given as JSON in its first argument (so a
// test can list hostile schemas); each call answers with its arguments as JSON.
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"

const tools = JSON.parse(process.argv[2] ?? "[]")
const server = new Server({ name: "schemas", version: "1.0.0" }, { capabilities: { tools: {} } })
server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }))
server.setRequestHandler(CallToolRequestSchema, (request) => ({
  content: [{ type: "text", text: JSON.stringify(request.params.arguments ?? {}) }],
}))
await server.connect(new StdioServerTransport())
