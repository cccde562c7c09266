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

type Kind = "text" | "reasoning"
// Where each kind's open part and part count are kept.
const slots = {
  text: { id: "textId", count: "textParts" },
  reasoning: { id: "reasoningId", count: "reasoningParts" },
} as const

const close = <S extends TextState>(s: S, kind: Kind, out: Out): S => {
  const id = s[slots[kind].id]
  if (id === undefined) return s
  out.push({ type: `${kind}-end`, id })
  return { ...s, [slots[kind].id]: undefined }
}

// A delta of `kind`: an open part of the other kind ended, a part of this kind opened first when none is open.
const delta = <S extends TextState>(s: S, kind: Kind, text: string, out: Out): S => {
  const slot = slots[kind]
  let next = close(s, kind === "text" ? "reasoning" : "text", out)
  let id = next[slot.id]
  if (id === undefined) {
    id = `${next.prefix}-${kind}-${next[slot.count]}`
    out.push({ type: `${kind}-start`, id })
    next = { ...next, [slot.id]: id, [slot.count]: next[slot.count] + 1 }
  }
  out.push({ type: `${kind}-delta`, id, delta: text })
  return next
}

/** `text` shown: an open reasoning part ended, a text part opened first when none is open. */
export const textDelta = <S extends TextState>(s: S, text: string, out: Out): S => delta(s, "text", text, out)

/** Reasoning shown: an open text part ended, a reasoning part opened first when none is open. */
export const reasoningDelta = <S extends TextState>(s: S, text: string, out: Out): S => delta(s, "reasoning", text, out)

/** The open text and reasoning parts, if any, ended. */
export const closeText = <S extends TextState>(s: S, out: Out): S => close(close(s, "reasoning", out), "text", out)

/** Calls whose kept decision is a rejection: a resume's RunStarted state lists them. */
export const rejectedIn = (state: AgentState): ReadonlySet<string> =>
  new Set((state.execution.pendingCalls ?? []).filter((p) => p.decision?._tag === "Reject").map((p) => p.toolCall.id))
