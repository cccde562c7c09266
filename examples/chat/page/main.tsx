// The page: AI SDK UI's useChat against the hookline agent. The chat id is in the URL
// (?chat=...), so a reload finds the same chat; its messages come from the server's
// store, not from the browser. ?route=agent talks to the agent as an AI SDK `Agent`
// (POST /api/agent) instead of chatAgent (POST /api/chat).
import { useChat } from "@ai-sdk/react"
import { DefaultChatTransport, lastAssistantMessageIsCompleteWithApprovalResponses, type UIMessage } from "ai"
import { useState } from "react"
import { createRoot } from "react-dom/client"

const chatId = (): string => {
  const url = new URL(location.href)
  const id = url.searchParams.get("chat") ?? crypto.randomUUID()
  url.searchParams.set("chat", id)
  history.replaceState(null, "", url)
  return id
}

function ToolPart({ part, respond }: { part: Extract<UIMessage["parts"][number], { toolCallId: string }>; respond: (id: string, approved: boolean) => void }) {
  return (
    <div className="tool" data-tool-call={part.toolCallId} data-state={part.state}>
      <div>tool call: {JSON.stringify(part.input)}</div>
      {part.state === "approval-requested" && (
        <div>
          waiting for approval{" "}
          <button onClick={() => respond(part.approval.id, true)}>Approve</button>{" "}
          <button onClick={() => respond(part.approval.id, false)}>Deny</button>
        </div>
      )}
      {part.state === "output-available" && <div className="output">result: {JSON.stringify(part.output)}</div>}
      {part.state === "output-error" && <div className="output">error: {part.errorText}</div>}
      {part.state === "output-denied" && <div className="output">denied</div>}
    </div>
  )
}

const agentRoute = new URL(location.href).searchParams.get("route") === "agent"
const api = agentRoute ? "/api/agent" : "/api/chat"

function Chat({ id, initial }: { id: string; initial: Array<UIMessage> }) {
  const { messages, sendMessage, addToolApprovalResponse, status, error } = useChat({
    id,
    messages: initial,
    transport: new DefaultChatTransport({ api }),
    // An approve or deny goes to the server at once: the run resumes there.
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  })
  const [input, setInput] = useState("")
  const respond = (approvalId: string, approved: boolean) =>
    void addToolApprovalResponse({ id: approvalId, approved, ...(approved ? {} : { reason: "The user denied the refund." }) })
  return (
    <main data-status={status} data-api={api}>
      {messages.map((m) => (
        <div key={m.id} className={`message ${m.role}`} data-role={m.role}>
          {m.parts.map((part, i) =>
            part.type === "text" ? <p key={i}>{part.text}</p> : "toolCallId" in part ? <ToolPart key={i} part={part} respond={respond} /> : null
          )}
        </div>
      ))}
      {error && <p role="alert">{error.message}</p>}
      <form
        onSubmit={(e) => {
          e.preventDefault()
          if (input.trim() === "") return
          void sendMessage({ text: input })
          setInput("")
        }}
      >
        <input name="message" value={input} onChange={(e) => setInput(e.target.value)} placeholder="refund 250 on order A7" />
        <button type="submit" disabled={status !== "ready" && status !== "error"}>Send</button>
      </form>
    </main>
  )
}

const id = chatId()
void fetch(`/api/chat/${encodeURIComponent(id)}${agentRoute ? "?parts=dynamic" : ""}`)
  .then((response) => response.json() as Promise<Array<UIMessage>>)
  .then((initial) => createRoot(document.getElementById("root")!).render(<Chat id={id} initial={initial} />))
