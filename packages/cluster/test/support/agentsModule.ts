// The agents module the test's runner processes load (`hookline-runner --agents`): each
// tool execution is appended to $CHARGE_LOG with this process's pid, so the test sees
// which runner ran what, and every repeat; with $LOG_BEGUN=1 each execution a runner
// begins goes to $CHARGE_LOG.begun. With $CHARGE_DB, each execution first asks the
// store whether its call's result is journaled already (it must never be: a journaled
// call is replayed, not run).
import { PostgresStore } from "@hookline/store"
import { Effect } from "effect"
import { appendFileSync } from "node:fs"
import { agents } from "./agents.js"

const log = process.env["CHARGE_LOG"] as string
const toolMillis = Number(process.env["TOOL_MS"] ?? 0)
const database = process.env["CHARGE_DB"]
const store = database === undefined ? undefined : await PostgresStore.open({ connectionString: database, max: 2 })

export default agents((charge) => appendFileSync(log, JSON.stringify({ ...charge, pid: process.pid }) + "\n"), toolMillis, {
  // With $LOG_BEGUN=1, each execution a runner begins (a start, a resume, a take-over), to
  // <log>.begun. Only the SIGKILL case asks. (With it on every runner a SIGTERMed runner once
  // handed its runs over rather than draining them: its runs were in flight longer, past
  // effect/cluster's teardown; the runner now drains before it, docs/decisions.md.)
  onBegin: process.env["LOG_BEGUN"] !== "1" ? undefined : (runId) => appendFileSync(`${log}.begun`, JSON.stringify({ runId, pid: process.pid, at: Date.now() }) + "\n"),
  journaled: store === undefined ? undefined : (runId, key) => Effect.runPromise(Effect.map(store.journalGet(runId, key), (body) => body !== undefined)),
})
