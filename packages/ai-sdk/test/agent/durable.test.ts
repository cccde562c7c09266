// toAiSdkAgent on a durable store: the run one process suspended is approved by the next
// (a new agent over the reopened PGlite folder), through createAgentUIStream. Not in the
// ai 7 leg: PGlite opens twice, seconds each, and the leg runs the file on two Nodes.
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { PgliteStore, RunStore } from "@hookline/store"
import { createAgentUIStream, readUIMessageStream, type UIMessage } from "ai"
import { describe, expect, it } from "vitest"
import { toAiSdkAgent } from "@hookline/ai-sdk"
import { answer, makeChat, user } from "../chat/support/refundChat.js"

type Part = UIMessage["parts"][number]
const toolParts = (m: UIMessage) => m.parts.filter((p): p is Extract<Part, { toolCallId: string }> => "toolCallId" in p)

describe("on a durable store (PGlite)", () => {
  it("a turn suspended by one process is approved in the next: the refund runs once, the conversation goes on", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "hookline-agent-v1-"))
    try {
      const read = async (agent: ReturnType<typeof toAiSdkAgent<unknown>>, uiMessages: Array<UIMessage>, messageId?: string) => {
        const stream = await createAgentUIStream({ agent, uiMessages, options: { chatId: "pg-chat", ...(messageId === undefined ? {} : { messageId }) } })
        let last: UIMessage | undefined
        for await (const m of readUIMessageStream({ stream, ...(uiMessages.at(-1)?.role === "assistant" ? { message: structuredClone(uiMessages.at(-1)!) } : {}) })) last = m
        return last!
      }
      const first = user("u1", "refund 250 on order P1")
      const store1 = await PgliteStore.open({ dataDir })
      const one = makeChat({ store: store1 })
      const asked = await read(toAiSdkAgent(one.agent, { load: one.load }), [first], "u1")
      expect(toolParts(asked)).toMatchObject([{ toolCallId: "call-1", state: "approval-requested" }])
      await RunStore.close(store1)

      const store2 = await PgliteStore.open({ dataDir })
      try {
        const two = makeChat({ store: store2 })
        const agent2 = toAiSdkAgent(two.agent, { load: two.load })
        const approved = answer(asked, "call-1", true)
        const done = await read(agent2, [first, approved])
        expect(toolParts(done)).toMatchObject([{ toolCallId: "call-1", state: "output-available", output: { refunded: 250, order: "P1" } }])
        await read(agent2, [first, approved])
        await read(agent2, [first], "u1")
        expect([...one.refunds, ...two.refunds]).toEqual([{ order: "P1", amount: 250, role: undefined }])
        expect((await two.load("pg-chat"))?.execution.status).toBe("completed")
      } finally {
        await RunStore.close(store2)
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 120_000) // PGlite opens twice: seconds each on a loaded machine
})
