// Pure: one hookline AgentEvent → the UI message stream chunks (AI SDK UI's protocol)
// that show it, given what the stream showed before (`ChunkState`). The interpreter
// (toUIMessageStream.ts) feeds the events in order and writes the chunks.
import type { AgentEvent } from "@hookline/agent"
import type { AgentState, ToolExecution } from "@hookline/core"
import type { UIMessageChunk } from "ai"
import { closeText, initialText, reasoningDelta, rejectedIn, type TextState, textDelta } from "../internal/textParts.js"

/** What the chunks so far opened: the step, the text and reasoning parts, and the calls a person rejected. */
export interface ChunkState extends TextState {
  readonly stepOpen: boolean
  /** Calls a kept decision rejected: their blocked result is shown as denied, not as an error. */
  readonly rejected: ReadonlySet<string>
  readonly started: boolean
}

/** The state a stream starts in; `prefix` keeps its text part ids apart from another stream's. */
export const initial = (prefix: string): ChunkState => ({
  ...initialText(prefix),
  stepOpen: false,
  rejected: new Set(),
  started: false,
})

export interface Mapped {
  readonly state: ChunkState
  readonly chunks: ReadonlyArray<UIMessageChunk>
}

/**
 * How a run's status ends a UI message: the AI SDK's finish reasons. A suspended run
 * waits on tool calls (their approval), so "tool-calls".
 */
export const finishReasonOf = (status: AgentState["execution"]["status"]): "stop" | "tool-calls" | "error" | "other" =>
  status === "completed" ? "stop" : status === "suspended" ? "tool-calls" : status === "failed" ? "error" : "other"

const openStep = (s: ChunkState, out: Array<UIMessageChunk>): ChunkState => {
  if (s.stepOpen) return s
  out.push({ type: "start-step" })
  return { ...s, stepOpen: true }
}

const closeStep = (s: ChunkState, out: Array<UIMessageChunk>): ChunkState => {
  const closed = closeText(s, out)
  if (!closed.stepOpen) return closed
  out.push({ type: "finish-step" })
  return { ...closed, stepOpen: false }
}

/** The text a person reads for a failed or blocked call. */
export const errorTextOf = (execution: Exclude<ToolExecution, { readonly status: "success" }>): string =>
  execution.status === "blocked" ? execution.reason : execution.error.message

const resultChunk = (s: ChunkState, execution: ToolExecution): UIMessageChunk => {
  const toolCallId = execution.toolCall.id
  if (execution.status === "success") return { type: "tool-output-available", toolCallId, output: execution.output }
  if (execution.status === "blocked" && s.rejected.has(toolCallId)) return { type: "tool-output-denied", toolCallId }
  return { type: "tool-output-error", toolCallId, errorText: errorTextOf(execution) }
}

/** The error text of a run that ended failed: its last error, tag and message. */
export const runErrorText = (state: AgentState): string => {
  const last = state.execution.errors.at(-1)
  return last === undefined ? "the run failed" : `${last._tag}: ${last.message}`
}

/**
 * The chunks of one event. Hook events and a subagent's events show nothing (the
 * subagent's call shows as its parent's tool call and result).
 */
export const step = (s: ChunkState, event: AgentEvent): Mapped => {
  const out: Array<UIMessageChunk> = []
  let next = s
  switch (event._tag) {
    case "RunStarted": {
      if (!s.started) out.push({ type: "start" })
      next = { ...s, started: true, rejected: rejectedIn(event.state) }
      break
    }
    case "TextDelta": {
      if (event.text === "") break
      next = openStep(next, out)
      next = textDelta(next, event.text, out)
      break
    }
    case "ReasoningDelta": {
      if (event.text === "") break
      next = openStep(next, out)
      next = reasoningDelta(next, event.text, out)
      break
    }
    case "TextReset":
      // The failed call's text and reasoning parts end here; a retry's come in new parts.
      next = closeText(next, out)
      break
    case "ToolCallRequested": {
      next = closeText(openStep(next, out), out)
      out.push({ type: "tool-input-available", toolCallId: event.toolCall.id, toolName: event.toolCall.name, input: event.toolCall.arguments })
      break
    }
    case "ToolResult": {
      next = closeText(openStep(next, out), out)
      out.push(resultChunk(next, event.execution))
      break
    }
    case "StepEnded":
      next = closeStep(next, out)
      break
    case "Suspended": {
      next = closeText(next, out)
      for (const pending of event.pendingCalls) {
        if (pending.decision !== undefined) continue
        out.push({ type: "tool-approval-request", approvalId: pending.toolCall.id, toolCallId: pending.toolCall.id })
      }
      next = closeStep(next, out)
      break
    }
    case "RunEnded": {
      next = closeStep(next, out)
      const status = event.state.execution.status
      if (status === "failed") out.push({ type: "error", errorText: runErrorText(event.state) })
      out.push({ type: "finish", finishReason: finishReasonOf(status) })
      break
    }
    default:
      break
  }
  // A stream that did not start with RunStarted (a resume with nothing to do) still opens the message first.
  if (out.length > 0 && !next.started) return { state: { ...next, started: true }, chunks: [{ type: "start" }, ...out] }
  return { state: next, chunks: out }
}

/** The chunks that end a stream whose events broke off with an error. */
export const broken = (s: ChunkState, errorText: string): Mapped => {
  const out: Array<UIMessageChunk> = []
  if (!s.started) out.push({ type: "start" })
  const next = closeStep({ ...s, started: true }, out)
  out.push({ type: "error", errorText })
  out.push({ type: "finish", finishReason: "error" })
  return { state: next, chunks: out }
}
