import { HookStack, StopSignal } from "@hookline/core"
import { runScenario } from "./scenario.js"

const { events, final, stack } = runScenario()

console.log("hookline demo: a HookStack with guards over a scripted run (no model, no network)\n")
console.log("Resolved order per trigger (HookStack.explain):")
for (const { trigger, hooks } of HookStack.explain(stack)) {
  console.log(`  ${trigger.padEnd(16)} ${hooks.map((h) => `${h.name}(${h.priority})`).join(" -> ")}`)
}

console.log("\nTimeline of HookExecuted events:")
console.log(`  ${"t".padStart(4)}  ${"trigger".padEnd(16)} ${"hook".padEnd(20)} outcome`)
for (const e of events) {
  console.log(`  ${String(e.startedAt).padStart(4)}  ${e.trigger.padEnd(16)} ${e.hook.padEnd(20)} ${e.outcome}`)
}

console.log("\nConversation:")
for (const m of final.context.messages) {
  const calls = m.role === "assistant" ? m.toolCalls.map((c) => `${c.name}(${JSON.stringify(c.arguments)})`).join(", ") : ""
  console.log(`  ${m.role.padEnd(9)} ${m.role === "assistant" ? `calls ${calls}` : m.content}`)
}

const stop = StopSignal.highest(final.execution.stopSignals)
console.log(`\nSteps run: ${final.execution.steps.length}; tokens: ${final.execution.usage.inputTokens + final.execution.usage.outputTokens}`)
console.log(`Stopped by: ${stop ? `${stop.reason} (${stop.source}): ${stop.message}` : "nothing"}`)
console.log(`Status: ${final.execution.status}`)
