// The demo: a real model when OPENAI_API_KEY is set, otherwise a local
// OpenAI-compatible server started here, so it runs offline, over real HTTP.
import { createOpenAI } from "@ai-sdk/openai"
import { HookExecuted, StopSignal } from "@hookline/core"
import { AiSdkDriver } from "@hookline/ai-sdk"
import { makeAgent } from "./agent.js"
import { startLocalModel } from "./localModel.js"
import { startTracing } from "./trace.js"

const apiKey = process.env["OPENAI_API_KEY"]
const local = apiKey ? undefined : await startLocalModel()
const openai = createOpenAI(local ? { baseURL: local.baseURL, apiKey: "local" } : { apiKey })
const model = openai.chat(local ? "local-scripted" : (process.env["OPENAI_MODEL"] ?? "gpt-4o-mini"))

console.log("hookline demo: an agent with two tools, guards, a tool policy and an audit hook")
console.log(local ? `model: a local OpenAI-compatible server at ${local.baseURL} (offline; set OPENAI_API_KEY for the real one)\n` : "model: OpenAI\n")

const tracing = process.argv.includes("--trace") ? startTracing() : undefined
const audit: Array<string> = []
const { sink, events } = HookExecuted.collect()
try {
  const final = await makeAgent(AiSdkDriver.make(model), (line) => audit.push(line), ...(tracing === undefined ? [] : [tracing.capability])).run("How many items are on my todo list?", { sink })

  console.log("Conversation:")
  for (const m of final.context.messages) {
    if (m.role === "assistant" && m.toolCalls.length > 0) {
      console.log(`  assistant  calls ${m.toolCalls.map((c) => `${c.name}(${JSON.stringify(c.arguments)})`).join(", ")}`)
    } else {
      console.log(`  ${m.role.padEnd(9)}  ${m.content.replace(/\n/g, " / ")}`)
    }
  }

  console.log("\nHook timeline (HookExecuted events on tools, or that changed something):")
  const t0 = events[0]?.startedAt ?? 0
  for (const e of events) {
    if (e.outcome === "unchanged" && !e.trigger.includes("Tool")) continue
    console.log(`  +${String(Math.round(e.startedAt - t0)).padStart(4)} ms  ${e.trigger.padEnd(15)} ${e.hook.padEnd(18)} ${e.outcome}`)
  }
  console.log(`  (${events.length} hook executions in all)`)

  const stop = StopSignal.highest(final.execution.stopSignals)
  console.log(`\nAudit log: ${audit.join("; ")}`)
  console.log(`Steps: ${final.execution.steps.length}; tokens: ${final.execution.usage.inputTokens} in, ${final.execution.usage.outputTokens} out`)
  console.log(`Status: ${final.execution.status} (${stop ? `${stop.reason}: ${stop.message}` : "no stop signal"})`)
  tracing?.print()
  if (final.execution.status === "failed") process.exitCode = 1
} finally {
  await local?.close()
}
