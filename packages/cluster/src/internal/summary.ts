// A stored run as its summary (pure): what a client learns of it.
import type { AgentState } from "@hookline/core"
import type { RunSummary } from "../Protocol.js"

/** Whether a run with this status has ended (it changes no more). */
export const isEnded = (status: AgentState.ExecutionStatus): boolean =>
  status === "completed" || status === "stopped" || status === "failed"

// Ended or suspended: what `result` answers with (a run pending or running is not yet).
export const isSettled = (status: AgentState.ExecutionStatus): boolean => status !== "pending" && status !== "running"

const lastText = (state: AgentState): string | undefined => {
  const messages = state.context.messages.toArray()
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]
    if (m?.role === "assistant") return typeof m.content === "string" ? m.content : undefined
  }
  return undefined
}

export const summaryOf = (state: AgentState, agent: string): RunSummary => {
  const text = lastText(state)
  const stopReason = state.execution.stopReason
  return {
    runId: state.id,
    agent,
    status: state.execution.status,
    ...(stopReason === undefined ? {} : { stopReason: String(stopReason) }),
    pending: (state.execution.pendingCalls ?? []).map((p) => ({
      toolCallId: p.toolCall.id,
      name: p.toolCall.name,
      arguments: p.toolCall.arguments,
      reason: p.reason,
    })),
    ...(text === undefined ? {} : { text }),
    steps: state.execution.steps.length,
  }
}
