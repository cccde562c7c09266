// What the UI message stream (chat/uiChunks.ts) and the Agent's model parts
// (agent/modelParts.ts) share: both protocols show a run's text as the same three parts
// (text-start, text-delta, text-end), its reasoning alike (reasoning-start,
// reasoning-delta, reasoning-end), and read the rejected calls from a resume's state.
import type { AgentState } from "@hookline/core"

/** The text and reasoning part bookkeeping of a stream's state. */
export interface TextState {
  readonly prefix: string
  /** The id of the open text part; `undefined`: none open. */
  readonly textId: string | undefined
  readonly textParts: number
  /** The id of the open reasoning part; `undefined`: none open. */
  readonly reasoningId: string | undefined
  readonly reasoningParts: number
}

/** The bookkeeping of a stream that showed nothing yet; `prefix` keeps its part ids apart from another stream's. */
export const initialText = (prefix: string): TextState => ({
  prefix,
  textId: undefined,
  textParts: 0,
  reasoningId: undefined,
  reasoningParts: 0,
})

/** A text or reasoning part, as both protocols spell it. */
export type TextPart =
  | { readonly type: "text-start" | "reasoning-start"; readonly id: string }
  | { readonly type: "text-delta" | "reasoning-delta"; readonly id: string; readonly delta: string }
  | { readonly type: "text-end" | "reasoning-end"; readonly id: string }

// Where parts go: a stream's array of its own parts, which text parts are among.
interface Out {
  push(part: TextPart): unknown
}

const closeReasoning = <S extends TextState>(s: S, out: Out): S => {
  if (s.reasoningId === undefined) return s
  out.push({ type: "reasoning-end", id: s.reasoningId })
  return { ...s, reasoningId: undefined }
}

const closeOnlyText = <S extends TextState>(s: S, out: Out): S => {
  if (s.textId === undefined) return s
  out.push({ type: "text-end", id: s.textId })
  return { ...s, textId: undefined }
}

/** `text` shown: an open reasoning part ended, a text part opened first when none is open. */
export const textDelta = <S extends TextState>(s: S, text: string, out: Out): S => {
  let next = closeReasoning(s, out)
  if (next.textId === undefined) {
    const id = `${next.prefix}-text-${next.textParts}`
    out.push({ type: "text-start", id })
    next = { ...next, textId: id, textParts: next.textParts + 1 }
  }
  out.push({ type: "text-delta", id: next.textId as string, delta: text })
  return next
}

/** Reasoning shown: an open text part ended, a reasoning part opened first when none is open. */
export const reasoningDelta = <S extends TextState>(s: S, text: string, out: Out): S => {
  let next = closeOnlyText(s, out)
  if (next.reasoningId === undefined) {
    const id = `${next.prefix}-reasoning-${next.reasoningParts}`
    out.push({ type: "reasoning-start", id })
    next = { ...next, reasoningId: id, reasoningParts: next.reasoningParts + 1 }
  }
  out.push({ type: "reasoning-delta", id: next.reasoningId as string, delta: text })
  return next
}

/** The open text and reasoning parts, if any, ended. */
export const closeText = <S extends TextState>(s: S, out: Out): S => closeOnlyText(closeReasoning(s, out), out)

/** Calls whose kept decision is a rejection: a resume's RunStarted state lists them. */
export const rejectedIn = (state: AgentState): ReadonlySet<string> =>
  new Set((state.execution.pendingCalls ?? []).filter((p) => p.decision?._tag === "Reject").map((p) => p.toolCall.id))
