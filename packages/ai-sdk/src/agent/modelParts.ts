// Pure: one hookline AgentEvent → the language model stream parts (specification v3)
// that show it, given what the stream showed before (`PartState`). A hookline turn is
// one model call: its reasoning and text, its tool calls and results as provider-executed tools (the
// hookline loop ran them), the calls it waits on as `tool-approval-request`, and the
// turn's usage and finish reason. The interpreter (turnModel.ts) feeds the events.
import type { AgentEvent } from "@hookline/agent"
import type { AgentState, ToolExecution, Usage } from "@hookline/core"
import { Data } from "effect"
import { errorTextOf, finishReasonOf, runErrorText } from "../chat/uiChunks.js"
import type { FinishPart, StreamPart } from "./modelSpec.js"
import { closeText, initialText, reasoningDelta, rejectedIn, type TextState, textDelta } from "../internal/textParts.js"

/**
 * The turn's run ended failed: `message` is its last error's `<tag>: <message>`.
 *
 * @since 0.1.0
 * @category errors
 */
export class TurnFailed extends Data.TaggedError("TurnFailed")<{ readonly runId: string; readonly message: string }> {}

/** What the parts so far opened and showed. */
export interface PartState extends TextState {
  /** Calls whose tool-call part this stream showed: only those can be asked for approval. */
  readonly shown: ReadonlySet<string>
  /** Calls a kept decision rejected: the AI SDK shows them denied from the approval response itself. */
  readonly rejected: ReadonlySet<string>
  /** The run's usage when the turn started; `undefined` before `RunStarted`. */
  readonly usageAtStart: Usage | undefined
  readonly started: boolean
}

/** The state a stream starts in; `prefix` keeps its text part ids apart from another stream's. */
export const initial = (prefix: string): PartState => ({
  ...initialText(prefix),
  shown: new Set(),
  rejected: new Set(),
  usageAtStart: undefined,
  started: false,
})

export interface Mapped {
  readonly state: PartState
  readonly parts: ReadonlyArray<StreamPart>
}

const minus = (a: number, b: number | undefined): number => Math.max(0, a - (b ?? 0))

/** The usage of a turn, `end` less `start` (a run's usage counts the whole conversation), in the spec's shape. */
export const turnUsage = (start: Usage | undefined, end: Usage): FinishPart["usage"] => {
  const input = minus(end.inputTokens, start?.inputTokens)
  const output = minus(end.outputTokens, start?.outputTokens)
  const cached = end.cachedInputTokens === undefined ? undefined : minus(end.cachedInputTokens, start?.cachedInputTokens)
  const reasoning = end.reasoningTokens === undefined ? undefined : minus(end.reasoningTokens, start?.reasoningTokens)
  return {
    inputTokens: { total: input, noCache: input - (cached ?? 0), cacheRead: cached, cacheWrite: undefined },
    outputTokens: { total: output, text: output - (reasoning ?? 0), reasoning },
  }
}

type ResultValue = Extract<StreamPart, { readonly type: "tool-result" }>["result"]

// A tool's output as it is: the spec types the value mutable and not null, the SDK passes it on unread.
const resultPart = (execution: ToolExecution): StreamPart => {
  const { id, name } = execution.toolCall
  return execution.status === "success"
    ? { type: "tool-result", toolCallId: id, toolName: name, result: execution.output as ResultValue, dynamic: true }
    : { type: "tool-result", toolCallId: id, toolName: name, result: errorTextOf(execution), isError: true, dynamic: true }
}

const finish = (s: PartState, state: AgentState, out: Array<StreamPart>): void => {
  const status = state.execution.status
  if (status === "failed") out.push({ type: "error", error: new TurnFailed({ runId: state.id, message: runErrorText(state) }) })
  out.push({
    type: "finish",
    finishReason: { unified: finishReasonOf(status), raw: status },
    // A repeat with nothing to do (no RunStarted) spent nothing.
    usage: turnUsage(s.usageAtStart ?? state.execution.usage, state.execution.usage),
  })
}

/** The parts of one event. Hook events and a subagent's events show nothing. */
export const step = (s: PartState, event: AgentEvent): Mapped => {
  const out: Array<StreamPart> = []
  let next = s
  switch (event._tag) {
    case "RunStarted": {
      next = { ...s, rejected: rejectedIn(event.state), usageAtStart: s.usageAtStart ?? event.state.execution.usage }
      break
    }
    case "TextDelta": {
      if (event.text === "") break
      next = textDelta(next, event.text, out)
      break
    }
    case "ReasoningDelta": {
      if (event.text === "") break
      next = reasoningDelta(next, event.text, out)
      break
    }
    case "TextReset":
    case "StepEnded":
      next = closeText(next, out)
      break
    case "ToolCallRequested": {
      next = closeText(next, out)
      const { id, name, arguments: input } = event.toolCall
      out.push({ type: "tool-call", toolCallId: id, toolName: name, input: JSON.stringify(input), providerExecuted: true, dynamic: true })
      next = { ...next, shown: new Set([...next.shown, id]) }
      break
    }
    case "ToolResult": {
      next = closeText(next, out)
      const execution = event.execution
      // The AI SDK already showed a denied call from its approval response.
      if (execution.status === "blocked" && next.rejected.has(execution.toolCall.id)) break
      out.push(resultPart(execution))
      break
    }
    case "Suspended": {
      next = closeText(next, out)
      for (const pending of event.pendingCalls) {
        if (pending.decision !== undefined || !next.shown.has(pending.toolCall.id)) continue
        out.push({ type: "tool-approval-request", approvalId: pending.toolCall.id, toolCallId: pending.toolCall.id })
      }
      break
    }
    case "RunEnded": {
      next = closeText(next, out)
      finish(next, event.state, out)
      break
    }
    default:
      break
  }
  if (out.length > 0 && !next.started) return { state: { ...next, started: true }, parts: [{ type: "stream-start", warnings: [] }, ...out] }
  return { state: next, parts: out }
}

/** The parts that end a stream whose events broke off with an error (a refused decision, a failed load). */
export const broken = (s: PartState, error: unknown): Mapped => {
  const out: Array<StreamPart> = s.started ? [] : [{ type: "stream-start", warnings: [] }]
  const next = closeText({ ...s, started: true }, out)
  out.push({ type: "error", error })
  out.push({ type: "finish", finishReason: { unified: "error", raw: "error" }, usage: turnUsage(undefined, { inputTokens: 0, outputTokens: 0 }) })
  return { state: next, parts: out }
}
