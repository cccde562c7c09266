// The agents module the test's runner processes load (`hookline-runner --agents`): each
// tool execution is appended to $CHARGE_LOG with this process's pid, so the test sees
// which runner ran what, and every repeat.
import { appendFileSync } from "node:fs"
import { agents } from "./agents.js"

const log = process.env["CHARGE_LOG"] as string
const toolMillis = Number(process.env["TOOL_MS"] ?? 0)

export default agents((charge) => appendFileSync(log, JSON.stringify({ ...charge, pid: process.pid }) + "\n"), toolMillis)
