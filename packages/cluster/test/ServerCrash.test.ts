// A runner that is also a client, across a crash of PostgreSQL just after its run's reply:
// the reply (and the runner's mark of the Start as read) did not wait for the WAL flush,
// so the crash loses it and the Start is unprocessed again; once PostgreSQL is back the
// runner takes its shards again, reads the Start again and answers it from the run's
// store: the run is not run again (no tool call again, its checkpoints as they were), and
// `result` answers as before.
import { Effect, Layer, ManagedRuntime } from "effect"
import { RunnerAddress } from "effect/cluster"
import { SqlClient } from "effect/sql"
import { describe, expect, it } from "vitest"
import { crashableServer } from "../../store/test/support/crashableServer.js"
import { freePort } from "../../store/test/support/postgres.js"
import { Client, RunEntity, Runner, Settings } from "../src/index.js"
import { flushingSqlLayer, runnerCluster } from "../src/internal/storage.js"
import { agents, type Charge } from "./support/agents.js"

const server = crashableServer()
const connectionString = () => server().connectionString


// What PostgreSQL holds now of a run: its Start's row (processed or not, its replies) and
// the run's head, read on a fresh connection.
const stored = (runId: string) =>
  Effect.runPromise(
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const start = yield* sql<{ readonly processed: boolean; readonly replies: number }>`
        SELECT processed, (SELECT count(*)::int FROM cluster_replies r WHERE r.request_id = m.id) AS replies
        FROM cluster_messages m WHERE m.entity_id = ${runId} AND m.tag = 'Start'`
      const head = yield* sql<{ readonly seq: number; readonly status: string }>`
        SELECT seq::int AS seq, status FROM hookline_runs WHERE run_id = ${runId}`
      return { start: start[0], head: head[0] }
    }).pipe(Effect.provide(flushingSqlLayer(connectionString(), 1))),
  )

const waitFor = async <A>(read: () => Promise<A>, done: (a: A) => boolean, what: string, bound = 90_000, every = 200): Promise<A> => {
  const until = Date.now() + bound
  for (;;) {
    const value = await read().catch(() => undefined)
    if (value !== undefined && done(value)) return value
    if (Date.now() > until) throw new Error(`gave up waiting for ${what}; last: ${JSON.stringify(value)}`)
    await new Promise((resolve) => setTimeout(resolve, every))
  }
}

describe("a runner's reply lost in a PostgreSQL crash", () => {
  it("is answered again from the run's store: the run completes once, no tool call runs again", async () => {
    const charges: Array<Charge> = []
    const settings: Settings.Settings = { ...Settings.defaults, lockExpiration: "6 seconds", lockRefresh: "2 seconds" }
    const port = await freePort()
    // One process, runner and client, as `Runner.layer` builds a runner, with a client on
    // its sharding.
    const cluster = runnerCluster(connectionString(), settings, RunnerAddress.make("127.0.0.1", port))
    const layer = Client.layer({ pollInterval: "100 millis", callTimeout: "60 seconds", resultTimeout: "2 minutes" }).pipe(
      Layer.provideMerge(RunEntity.layer().pipe(Layer.provide(Runner.hooklineLayer(agents((c) => charges.push(c)), connectionString(), settings)))),
      Layer.provideMerge(cluster),
    )
    const runtime = ManagedRuntime.make(layer)
    try {
      const client = await runtime.runPromise(Effect.map(Client.HooklineClient, (c) => c))
      // The crash must fall between the reply and the next commit that waits for the flush
      // (a lock refresh every 2 s flushes everything before it): almost always the first
      // try; a try whose reply survived the crash is not the case asked for, so another run.
      let lost: { readonly runId: string; readonly seq: number; readonly charged: number; readonly first: unknown } | undefined
      for (let attempt = 0; attempt < 4 && lost === undefined; attempt++) {
        const runId = `crash-run-${attempt}`
        await runtime.runPromise(client.start("charger", "charge me", { runId }))
        const first = await runtime.runPromise(client.result(runId))
        expect(first).toMatchObject({ runId, status: "completed", text: "charged 6 times" })
        // The Start's reply is stored just after `result` answers.
        const before = await waitFor(() => stored(runId), (s) => s.start?.processed === true, "the Start's reply", 30_000, 5)
        expect(before.start).toEqual({ processed: true, replies: 1 })
        expect(before.head).toMatchObject({ status: "completed" })
        await server().crash()
        const after = await stored(runId)
        // Every checkpoint of the run waited for the flush: the run is as it ended.
        expect(after.head).toEqual(before.head)
        if (after.start?.processed === false) {
          expect(after.start).toEqual({ processed: false, replies: 0 })
          console.log(`the reply of ${runId} was lost in the crash (try ${attempt + 1})`)
          lost = { runId, seq: (after.head as { seq: number }).seq, charged: charges.filter((c) => c.runId === runId).length, first }
        } else {
          // Wait for the runner to be back on its shards before the next try.
          await waitFor(() => runtime.runPromise(client.status(runId)), (s) => s.status === "completed", "the runner back after a crash")
        }
      }
      expect(lost, "no try lost its reply in the crash").toBeDefined()
      const { runId, seq, charged, first } = lost as NonNullable<typeof lost>
      expect(charged).toBe(6)
      // The runner reads the Start again once it holds its shards again, and answers it.
      const answered = await waitFor(() => stored(runId), (s) => s.start?.processed === true, "the Start answered again")
      expect(answered.start).toEqual({ processed: true, replies: 1 })
      expect(answered.head).toEqual({ seq, status: "completed" })
      expect(await runtime.runPromise(client.result(runId))).toEqual(first)
      // No tool call ran again, in this run or any other.
      expect(charges.filter((c) => c.runId === runId).length).toBe(6)
      expect(new Set(charges.map((c) => c.key)).size).toBe(charges.length)
    } finally {
      await runtime.dispose()
    }
  }, 300_000)
})
