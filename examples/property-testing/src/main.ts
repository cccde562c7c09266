// Runs the agent and prints what the model was told: the redacted results and the block.
import { makeAgent } from "./agent.js"

const final = await makeAgent().run("What are our API keys?")
for (const message of final.context.messages) console.log(`${message.role.padEnd(9)} ${message.content}`)
console.log(`status: ${final.execution.status}, searches counted: ${final.execution.metadata["rate_limit:search"]}`)
