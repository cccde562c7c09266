// The agents module the cluster bench's runners load (`hookline-runner --agents`), and the
// in-process baselines use: the cluster tests' `charger` and `approver` with the charging
// model that keeps no log of its calls (the tests' ScriptedDriver keeps every request, and
// with it every run's messages: a leak of the bench, not of a runner).
// - $CHARGE_LOG: each tool execution is appended there (with the runner's pid and the time);
//   $TOOL_MS: each charge takes twice that long.
// - $MEM_LOG: SIGUSR2 collects garbage (the runner is started with --expose-gc) and appends
//   the heap in use there, so the bench reads a runner's memory from outside; with
//   $HEAP_DIR, it first writes a heap snapshot there (runner-<n>.heapsnapshot).
import type { ClusterAgent } from "@hookline/cluster"
import { appendFileSync, existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { writeHeapSnapshot } from "node:v8"
import { agents, unloggedChargeModel } from "../../packages/cluster/test/support/agents.js"

const chargeLog = process.env["CHARGE_LOG"]
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

// Annotated: inferred, the type is named through the tests' path to @hookline/cluster (TS2742).
const registered: ReadonlyArray<ClusterAgent.ClusterAgent> = agents(
  (charge) => {
    if (chargeLog !== undefined) appendFileSync(chargeLog, JSON.stringify({ ...charge, pid: process.pid, at: Date.now() }) + "\n")
  },
  Number(process.env["TOOL_MS"] ?? 0),
  { model: unloggedChargeModel },
)
export default registered
