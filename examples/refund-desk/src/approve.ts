// Process 2: `pnpm --filter @hookline/example-refund-desk approve <runId>`. A person
// approves every call the run waits on; the run goes on from the store and its answer
// is streamed as it comes (`agent.resumeStream`).
import { Decision } from "@hookline/agent"
import { PgliteStore, RunStore } from "@hookline/store"
import { makeAgent, storeDir, type Desk } from "./desk.js"

const desk: Desk = { agent: "sam", approvalLimit: 100 }

const runId = process.argv[2]
if (runId === undefined || runId.trim() === "") {
  console.error("usage: approve.ts <runId>")
  process.exit(2)
}
const store = await PgliteStore.open({ dataDir: storeDir() })
try {
  const saved = await RunStore.load(store, runId)
  if (saved === undefined || saved.state.execution.status !== "suspended") {
    console.error(`run ${runId} is ${saved?.state.execution.status ?? "not in the store"}: nothing to approve`)
    process.exitCode = 1
  } else {
    const decisions = (saved.state.execution.pendingCalls ?? []).map((p) => Decision.approve(p.toolCall.id))
    for await (const event of makeAgent(store).resumeStream(runId, { decisions, context: desk })) {
      if (event._tag === "ToolResult") console.log(`tool: ${event.execution.toolCall.name} ${event.execution.status}`)
      if (event._tag === "TextDelta") console.log(`text: ${event.text}`)
      if (event._tag === "RunEnded") {
        console.log(`status: ${event.state.execution.status}`)
        console.log(`answer: ${event.state.context.messages.last()?.content ?? ""}`)
      }
    }
  }
} finally {
  await RunStore.close(store)
}
