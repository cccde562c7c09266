// One support session: the run streams (the subagents' events nested under the call
// that runs them), ends suspended on the refund, is stored as JSON, and is resumed
// later with a person's approval of the refund subagent's call.
import { Decision, type AgentEvent } from "@hookline/agent"
import { Codecs, type AgentState } from "@hookline/core"
import { makeSupport, scripts } from "./agents.js"

// One line per event worth showing; a subagent's events indented under their call.
const describe = (event: AgentEvent, depth = 0): ReadonlyArray<string> => {
  const pad = "  ".repeat(depth)
  switch (event._tag) {
    case "Subagent":
      return describe(event.event, depth + 1).map((line) => `${pad}[${event.parent.toolCallId}] ${line.trimStart()}`)
    case "RunStarted":
      return [`${pad}run ${event.state.parentId === undefined ? "started" : `started (child of ${event.state.parentId})`}`]
    case "ToolCallRequested":
      return [`${pad}calls ${event.toolCall.name}(${JSON.stringify(event.toolCall.arguments)})`]
    case "ToolResult":
      return [`${pad}${event.execution.toolCall.name} -> ${event.execution.status === "success" ? JSON.stringify(event.execution.output) : event.execution.status}`]
    case "Suspended":
      return [`${pad}suspended on ${event.pendingCalls.map((p) => p.toolCall.name).join(", ")}`]
    case "RunEnded":
      return [`${pad}run ${event.state.execution.status}`]
    default:
      return []
  }
}

export interface Session {
  readonly lines: ReadonlyArray<string>
  readonly suspended: AgentState
  readonly final: AgentState
}

export const runSession = async (drivers = scripts()): Promise<Session> => {
  const support = makeSupport(drivers)
  const lines: Array<string> = []
  let suspended: AgentState | undefined
  for await (const event of support.stream("My order A7 arrived broken, I want my money back")) {
    lines.push(...describe(event))
    if (event._tag === "RunEnded") suspended = event.state
  }
  if (suspended === undefined || suspended.execution.status !== "suspended") throw new Error("the run did not suspend")

  // Stored as JSON (a database, a queue) until a person decides.
  const stored = Codecs.toJson(Codecs.AgentState, suspended)

  // What the person is shown: the refund subagent's calls, in the payload of the waiting call.
  const decoded = Codecs.fromJson(Codecs.AgentState, stored)
  if (decoded._tag === "Failure") throw new Error(decoded.failure.message)
  const waiting = decoded.success.execution.pendingCalls?.[0]
  const payload = waiting?.payload as { readonly pendingCalls: ReadonlyArray<{ readonly toolCall: { readonly id: string; readonly name: string } }> }
  const childCall = payload.pendingCalls[0]?.toolCall
  if (childCall === undefined) throw new Error("no call to decide on")
  lines.push(`a person approves ${childCall.name} (${childCall.id}), asked by ${waiting?.toolCall.name}`)

  const final = await support.resume(decoded.success, { decisions: [Decision.approve(childCall.id)] })
  lines.push(`run ${final.execution.status}: ${final.context.messages.last()?.content ?? ""}`)
  return { lines, suspended, final }
}
