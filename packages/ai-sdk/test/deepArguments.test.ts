// Issue 12, item 3: a model that sends tool arguments nested 10,000 levels deep gets
// a ToolArgumentsInvalid it can correct, through the AI SDK driver too (the run does
// not fail with InferenceFailed).
import { describe, expect, it } from "vitest"
import { MockLanguageModelV3 } from "ai/test"
import { Codecs } from "@hookline/core"
import { AgentBuilder, Tool, UseDriver, UseTools } from "@hookline/agent"
import { AiSdkDriver } from "@hookline/ai-sdk"

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 1, text: 1, reasoning: undefined } }
const response = { id: "r", modelId: "mock", timestamp: new Date(0) }
const deepJson = "{\"a\":".repeat(10_000) + "1" + "}".repeat(10_000)

const add = Tool.make({ name: "add", parameters: Codecs.JsonObject, jsonSchema: { type: "object" }, execute: () => 1 })

describe("AiSdkDriver with arguments nested 10,000 levels deep", () => {
  it("gives the model a ToolArgumentsInvalid; the run completes and its state round-trips", async () => {
    const model = new MockLanguageModelV3({
      doGenerate: [
        { content: [{ type: "tool-call", toolCallId: "c1", toolName: "add", input: deepJson }], finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage, warnings: [], response },
        { content: [{ type: "text", text: "sorry" }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [], response },
      ],
    })
    const agent = AgentBuilder.make(UseDriver(AiSdkDriver.make(model)), UseTools([add]))
    const final = await agent.run("hi")
    expect(final.execution.errors.map((e) => e.message)).toEqual([expect.stringMatching(/nested deeper than 512 levels/)])
    expect(final.execution.status).toBe("completed")
    expect(final.execution.errors.map((e) => e._tag)).toEqual(["ToolArgumentsInvalid"])
    expect(final.context.messages.at(-2)).toMatchObject({ role: "tool", toolCallId: "c1", isError: true })
    expect(Codecs.decode(Codecs.AgentState, JSON.parse(JSON.stringify(Codecs.AgentState.encode(final))))._tag).toBe("Success")
  })
})
