// The agents module of the cluster heap bench's runner (cluster-heap.ts): the cluster
// tests' agents with a model that keeps no log of its calls (the tests' ScriptedDriver
// keeps every request, and with it every run's messages: a leak of the bench, not of a
// runner). SIGUSR2 collects garbage (the runner is started with --expose-gc), appends the
// heap in use to $MEM_LOG and, when $HEAP_DIR is set, first writes a heap snapshot there.
import { appendFileSync, existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { writeHeapSnapshot } from "node:v8"
import { agents, unloggedChargeModel } from "../../packages/cluster/test/support/agents.js"

const memLog = process.env["MEM_LOG"]
const heapDir = process.env["HEAP_DIR"]
if (memLog !== undefined) {
  process.on("SIGUSR2", () => {
    const gc = (globalThis as { gc?: () => void }).gc
    gc?.()
    gc?.()
    if (heapDir !== undefined) {
      const n = existsSync(memLog) ? readFileSync(memLog, "utf8").split("\n").filter((l) => l !== "").length : 0
      writeHeapSnapshot(join(heapDir, `runner-${n}.heapsnapshot`))
    }
    appendFileSync(memLog, `${process.memoryUsage().heapUsed}\n`)
  })
}

export default agents(() => undefined, 0, { model: unloggedChargeModel })
