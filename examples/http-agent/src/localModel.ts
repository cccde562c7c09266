// A stand-in for a model API, so the demo runs offline over real HTTP: a node:http
// server on 127.0.0.1 speaking the OpenAI chat-completions protocol (JSON replies).
// It plays one conversation, decided by how many tool results the request carries.
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"

interface ChatMessage {
  readonly role: string
  readonly content?: unknown
}

const toolCall = (id: string, name: string, args: object) => ({
  id,
  type: "function",
  function: { name, arguments: JSON.stringify(args) },
})

// What the "model" answers after n tool results.
const turns = [
  { tool_calls: [toolCall("call_1", "read_file", { path: "notes/todo.md" })] },
  { tool_calls: [toolCall("call_2", "read_file", { path: "/etc/passwd" })] },
  { tool_calls: [toolCall("call_3", "count_lines", { text: "- buy milk\n- ship hookline" })] },
  { content: "Your todo list has 2 items: buy milk, ship hookline." },
]

export interface LocalModel {
  readonly baseURL: string
  readonly requests: () => number
  readonly close: () => Promise<void>
}

export const startLocalModel = async (): Promise<LocalModel> => {
  let requests = 0
  const server = createServer((req, res) => {
    let body = ""
    req.on("data", (chunk) => (body += chunk))
    req.on("end", () => {
      requests++
      const { messages = [] } = JSON.parse(body || "{}") as { readonly messages?: ReadonlyArray<ChatMessage> }
      const toolResults = messages.filter((m) => m.role === "tool").length
      const turn = turns[Math.min(toolResults, turns.length - 1)] ?? turns[turns.length - 1]
      const finish = "tool_calls" in (turn ?? {}) ? "tool_calls" : "stop"
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify({
        id: `chatcmpl-${requests}`,
        object: "chat.completion",
        created: 1_763_769_600,
        model: "local-scripted",
        choices: [{ index: 0, message: { role: "assistant", content: null, ...turn }, finish_reason: finish }],
        usage: { prompt_tokens: 100 + 60 * toolResults, completion_tokens: 20, total_tokens: 120 + 60 * toolResults },
      }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests: () => requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}
