import { makeAgent } from "./agent.js"

const final = await makeAgent().run("What is in my notes?")
for (const message of final.context.messages) {
  const who = message.role === "tool" ? `tool ${message.toolName}` : message.role
  const calls = message.role === "assistant" && message.toolCalls.length > 0
    ? ` -> ${message.toolCalls.map((c) => `${c.name}(${JSON.stringify(c.arguments)})`).join(", ")}`
    : ""
  console.log(`${who}: ${message.content}${calls}`)
}
console.log(`status: ${final.execution.status}`)
