// Process 1: `pnpm --filter @hookline/example-refund-desk start ["refund 250 on order A7"]`.
// The run asks for the refund; above the desk's limit it suspends, is checkpointed in
// the embedded store, and this process exits with the run id.
import { PgliteStore, RunStore } from "@hookline/store"
import { makeAgent, storeDir, type Desk } from "./desk.js"

const desk: Desk = { agent: "sam", approvalLimit: 100 }

const request = process.argv[2] ?? "Please refund 250 on order A7: the parcel never arrived."
const store = await PgliteStore.open({ dataDir: storeDir() })
try {
  const state = await makeAgent(store).run(request, { context: desk })
  console.log(`run: ${state.id}`)
  console.log(`status: ${state.execution.status}`)
  for (const pending of state.execution.pendingCalls ?? []) {
    console.log(`pending: ${pending.toolCall.id} ${JSON.stringify(pending.toolCall.arguments)} (${pending.reason})`)
  }
  if (state.execution.status === "suspended") console.log(`\nthen: pnpm --filter @hookline/example-refund-desk approve ${state.id}`)
  else console.log(`answer: ${state.context.messages.last()?.content ?? ""}`)
} finally {
  await RunStore.close(store)
}
