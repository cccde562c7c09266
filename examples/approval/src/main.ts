// `pnpm --filter @hookline/example-approval start ["refund 250 on order A7"]`: runs the
// agent; a refund above the limit suspends the run, and this process exits with the
// run id and the pending call. `approve`, `edit` or `reject` (decide.ts) finishes it.
import { PgliteStore, RunStore } from "@hookline/store"
import { makeAgent, storeDir } from "./agent.js"
import { report } from "./report.js"

const request = process.argv[2] ?? "Please refund 250 on order A7: the parcel never arrived."
const store = await PgliteStore.open({ dataDir: storeDir() })
try {
  const final = await makeAgent(store).run(request)
  console.log(report(final))
  if (final.execution.status === "suspended") {
    const command = "pnpm --filter @hookline/example-approval"
    console.log(`\nthen, in this process or any other:`)
    console.log(`  ${command} approve ${final.id}`)
    console.log(`  ${command} edit ${final.id} <amount>`)
    console.log(`  ${command} reject ${final.id} "<message for the model>"`)
  }
} finally {
  await RunStore.close(store)
}
