// What the two commands print: the run, its status, and the calls it waits on.
import type { AgentState } from "@hookline/core"

export const report = (state: AgentState): string => {
  const lines = [`run: ${state.id}`, `status: ${state.execution.status}`]
  for (const pending of state.execution.pendingCalls ?? []) {
    const call = pending.toolCall
    lines.push(`pending: ${call.id} ${call.name} ${JSON.stringify(call.arguments)} (${pending.reason})`)
  }
  const last = state.context.messages.last()
  if (state.execution.status !== "suspended" && last !== undefined) lines.push(`answer: ${last.content}`)
  return lines.join("\n")
}
