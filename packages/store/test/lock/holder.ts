// A process that opens the embedded store in a folder: `hold` keeps it open until it is
// killed; `save <runId>` stores a run, closes the store and exits.
import { AgentState, Message } from "@hookline/core"
import { PgliteStore, RunStore } from "../../src/index.js"

const [folder = "", mode = "hold", runId = "run"] = process.argv.slice(2)
const store = await PgliteStore.open({ dataDir: folder })
if (mode === "hold") {
  process.stdout.write("open\n")
  setInterval(() => undefined, 60_000)
} else {
  await RunStore.save(store, AgentState.make({ id: runId, messages: [Message.user(`saved by ${process.pid}`)] }))
  await RunStore.close(store)
  process.stdout.write("saved\n")
}
