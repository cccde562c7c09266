// The charging model the checkpoint, hand-over and cluster tests share: it asks for
// `charge` twice per step for three steps, then answers. Its tool call ids are random,
// as a real model's are: only the journal gives the same ids back. And the messages of
// a run with those ids named by order of appearance, to compare two runs.
import { Codecs, type AgentState } from "@hookline/core"
import { ScriptedDriver } from "@hookline/testing"

// Annotated: a caller type-checked with declarations on (the bench) cannot name the
// inferred type through this file's path to @hookline/testing (TS2742).
export const chargeModel = (): ScriptedDriver =>
  ScriptedDriver.make([
    ScriptedDriver.respond((request) => {
      const step = request.messages.toArray().filter((m) => m.role === "assistant").length
      if (step >= 3) return ScriptedDriver.text(`charged ${step * 2} times`)
      return ScriptedDriver.toolCalls([0, 1].map((j) => ({ id: crypto.randomUUID(), name: "charge", arguments: { amount: step * 10 + j } })))
    }),
  ], { repeatLast: true })

export const normalizedMessages = (state: AgentState): string => {
  const names = new Map<string, string>()
  const text = JSON.stringify(Codecs.encode(Codecs.appendLog(Codecs.Message), state.context.messages))
  return text.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (id) => {
    if (!names.has(id)) names.set(id, `id${names.size}`)
    return names.get(id) as string
  })
}
