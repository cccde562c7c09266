// What the UI message stream (chat/uiChunks.ts) and the Agent's model parts
// (agent/modelParts.ts) share: both protocols show a run's text as the same three parts
// (text-start, text-delta, text-end) and read the rejected calls from a resume's state.
import type { AgentState } from "@hookline/core"

/** The text part bookkeeping of a stream's state. */
export interface TextState {
  readonly prefix: string
  /** The id of the open text part; `undefined`: none open. */
  readonly textId: string | undefined
  readonly textParts: number
}

/** A text part, as both protocols spell it. */
export type TextPart =
  | { readonly type: "text-start"; readonly id: string }
  | { readonly type: "text-delta"; readonly id: string; readonly delta: string }
  | { readonly type: "text-end"; readonly id: string }

// Where parts go: a stream's array of its own parts, which text parts are among.
interface Out {
  push(part: TextPart): unknown
}

/** `text` shown: a text part opened first when none is open. */
export const textDelta = <S extends TextState>(s: S, text: string, out: Out): S => {
  let next = s
  if (next.textId === undefined) {
    const id = `${next.prefix}-text-${next.textParts}`
    out.push({ type: "text-start", id })
    next = { ...next, textId: id, textParts: next.textParts + 1 }
  }
  out.push({ type: "text-delta", id: next.textId as string, delta: text })
  return next
}

/** The open text part, if any, ended. */
export const closeText = <S extends TextState>(s: S, out: Out): S => {
  if (s.textId === undefined) return s
  out.push({ type: "text-end", id: s.textId })
  return { ...s, textId: undefined }
}

/** Calls whose kept decision is a rejection: a resume's RunStarted state lists them. */
export const rejectedIn = (state: AgentState): ReadonlySet<string> =>
  new Set((state.execution.pendingCalls ?? []).filter((p) => p.decision?._tag === "Reject").map((p) => p.toolCall.id))
