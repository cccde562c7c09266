// The model's reasoning in a chat (issue 25): the UI message stream's reasoning parts
// (toUIMessageStream), the reloaded history's (toUIMessages), and the AI SDK Agent's
// (toAiSdkAgent), each read with the AI SDK's own UI stream reader, as useChat reads them.
import { AgentBuilder, type AgentLoop, Tool, UseDriver, UseLoopOptions, UseTools } from "@hookline/agent"
import { AgentState, Message } from "@hookline/core"
import { MemoryStore, RunStore, UseCheckpoints } from "@hookline/store"
import { ScriptedDriver } from "@hookline/testing"
import { createAgentUIStream, readUIMessageStream, type UIMessage, type UIMessageChunk } from "ai"
import * as t from "io-ts"
import { describe, expect, it } from "vitest"
import { toAiSdkAgent, toUIMessages, toUIMessageStream } from "@hookline/ai-sdk"

// Thinks, looks the order up, thinks again, answers; the second answer's text comes with no reasoning.
const makeAgent = (textDeltas: AgentLoop.TextDeltas = "auto") => {
  const lookup = Tool.make({
    name: "lookup",
    description: "Looks an order up",
    parameters: t.type({ order: t.string }),
    execute: ({ order }) => ({ order, status: "shipped" }),
  })
  const model = ScriptedDriver.make([
    ScriptedDriver.toolCalls([{ id: "call-1", name: "lookup", arguments: { order: "A1" } }], {
      text: "Let me look.",
      reasoning: "The user asks about A1. I should look it up.",
      reasoningChunks: ["The user asks about A1.", " I should look it up."],
    }),
    ScriptedDriver.text("A1 has shipped.", { reasoning: "It says shipped." }),
    ScriptedDriver.text("You are welcome."),
  ])
  const store = MemoryStore.make()
  const agent = AgentBuilder.make(UseDriver(model), UseTools([lookup]), UseCheckpoints(store), UseLoopOptions({ textDeltas }))
  const load = (id: string) => RunStore.load(store, id).then((saved) => saved?.state)
  return { agent, load }
}

type Part = UIMessage["parts"][number]
// The parts a person sees, in order: reasoning, text and tool parts.
const shown = (m: UIMessage | undefined) =>
  (m?.parts ?? []).flatMap((p: Part) =>
    p.type === "reasoning" ? [`reasoning:${p.text}`] : p.type === "text" ? [`text:${p.text}`] : "toolCallId" in p ? [`tool:${p.toolCallId}`] : []
  )

const read = async (stream: ReadableStream<UIMessageChunk>): Promise<UIMessage | undefined> => {
  let last: UIMessage | undefined
  for await (const m of readUIMessageStream({ stream })) last = m
  return last
}

const collect = async (stream: ReadableStream<UIMessageChunk>): Promise<Array<UIMessageChunk>> => {
  const out: Array<UIMessageChunk> = []
  for await (const chunk of stream as unknown as AsyncIterable<UIMessageChunk>) out.push(chunk)
  return out
}

const expected = [
  "reasoning:The user asks about A1. I should look it up.",
  "text:Let me look.",
  "tool:call-1",
  "reasoning:It says shipped.",
  "text:A1 has shipped.",
]

describe("reasoning in a chat", () => {
  it("toUIMessageStream shows the reasoning as reasoning parts before the text, each closed, ids per stream", async () => {
    const { agent } = makeAgent()
    const chunks = await collect(toUIMessageStream(agent.stream("Where is A1?")))
    const reasoning = chunks.filter((c) => c.type.startsWith("reasoning-"))
    // UseCheckpoints' AfterInference hook makes the text checked: each step's reasoning comes whole.
    expect(reasoning.map((c) => c.type)).toEqual([
      "reasoning-start", "reasoning-delta", "reasoning-end", "reasoning-start", "reasoning-delta", "reasoning-end",
    ])
    const ids = new Set(reasoning.map((c) => (c as { readonly id: string }).id))
    expect(ids.size).toBe(2)
    // The reasoning part ends before the text part starts.
    const types = chunks.map((c) => c.type)
    expect(types.indexOf("reasoning-end")).toBeLessThan(types.indexOf("text-start"))
    expect(shown(await read(toUIMessageStream(makeAgent().agent.stream("Where is A1?"))))).toEqual(expected)
  })

  it("toUIMessageStream streams live reasoning delta by delta, in one part per step", async () => {
    const { agent } = makeAgent("live")
    const chunks = await collect(toUIMessageStream(agent.stream("Where is A1?")))
    const deltas = chunks.flatMap((c) => (c.type === "reasoning-delta" ? [`${c.id}:${c.delta}`] : []))
    expect(deltas.map((d) => d.replace(/^.*-reasoning-/, ""))).toEqual(["0:The user asks about A1.", "0: I should look it up.", "1:It says shipped."])
  })

  it("toUIMessages gives a reloaded chat the reasoning its steps kept", async () => {
    const { agent, load } = makeAgent()
    await collect(toUIMessageStream(agent.stream(AgentState.make({ id: "chat-1", messages: [Message.user("Where is A1?")] }))))
    const history = toUIMessages((await load("chat-1"))!)
    expect(history.map((m) => m.role)).toEqual(["user", "assistant"])
    expect(shown(history[1])).toEqual(expected)
    expect(history[1]?.parts.find((p) => p.type === "reasoning")).toMatchObject({ state: "done" })
  })

  it("toAiSdkAgent's stream carries the reasoning as the AI SDK's own reasoning parts", async () => {
    const { agent, load } = makeAgent()
    const sdkAgent = toAiSdkAgent(agent, { id: "desk", load })
    const stream = await createAgentUIStream({
      agent: sdkAgent,
      uiMessages: [{ id: "u1", role: "user", parts: [{ type: "text", text: "Where is A1?" }] }],
      options: { chatId: "agent-1", messageId: "u1" },
    })
    expect(shown(await read(stream))).toEqual(expected)
  })

  it("toAiSdkAgent's generate gives the reasoning as the result's reasoning text", async () => {
    const { agent, load } = makeAgent()
    const sdkAgent = toAiSdkAgent(agent, { id: "desk", load })
    const result = await sdkAgent.generate({ prompt: "Where is A1?", options: { chatId: "agent-2" } })
    // The turn is one model step of the AI SDK's: its reasoning parts, joined.
    expect(result.steps.at(-1)?.reasoningText).toBe("The user asks about A1. I should look it up.It says shipped.")
    expect(result.steps.at(-1)?.reasoning.map((p) => p.type)).toEqual(["reasoning", "reasoning"])
  })
})
