// The settings every process of a park must share, checked where they would otherwise be
// missed: a run's shard is its id's hash modulo `shardsPerGroup`, so a process with another
// count sends a run's messages to other shards than the runners expect (measured before
// the check: a client at 600 beside a runner at 300 stored its Starts on shards 328, 487
// and 573, which no runner reads, and its `result` waited its whole timeout;
// docs/decisions.md, "The settings a park shares"). A runner records its count where
// every process reads it; a runner with another count than the live runners' refuses to
// start, a client that names another count fails its readiness, a client that names none
// takes the runners' (and their lock expiry). Real PostgreSQL, a runner in this process.
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import { Effect, Layer, ManagedRuntime, Result } from "effect"
import { SqlClient } from "effect/sql"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freePort, startPostgres, type Server } from "../../store/test/support/postgres.js"
import * as Agreement from "../src/Agreement.js"
import { Runner, Settings } from "../src/index.js"
import { flushingSqlLayer } from "../src/internal/storage.js"
import { agents } from "./support/agents.js"

const root = fileURLToPath(new URL("../../..", import.meta.url))
const bin = fileURLToPath(new URL("../src/bin/runner.ts", import.meta.url))
const agentsModule = fileURLToPath(new URL("./support/agentsModule.ts", import.meta.url))

let pg: Server
beforeAll(async () => {
  pg = await startPostgres()
}, 120_000)
afterAll(async () => {
  await pg?.stop()
})

const timings = { lockExpiration: "3 seconds", lockRefresh: "1 second", messagePoll: "1 second" } as const
const client = { callTimeout: "20 seconds", notFoundAfter: "20 seconds", resultTimeout: "60 seconds" } as const

const startRunner = async (shardsPerGroup: number) => {
  const port = await freePort()
  const runtime = ManagedRuntime.make(Runner.layer({ agents: agents(() => {}), database: pg.connectionString, port, settings: { ...timings, shardsPerGroup } }))
  await runtime.runPromise(Effect.void)
  return { runtime, address: `127.0.0.1:${port}` }
}

// A runner's layer built and released at once: its failure, or undefined when it started.
const tryRunner = async (shardsPerGroup: number) => {
  const port = await freePort()
  const layer = Runner.layer({ agents: agents(() => {}), database: pg.connectionString, port, settings: { ...timings, shardsPerGroup } })
  return Effect.runPromise(Effect.match(Effect.scoped(Layer.build(layer)), { onFailure: (error) => error, onSuccess: () => undefined }))
}

const query = <A>(text: string) =>
  Effect.runPromise(
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      return (yield* sql.unsafe(text)) as unknown as ReadonlyArray<A>
    }).pipe(Effect.provide(flushingSqlLayer(pg.connectionString, 1))),
  )

// A client opened on this database and closed at once: "ready", or what it rejected with.
const openedClient = () =>
  Runner.openClient({ database: pg.connectionString, client }).then(
    async (c) => {
      await c.close()
      return "ready"
    },
    (error: unknown) => error,
  )

// hookline-runner on this database, spawned without blocking this process (a runner in
// it must go on heartbeating): its exit status and what it wrote to stderr.
const runnerBin = (args: ReadonlyArray<string>) =>
  new Promise<{ readonly status: number | null; readonly stderr: string }>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--conditions=@hookline/source", "--import", "tsx", bin, "--agents", agentsModule, "--db", pg.connectionString, ...args],
      { cwd: root, env: { ...process.env, CHARGE_LOG: "/dev/null" }, stdio: ["ignore", "ignore", "pipe"] },
    )
    let stderr = ""
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000)
    child.on("error", reject)
    child.on("exit", (status) => {
      clearTimeout(timer)
      resolve({ status, stderr })
    })
  })

describe("the settings a park shares", () => {
  it("a client naming another shard count than the runners' fails its readiness, typed, naming both counts", async () => {
    const runner = await startRunner(300)
    try {
      const opened = await Runner.openClient({ database: pg.connectionString, settings: { ...timings, shardsPerGroup: 30 }, client }).then(
        async (c) => {
          await c.close()
          return "ready"
        },
        (error: unknown) => error,
      )
      expect(opened).toBeInstanceOf(Settings.SettingsMismatch)
      expect(opened).toMatchObject({ _tag: "SettingsMismatch", setting: "shardsPerGroup", ours: 30, theirs: 300, runner: runner.address })
      expect((opened as Error).message).toContain("30")
      expect((opened as Error).message).toContain("300")

      // A runner with another count than the live runner's refuses to start, typed.
      const refused = await tryRunner(600)
      expect(refused).toBeInstanceOf(Settings.SettingsMismatch)
      expect(refused).toMatchObject({ _tag: "SettingsMismatch", setting: "shardsPerGroup", ours: 600, theirs: 300, runner: runner.address })
      // hookline-runner exits 2 with the same message, as for a bad flag.
      const port = await freePort()
      const proc = await runnerBin(["--port", String(port), "--shards-per-group", "100"])
      expect(proc.status, proc.stderr.slice(-2_000)).toBe(2)
      expect(proc.stderr).toContain(`shardsPerGroup: this runner has 100, the live runner ${runner.address} has 300`)
      // One with the same count starts beside it.
      expect(await tryRunner(300)).toBeUndefined()
    } finally {
      await runner.runtime.dispose()
    }
  }, 120_000)

  it("a client naming no shard count takes the runners': its runs' messages go to the shards the runners read", async () => {
    // The park above is gone (its runner shut down): a new park may take another count.
    const runner = await startRunner(30)
    try {
      const c = await Runner.openClient({ database: pg.connectionString, client })
      try {
        const ids = ["agree-a", "agree-b", "agree-c", "agree-d", "agree-e"]
        for (const runId of ids) await c.start("charger", "charge me", { runId })
        for (const runId of ids) expect(await c.result(runId)).toMatchObject({ runId, status: "completed", text: "charged 6 times" })
        const shards = await query<{ readonly shard: number }>(
          `SELECT split_part(shard_id, ':', 2)::int AS shard FROM cluster_messages WHERE entity_id LIKE 'agree-%' AND tag = 'Start'`,
        )
        expect(shards.length).toBe(ids.length)
        for (const { shard } of shards) expect(shard).toBeLessThanOrEqual(30)
      } finally {
        await c.close()
      }
    } finally {
      await runner.runtime.dispose()
    }
  }, 120_000)

  it("a stored record that is not one fails a client's readiness, typed, naming its field", async () => {
    await query(`INSERT INTO hookline_cluster_settings (address, shards_per_group, shard_groups, lock_expiration_ms) VALUES ('10.0.0.9:1', -4, 'default', 3000)`)
    try {
      const opened = await openedClient()
      expect(opened).toBeInstanceOf(Settings.InvalidSetting)
      expect(opened).toMatchObject({ setting: 'hookline_cluster_settings.shards_per_group of "10.0.0.9:1"', got: "-4" })
    } finally {
      await query(`DELETE FROM hookline_cluster_settings WHERE address = '10.0.0.9:1'`)
    }
  }, 60_000)

  // A stored address goes into every mismatch's message and log line: a row written by
  // hand with a long one is refused as the record it is not, not quoted whole.
  it("a stored record whose address is past the longest runner address fails a client's readiness, typed, naming the field", async () => {
    const address = `${"h".repeat(5_000)}:1`
    const record = Agreement.join(shared("10.0.0.9:4", 300)).pipe(Effect.andThen(Agreement.leave("10.0.0.9:4")))
    await Effect.runPromise(record.pipe(Effect.provide(flushingSqlLayer(pg.connectionString, 1))))
    await query(`INSERT INTO hookline_cluster_settings (address, shards_per_group, shard_groups, lock_expiration_ms) VALUES ('${address}', 300, 'default', 600000)`)
    try {
      const opened = await openedClient()
      expect(opened).toBeInstanceOf(Settings.InvalidSetting)
      expect(opened).toMatchObject({ setting: `hookline_cluster_settings.address of ${JSON.stringify(address.slice(0, 200))}`, got: "5002 characters" })
    } finally {
      await query(`DELETE FROM hookline_cluster_settings WHERE address = '${address}'`)
    }
  }, 60_000)

  // As a mismatch does (branch tidy5): the stored row is the user's to fix, as a bad flag
  // is. It exited 1 with the layer's failure logged by the runtime.
  it("a stored record that is not one makes hookline-runner exit 2 with one line naming the row and its field", async () => {
    // The table as a runner creates it (its record removed at once), then a row live for
    // ten minutes by its own age: no runner heartbeats at that address.
    const record = Agreement.join(shared("10.0.0.9:3", 300)).pipe(Effect.andThen(Agreement.leave("10.0.0.9:3")))
    await Effect.runPromise(record.pipe(Effect.provide(flushingSqlLayer(pg.connectionString, 1))))
    await query(`INSERT INTO hookline_cluster_settings (address, shards_per_group, shard_groups, lock_expiration_ms) VALUES ('10.0.0.9:2', 20000, 'default', 600000)`)
    try {
      const proc = await runnerBin(["--port", String(await freePort())])
      expect(proc.status, proc.stderr.slice(-2_000)).toBe(2)
      const line = 'hookline-runner: hookline_cluster_settings.shards_per_group of "10.0.0.9:2": expected a whole number from 1 to 10000, got "20000"\n'
      expect(proc.stderr).toBe(line)
    } finally {
      await query(`DELETE FROM hookline_cluster_settings WHERE address = '10.0.0.9:2'`)
    }
  }, 120_000)
})

describe("Agreement.beyondShards", () => {
  it("counts the unprocessed messages stored on shards above a count (a runner logs them as it starts)", async () => {
    // A Start as a process with 600 shards stores it (effect/cluster's columns), and one processed.
    await query(`INSERT INTO cluster_messages (id, message_id, shard_id, entity_type, entity_id, kind, tag, request_id, processed)
      VALUES (900000000000001, 'stray-1', 'default:450', 'HooklineRun', 'stray-1', 0, 'Start', 900000000000001, false),
             (900000000000002, 'stray-2', 'default:451', 'HooklineRun', 'stray-2', 0, 'Start', 900000000000002, true)`)
    try {
      const read = (count: number) => Effect.runPromise(Agreement.beyondShards(count).pipe(Effect.provide(flushingSqlLayer(pg.connectionString, 1))))
      expect(await read(300)).toEqual({ count: 1, first: 450 })
      expect(await read(450)).toEqual({ count: 0, first: undefined })
    } finally {
      await query(`DELETE FROM cluster_messages WHERE message_id IN ('stray-1', 'stray-2')`)
    }
  }, 60_000)
})

const shared = (address: string, shardsPerGroup: number, lockExpirationMillis = 10_000): Settings.Shared => ({ address, shardsPerGroup, shardGroups: ["default"], lockExpirationMillis })

describe("Settings.agreeRunner", () => {
  it("refuses another shard count or other shard groups than a live runner's, and warns of another lock expiry", () => {
    const ours = shared("a:1", 300)
    expect(Settings.agreeRunner(ours, [])).toEqual(Result.succeed([]))
    // Its own record (a restart at its address) does not count.
    expect(Settings.agreeRunner(ours, [shared("a:1", 30)])).toEqual(Result.succeed([]))
    expect(Settings.agreeRunner(ours, [shared("b:1", 300), shared("c:1", 30)])).toEqual(
      Result.fail(new Settings.SettingsMismatch({ setting: "shardsPerGroup", process: "this runner", ours: 300, theirs: 30, runner: "c:1" })),
    )
    expect(Settings.agreeRunner(ours, [{ ...shared("b:1", 300), shardGroups: ["default", "other"] }])).toEqual(
      Result.fail(new Settings.SettingsMismatch({ setting: "shardGroups", process: "this runner", ours: "default", theirs: "default,other", runner: "b:1" })),
    )
    const warned = Settings.agreeRunner(ours, [shared("b:1", 300, 3_000)])
    expect(Result.isSuccess(warned) && warned.success.length === 1 && warned.success[0]?.startsWith("lockExpiration: this runner has 10000 ms, the live runner b:1 has 3000 ms")).toBe(true)
  })
})

describe("Settings.agreeClient", () => {
  it("takes the runners' shard count and lock expiry, warns when its own expiry differs, and keeps its own with no live runner", () => {
    const agreed = Settings.agreeClient({ lockExpiration: "10 seconds" }, ["default"], [shared("b:1", 30, 3_000), shared("c:1", 30, 3_000)])
    expect(Result.isSuccess(agreed)).toBe(true)
    const { settings, warnings } = Result.isSuccess(agreed) ? agreed.success : { settings: undefined, warnings: [] }
    expect(settings).toMatchObject({ shardsPerGroup: 30, lockExpiration: 3_000 })
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toContain("lockExpiration: this client has 10000 ms, the live runner b:1 has 3000 ms")
    expect(Settings.agreeClient({ shardsPerGroup: 30, lockExpiration: 3_000 }, ["default"], [shared("b:1", 30, 3_000)])).toEqual(
      Result.succeed({ settings: { ...Settings.defaults, shardsPerGroup: 30, lockExpiration: 3_000 }, warnings: [] }),
    )
    const alone = Settings.agreeClient({ shardsPerGroup: 30 }, ["default"], [])
    expect(Result.isSuccess(alone) && alone.success.settings.shardsPerGroup === 30 && alone.success.warnings.length === 1).toBe(true)
  })

  it("fails on a count it names that differs, and on live runners that disagree among themselves", () => {
    expect(Settings.agreeClient({ shardsPerGroup: 300 }, ["default"], [shared("b:1", 30)])).toEqual(
      Result.fail(new Settings.SettingsMismatch({ setting: "shardsPerGroup", process: "this client", ours: 300, theirs: 30, runner: "b:1" })),
    )
    expect(Settings.agreeClient({}, ["default"], [shared("b:1", 30), shared("c:1", 300)])).toEqual(
      Result.fail(new Settings.SettingsMismatch({ setting: "shardsPerGroup", process: "the live runner b:1", ours: 30, theirs: 300, runner: "c:1" })),
    )
  })
})
