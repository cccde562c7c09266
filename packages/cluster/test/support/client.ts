// The test's client process. Modes:
//   runs <db> <prefix> <count>: starts <count> `charger` runs, prints `done <runId> <status> <ms>` as each ends.
//   suspend <db> <prefix> <count>: starts `approver` runs, prints `suspended <runId> <callId>` for each.
//   resume <db> <ids.json> <cancelId>: cancels one run, approves the others' calls; prints `done …` for each.
import { Decision } from "@hookline/agent"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { Client, Runner } from "../../src/index.js"

const [mode, database, arg, extra] = process.argv.slice(2) as [string, string, string, string]
const settings = { assignmentsRefresh: "1 second" as const, messagePoll: "1 second" as const }
const say = (line: string) => process.stdout.write(`${line}\n`)

const program = Effect.gen(function*() {
  const client = yield* Client.HooklineClient
  say("ready")
  if (mode === "runs" || mode === "suspend") {
    const count = Number(extra)
    const ids = Array.from({ length: count }, (_, i) => `${arg}-${i}`)
    yield* Effect.forEach(ids, (runId) => client.start(mode === "runs" ? "charger" : "approver", "charge me", { runId }), { concurrency: 50 })
    yield* Effect.forEach(ids, (runId) =>
      Effect.map(client.result(runId), (s) =>
        say(mode === "runs" ? `done ${runId} ${s.status} ${Date.now()}` : `suspended ${runId} ${s.pending[0]?.toolCallId ?? "none"}`)), { concurrency: "unbounded" })
  } else {
    const pending = JSON.parse(readFileSync(arg, "utf8")) as ReadonlyArray<{ readonly runId: string; readonly callId: string }>
    yield* client.cancel(extra)
    yield* Effect.forEach(pending, ({ runId, callId }) =>
      Effect.map(client.resume(runId, [Decision.approve(callId)]), (s) => say(`done ${runId} ${s.status} ${Date.now()}`)), { concurrency: "unbounded" })
  }
})

await Effect.runPromise(Effect.scoped(program.pipe(Effect.provide(Runner.clientLayer({ database, settings, client: { pollInterval: "250 millis" } })))))
process.exit(0)
