import { AgentState, HookExecuted, StopSignal } from "@hookline/core"
import { makeAgent } from "./agent.js"

const audit: Array<string> = []
const agent = makeAgent((line) => audit.push(line))
const { sink, events } = HookExecuted.collect()

console.log("hookline demo: an agent with two tools, guards, a tool policy and an audit hook")
console.log("(the model is scripted: this runs offline)\n")

process.stdout.write("assistant (streamed): ")
let final: AgentState | undefined
for await (const event of agent.stream("How many items are on my todo list?", { sink })) {
  if (event._tag === "TextDelta") process.stdout.write(event.text)
  if (event._tag === "RunEnded") final = event.state
}
process.stdout.write("\n\n")
if (final === undefined) throw new Error("the run did not end")

console.log("Conversation:")
for (const m of final.context.messages) {
  if (m.role === "assistant" && m.toolCalls.length > 0) {
    console.log(`  assistant  calls ${m.toolCalls.map((c) => `${c.name}(${JSON.stringify(c.arguments)})`).join(", ")}`)
  } else {
    console.log(`  ${m.role.padEnd(9)}  ${m.content.replace(/\n/g, " / ")}`)
  }
}

console.log("\nHook timeline (HookExecuted events, hooks that changed something or on tools):")
const t0 = events[0]?.startedAt ?? 0
for (const e of events) {
  if (e.outcome === "unchanged" && !e.trigger.includes("Tool")) continue
  console.log(`  +${String(Math.round(e.startedAt - t0)).padStart(3)} ms  ${e.trigger.padEnd(15)} ${e.hook.padEnd(18)} ${e.outcome}`)
}
console.log(`  (${events.length} hook executions in all)`)

console.log(`\nAudit log: ${audit.join("; ")}`)
const stop = StopSignal.highest(final.execution.stopSignals)
console.log(`Steps: ${final.execution.steps.length}; tokens: ${final.execution.usage.inputTokens} in, ${final.execution.usage.outputTokens} out`)
console.log(`Status: ${final.execution.status} (${stop ? `${stop.reason}: ${stop.message}` : "no stop signal"})`)
console.log(`Errors fed back to the model: ${final.execution.errors.map((e) => e.message).join("; ") || "none"}`)
