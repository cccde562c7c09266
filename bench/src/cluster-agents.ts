// The agents module the cluster bench's runners load (`hookline-runner --agents`): the
// cluster tests' `charger` and `approver`. Each tool execution is appended to $CHARGE_LOG
// (with the runner's pid and the time) when it is set; SIGUSR2 collects garbage (the runner is started
// with --expose-gc) and appends the heap in use to $MEM_LOG, so the bench reads a runner's
// memory from outside.
import { appendFileSync } from "node:fs"
import { agents } from "../../packages/cluster/test/support/agents.js"

const chargeLog = process.env["CHARGE_LOG"]
const memLog = process.env["MEM_LOG"]
if (memLog !== undefined) {
  process.on("SIGUSR2", () => {
    const gc = (globalThis as { gc?: () => void }).gc
    gc?.()
    gc?.()
    appendFileSync(memLog, `${process.memoryUsage().heapUsed}\n`)
  })
}

export default agents(
  (charge) => {
    if (chargeLog !== undefined) appendFileSync(chargeLog, JSON.stringify({ ...charge, pid: process.pid, at: Date.now() }) + "\n")
  },
  Number(process.env["TOOL_MS"] ?? 0),
)
