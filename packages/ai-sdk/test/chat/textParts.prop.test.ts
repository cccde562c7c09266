// The class of a malformed part stream (issue 25): over any order of text, reasoning,
// resets, tool calls and step ends, both protocols (the UI message stream, the Agent's
// model parts) open at most one text and one reasoning part, send each delta to an open
// part of its kind, close every part they open, and the AI SDK's own reader shows each
// step's reasoning and text as the deltas said.
import { fc, test } from "@fast-check/vitest"
import type { AgentEvent } from "@hookline/agent"
import { AgentState, ToolCall } from "@hookline/core"
import { readUIMessageStream, type UIMessage, type UIMessageChunk } from "ai"
import { describe, expect } from "vitest"
import * as ModelParts from "../../src/agent/modelParts.js"
import * as UiChunks from "../../src/chat/uiChunks.js"

const state = AgentState.make({ id: "run" })
const event: fc.Arbitrary<AgentEvent> = fc.oneof(
  fc.record({ _tag: fc.constant("TextDelta" as const), step: fc.constant(0), text: fc.constantFrom("a", "bc", "") }),
  fc.record({ _tag: fc.constant("ReasoningDelta" as const), step: fc.constant(0), text: fc.constantFrom("x", "yz", "") }),
  fc.constant<AgentEvent>({ _tag: "TextReset", step: 0 }),
  fc.nat({ max: 99 }).map((n): AgentEvent => ({ _tag: "ToolCallRequested", step: 0, toolCall: ToolCall.make({ id: `c${n}`, name: "t", arguments: {} }) })),
)
const events = fc.array(event, { maxLength: 30 }).map((middle): Array<AgentEvent> => [
  { _tag: "RunStarted", state },
  ...middle,
  { _tag: "RunEnded", state: AgentState.withExecution(state, { ...state.execution, status: "completed" }) },
])

// The protocol's rules for text and reasoning parts, over the parts in order.
const wellFormed = (parts: ReadonlyArray<{ readonly type: string; readonly id?: string }>): Array<string> => {
  const problems: Array<string> = []
  const open = new Map<string, string>()
  for (const p of parts) {
    const [kind, phase] = p.type.split("-") as [string, string]
    if (kind !== "text" && kind !== "reasoning") continue
    const id = p.id as string
    if (phase === "start") {
      if ([...open.values()].includes(kind)) problems.push(`a second ${kind} part opened: ${id}`)
      open.set(id, kind)
    } else if (open.get(id) !== kind) problems.push(`${p.type} for ${id}, which is not an open ${kind} part`)
    else if (phase === "end") open.delete(id)
  }
  if (open.size > 0) problems.push(`left open: ${[...open.keys()].join(", ")}`)
  return problems
}

const mapAll = <S, P>(initial: S, step: (s: S, e: AgentEvent) => { readonly state: S; readonly out: ReadonlyArray<P> }, given: ReadonlyArray<AgentEvent>) => {
  let s = initial
  const out: Array<P> = []
  for (const e of given) {
    const mapped = step(s, e)
    s = mapped.state
    out.push(...mapped.out)
  }
  return out
}

// What a reader should show: per run of deltas of one kind, the text they add up to (a
// reset, a tool call or the other kind ends a part).
const expectedParts = (given: ReadonlyArray<AgentEvent>): Array<string> => {
  const out: Array<string> = []
  let open: { kind: string; text: string } | undefined
  const close = () => {
    if (open !== undefined) out.push(`${open.kind}:${open.text}`)
    open = undefined
  }
  for (const e of given) {
    if (e._tag === "TextDelta" || e._tag === "ReasoningDelta") {
      if (e.text === "") continue
      const kind = e._tag === "TextDelta" ? "text" : "reasoning"
      if (open?.kind !== kind) close()
      open ??= { kind, text: "" }
      open.text += e.text
    } else close()
  }
  close()
  return out
}

describe("text and reasoning parts", () => {
  test.prop([events], { numRuns: 300 })("are well formed in the UI message stream, and read back as the deltas said", async (given) => {
    const chunks = mapAll(UiChunks.initial("p"), (s, e) => {
      const m = UiChunks.step(s, e)
      return { state: m.state, out: m.chunks }
    }, given)
    expect(wellFormed(chunks as ReadonlyArray<{ readonly type: string; readonly id?: string }>)).toEqual([])
    const stream = new ReadableStream<UIMessageChunk>({
      start(controller) {
        for (const c of chunks) controller.enqueue(c)
        controller.close()
      },
    })
    let last: UIMessage | undefined
    for await (const m of readUIMessageStream({ stream })) last = m
    const shown = (last?.parts ?? []).flatMap((p) => (p.type === "text" || p.type === "reasoning" ? [`${p.type}:${p.text}`] : []))
    expect(shown).toEqual(expectedParts(given))
  })

  test.prop([events], { numRuns: 300 })("are well formed in the Agent's model parts", (given) => {
    const parts = mapAll(ModelParts.initial("p"), (s, e) => {
      const m = ModelParts.step(s, e)
      return { state: m.state, out: m.parts }
    }, given)
    expect(wellFormed(parts as ReadonlyArray<{ readonly type: string; readonly id?: string }>)).toEqual([])
  })
})
