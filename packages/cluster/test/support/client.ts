// The test's client process. Modes:
//   runs <db> <prefix> <count>: starts <count> `charger` runs, prints `done <runId> <status> <ms>` as each ends,
//     and, with WATCH_EVENTS=1, `events <runId> <step indexes> <last tag> <status>` for every tenth run, its
//     events streamed as it went (and how often its stream went on after a CallTimedOut).
//   suspend <db> <prefix> <count>: starts `approver` runs, prints `suspended <runId> <callId>` for each.
//   resume <db> <ids.json> <cancelId>: cancels one run, approves the others' calls; prints `done …` for each.
//   watch <db> <prefix> <count> <goFile>: starts `approver` runs, prints `suspended …` for each, waits for
//     <goFile> (the test killed their runner, the only one, meanwhile) and asks the first run's status,
//     printing `alone <status or error tag> <ms>`; waits for <goFile>.2 (another runner came), then asks
//     each run's status and cancels the first: `status <runId> <status> <ms>`, `cancelled <runId> <status> <ms>`
//     (a call that failed: its error's tag for the status).
// LOCK_MS (ms) is the runners' lock expiry (required); CALL_TIMEOUT (ms) sets the client's callTimeout. Every run's Start is stored before its
// `result` is asked, so a run not found yet is one no runner has handled yet (its runner
// was killed, or the machine is loaded): `notFoundAfter` is the test's ceiling, 5 minutes.
import { Decision } from "@hookline/agent"
import { Effect, Result, Stream } from "effect"
import { existsSync, readFileSync } from "node:fs"
import { Client, Runner, RunEvent } from "../../src/index.js"

const [mode, database, arg, extra, goFile] = process.argv.slice(2) as [string, string, string, string, string]
// The runners' lock expiry and refresh (LOCK_MS, the test's): effect/cluster counts a runner
// alive while its heartbeat row is younger than the reading process's own lock expiry, so a
// client with the default 10 s against runners' 3 s sent a dead runner's shards to it for 7 s
// more than the runners took to move them.
const lockMs = Number(process.env["LOCK_MS"])
if (!(lockMs > 0)) throw new Error("LOCK_MS: the runners' lock expiry in ms is required")
const settings = { lockExpiration: `${lockMs} millis`, lockRefresh: `${Math.round(lockMs / 3)} millis`, assignmentsRefresh: "1 second", messagePoll: "1 second" } as const
const say = (line: string) => process.stdout.write(`${line}\n`)

const program = Effect.gen(function*() {
  const client = yield* Client.HooklineClient
  say("ready")
  if (mode === "watch") {
    const ids = Array.from({ length: Number(extra) }, (_, i) => `${arg}-${i}`)
    yield* Effect.forEach(ids, (runId) => client.start("approver", "charge me", { runId }), { concurrency: 50 })
    yield* Effect.forEach(ids, (runId) => Effect.map(client.result(runId), (s) => say(`suspended ${runId} ${s.pending[0]?.toolCallId ?? "none"}`)), {
      concurrency: "unbounded",
    })
    while (!existsSync(goFile)) yield* Effect.sleep("50 millis")
    const began = Date.now()
    const alone = yield* Effect.match(client.status(ids[0] as string), { onSuccess: (s) => s.status, onFailure: (e) => e._tag })
    say(`alone ${alone} ${Date.now() - began}`)
    while (!existsSync(`${goFile}.2`)) yield* Effect.sleep("50 millis")
    // A call that fails is printed with its error's tag in place of the status.
    const timed = <A, E extends { readonly _tag: string }>(call: Effect.Effect<A, E>, status: (a: A) => string) =>
      Effect.gen(function*() {
        const began = Date.now()
        const answer = yield* Effect.match(call, { onSuccess: status, onFailure: (e) => e._tag })
        return [answer, Date.now() - began] as const
      })
    for (const runId of ids) {
      const [s, ms] = yield* timed(client.status(runId), (s) => s.status)
      say(`status ${runId} ${s} ${ms}`)
    }
    const [c, ms] = yield* timed(client.cancel(ids[0] as string), (c) => c?.status ?? "none")
    say(`cancelled ${ids[0]} ${c} ${ms}`)
  } else if (mode === "runs" || mode === "suspend") {
    const count = Number(extra)
    const ids = Array.from({ length: count }, (_, i) => `${arg}-${i}`)
    yield* Effect.forEach(ids, (runId) => client.start(mode === "runs" ? "charger" : "approver", "charge me", { runId }), { concurrency: 50 })
    const results = Effect.forEach(ids, (runId) =>
      Effect.map(client.result(runId), (s) =>
        say(mode === "runs" ? `done ${runId} ${s.status} ${Date.now()}` : `suspended ${runId} ${s.pending[0]?.toolCallId ?? "none"}`)), { concurrency: "unbounded" })
    // Every tenth run's events, streamed as it goes: `events <runId> <step indexes> <last tag> <status> <restarts>`.
    // A stream that fails with CallTimedOut (no runner answered for callTimeout: its run's
    // runner died, or the machine is that loaded) goes on after its last event's cursor, as
    // a caller should (the test's timeout bounds it).
    const watched = mode === "runs" && process.env["WATCH_EVENTS"] === "1" ? ids.filter((_, i) => i % 10 === 0) : []
    const follow = (runId: string) =>
      Effect.gen(function*() {
        const events: Array<RunEvent.RunEvent> = []
        for (let restarts = 0;; restarts++) {
          const after = events.at(-1)?.cursor
          const ended = yield* Effect.result(Stream.runForEach(client.events(runId, after === undefined ? {} : { after }), (e) => Effect.sync(() => events.push(e))))
          if (Result.isSuccess(ended)) return [events, restarts] as const
          if (ended.failure._tag !== "CallTimedOut") return yield* Effect.fail(ended.failure)
        }
      })
    const watches = Effect.forEach(watched, (runId) =>
      Effect.map(follow(runId), ([events, restarts]) => {
        const last = events.at(-1)
        const indexes = events.flatMap((e) => (e._tag === "StepEnded" ? [e.index] : [])).join(",")
        say(`events ${runId} ${indexes} ${last?._tag ?? "none"} ${last !== undefined && last._tag !== "StepEnded" ? last.summary.status : "none"} ${restarts}`)
      }), { concurrency: "unbounded" })
    yield* Effect.all([results, watches], { concurrency: 2 })
  } else {
    const pending = JSON.parse(readFileSync(arg, "utf8")) as ReadonlyArray<{ readonly runId: string; readonly callId: string }>
    yield* client.cancel(extra)
    yield* Effect.forEach(pending, ({ runId, callId }) =>
      Effect.map(client.resume(runId, [Decision.approve(callId)]), (s) => say(`done ${runId} ${s.status} ${Date.now()}`)), { concurrency: "unbounded" })
  }
})

await Effect.runPromise(Effect.scoped(program.pipe(Effect.provide(Runner.clientLayer({ database, settings, client: { pollInterval: "250 millis", eventsPollInterval: "1 second", notFoundAfter: "5 minutes", ...(process.env["CALL_TIMEOUT"] === undefined ? {} : { callTimeout: Number(process.env["CALL_TIMEOUT"]) }) } })))))
process.exit(0)
