// The built @hookline/ai-sdk (dist, ESM and CJS) driving an AI SDK 7 model
// (@ai-sdk/openai 4, spec v4) over the loopback OpenAI-compatible server: a tool call round
// trip by generate, streamed text, and usage. Run by run.mjs under each Node binary, with
// redirect-ai.mjs imported first. Prints one line per check; exits 1 on any failure.
import { createRequire } from "node:module"

const { start, reply } = await import("../../packages/ai-sdk/test/support/openaiServer.ts")
const require = createRequire(import.meta.url)
const { createOpenAI } = await import("@ai-sdk/openai")
const { z } = await import("zod")

let failures = 0
const check = (ok, what) => {
  console.log(`${ok ? "ok  " : "FAIL"} ${what}`)
  if (!ok) failures++
}

const server = await start()
try {
  const model = createOpenAI({ baseURL: server.baseURL, apiKey: "sk-smoke" }).chat("gpt-4o-mini")
  check(model.specificationVersion === "v4", `@ai-sdk/openai 4 gives a ${model.specificationVersion} model`)
  for (const [label, load] of [["ESM", (n) => import(n)], ["CJS", async (n) => require(n)]]) {
    const { AiSdkDriver } = await load("@hookline/ai-sdk")
    const { AgentBuilder, Tool, UseDriver, UseTools } = await load("@hookline/agent")
    check(AiSdkDriver.supportedModelVersions.includes("v4"), `dist (${label}) runs on ai 7: drives ${AiSdkDriver.supportedModelVersions.join(", ")}`)
    let added = 0
    const add = Tool.make({
      name: "add",
      description: "Adds two numbers",
      parameters: z.object({ a: z.number(), b: z.number() }),
      execute: ({ a, b }) => (added++, a + b),
    })
    const agent = AgentBuilder.make(UseDriver(AiSdkDriver.make(model)), UseTools([add]))
    server.script(reply.toolCalls({ id: "call_1", name: "add", arguments: { a: 2, b: 3 } }), reply.text("The sum is 5."))
    const ran = await agent.run("what is 2+3?")
    check(
      ran.execution.status === "completed" && added === 1 && ran.context.messages.at(-1)?.content === "The sum is 5.",
      `dist (${label}): generate runs a tool call round trip`,
    )
    check(ran.execution.usage.inputTokens === 22 && ran.execution.usage.outputTokens === 14, `dist (${label}): usage of both calls adds up`)
    server.script(reply.text("Hello there, world"))
    let text = ""
    let status
    for await (const event of agent.stream("hi")) {
      if (event._tag === "TextDelta") text += event.text
      if (event._tag === "RunEnded") status = event.state.execution.status
    }
    check(status === "completed" && text === "Hello there, world", `dist (${label}): stream gives the text as deltas`)
    // The other direction: the hookline agent as an AI SDK 7 Agent, run by ai 7's own generateText.
    const { toAiSdkAgent } = await load("@hookline/ai-sdk")
    const sdkAgent = toAiSdkAgent(agent, { id: "smoke", load: async () => undefined })
    server.script(reply.toolCalls({ id: "call_2", name: "add", arguments: { a: 1, b: 1 } }), reply.text("Two."))
    const result = await sdkAgent.generate({ prompt: "what is 1+1?", options: { chatId: `smoke-${label}` } })
    check(
      sdkAgent.version === "agent-v1" && result.text === "Two." && result.steps.length === 1 && result.toolResults[0]?.output === 2 && result.usage.inputTokens === 22,
      `dist (${label}): toAiSdkAgent's generate is ai 7's generateText result (text, one step, the tool's result, usage)`,
    )
  }
} finally {
  await server.close()
}

console.log(failures === 0 ? `smoke (ai 7, Node ${process.versions.node}): the dist drives a v4 model` : `smoke: ${failures} failed`)
process.exit(failures === 0 ? 0 : 1)
