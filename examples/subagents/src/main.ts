import { runSession } from "./session.js"

const { lines, final } = await runSession()
for (const line of lines) console.log(line)
console.log(`tokens: ${final.execution.usage.inputTokens} in, ${final.execution.usage.outputTokens} out (the subagents' included)`)
