import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createOpenAI } from "@ai-sdk/openai"
import { AiSdkDriver } from "@hookline/ai-sdk"
import { makeAgent } from "../src/agent.js"
import { startLocalModel, type LocalModel } from "../src/localModel.js"

describe("http-agent example", () => {
  let local: LocalModel
  beforeAll(async () => {
    local = await startLocalModel()
  })
  afterAll(() => local.close())

  it("runs the whole conversation over HTTP, blocking the read outside notes/", async () => {
    const model = createOpenAI({ baseURL: local.baseURL, apiKey: "local" }).chat("local-scripted")
    const audit: Array<string> = []
    const final = await makeAgent(AiSdkDriver.make(model), (line) => audit.push(line)).run("How many items?")
    expect(final.execution.status).toBe("completed")
    expect(final.context.messages.last()?.content).toBe("Your todo list has 2 items: buy milk, ship hookline.")
    expect(audit).toEqual(["read_file -> success", "read_file -> blocked", "count_lines -> success"])
    expect(local.requests()).toBe(4)
    expect(final.execution.usage.inputTokens).toBe(100 + 160 + 220 + 280)
  })
})

describe("http-agent example --trace", () => {
  let local: LocalModel
  beforeAll(async () => {
    local = await startLocalModel()
  })
  afterAll(() => local.close())

  it("prints the run's span tree: the run, its model calls, its tools (the blocked read marked) and their hook events", async () => {
    const { startTracing } = await import("../src/trace.js")
    const tracing = startTracing()
    const model = createOpenAI({ baseURL: local.baseURL, apiKey: "local" }).chat("local-scripted")
    const final = await makeAgent(AiSdkDriver.make(model), () => {}, tracing.capability).run("How many items?")
    expect(final.execution.status).toBe("completed")
    const spans = tracing.lines().filter((l) => !l.includes("· hook")).map((l) => l.replace(/ {2}\([\d.]+ ms\)/, ""))
    expect(spans).toEqual([
      "  invoke_agent notes",
      "    chat local-scripted",
      "    execute_tool read_file",
      "    chat local-scripted",
      "    execute_tool read_file  error.type=blocked",
      "    chat local-scripted",
      "    execute_tool count_lines",
      "    chat local-scripted",
    ])
    expect(tracing.lines()).toContain("      · hook policy:notes_only on BeforeToolUse: blocked")
  })
})
