/**
 * A runner: a process that owns shards of the cluster and runs their runs. One layer
 * (`Runner.layer`) or one command (`hookline-runner`). As it starts it records the
 * settings the park shares (`shardsPerGroup`, the shard groups, its lock expiry) where
 * every process reads them, and refuses to start (`Settings.SettingsMismatch`) when a live
 * runner has another shard count, or (`Settings.InvalidSetting`) when a live record is not
 * one. The runs checkpoint to a
 * `PostgresStore` on the cluster's database; on shutdown (SIGTERM) the runner lets its
 * runs in flight end (up to its `terminationTimeout`) while it still holds its shards,
 * then hands its shards over; a run still going then is checkpointed `running`, for the
 * next owner.
 *
 * @since 0.1.0
 */
import { NodeClusterSocket } from "@effect/platform-node"
import { PostgresStore } from "@hookline/store"
import { Effect, Layer, ManagedRuntime, Option, Result, Stream } from "effect"
import { RunnerAddress } from "effect/cluster"
import type { SqlClient } from "effect/sql"
import * as Agreement from "./Agreement.js"
import * as Client from "./Client.js"
import * as ClusterAgent from "./ClusterAgent.js"
import { sqlLayer } from "./internal/sql.js"
import { flushingSqlLayer, runnerCluster, runnerStorageLayer } from "./internal/storage.js"
import * as RunEntity from "./RunEntity.js"
import * as Settings from "./Settings.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The agents this runner serves: the same names on every runner. */
  readonly agents: ReadonlyArray<ClusterAgent.ClusterAgent>
  /** The PostgreSQL URL: the cluster's tables and the runs' store. */
  readonly database: string
  /** Where other processes reach this runner (default 127.0.0.1:34431). */
  readonly host?: string | undefined
  readonly port?: number | undefined
  readonly settings?: Partial<Settings.Settings> | undefined
}

/**
 * The runner's store and agents (closed when the layer is released, after the runs).
 *
 * @since 0.1.0
 * @category layers
 */
export const hooklineLayer = (agents: ReadonlyArray<ClusterAgent.ClusterAgent>, database: string, settings: Settings.Settings) =>
  Layer.effect(
    RunEntity.Hookline,
    Effect.gen(function*() {
      const store = yield* Effect.acquireRelease(Effect.orDie(PostgresStore.openEffect({ connectionString: database, max: 10 })), (s) => s.close())
      const registered = yield* ClusterAgent.register(agents, store, { lease: Settings.leaseMillis(settings) })
      return { store, agents: registered }
    }),
  )

/**
 * A runner as a layer: launch it (`Layer.launch`) in the process's main.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options) =>
  Layer.unwrap(Effect.suspend(() => {
    // A setting that is not one fails the layer, typed, before anything starts.
    const checked = Settings.check(options.settings ?? {})
    if (Result.isFailure(checked)) return Effect.fail(checked.failure)
    // Then the settings the park shares, against the live runners' (read once, here).
    const settings = { ...Settings.defaults, ...checked.success }
    return Effect.succeed(runnerLayer(options, checked.success).pipe(Layer.provide(parkRecord(options, settings))))
  }))

// The runner's record among the park's (Agreement.ts): written before its cluster starts,
// removed after it shut down (as effect/cluster removes its runner row), each on a
// connection of its own that is closed at once. A database that cannot be reached at the
// start is a defect, as the store's open is; a removal that fails leaves a record that
// stops counting once it is a lock expiry old.
const parkRecord = (options: Options, settings: Settings.Settings) => {
  const address = `${options.host ?? "127.0.0.1"}:${options.port ?? 34431}`
  const onDatabase = <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient>) => Effect.provide(effect, Layer.orDie(flushingSqlLayer(options.database, 1)))
  const join = Agreement.join({
    address,
    shardsPerGroup: settings.shardsPerGroup,
    shardGroups: Agreement.shardGroups,
    lockExpirationMillis: Math.ceil(Settings.millisOf(settings.lockExpiration)),
  }).pipe(Effect.catchTag("SqlError", (error) => Effect.die(error)), onDatabase)
  return Layer.effectDiscard(Effect.acquireRelease(join, () => Effect.ignore(onDatabase(Agreement.leave(address)))))
}

const runnerLayer = (options: Options, given: Partial<Settings.Settings>) => {
  const settings = { ...Settings.defaults, ...given }
  const address = RunnerAddress.make(options.host ?? "127.0.0.1", options.port ?? 34431)
  // effect/cluster's SQL storage, its replies and read marks not waiting for the WAL flush
  // unless `repliesWaitForFlush` (internal/storage.ts says why that is sound).
  const cluster = runnerCluster(options.database, settings, address)
  return RunEntity.layer({ maxIdleTime: Settings.millisOf(settings.idleEviction), drainTimeout: Settings.millisOf(settings.terminationTimeout) }).pipe(
    Layer.provide(hooklineLayer(options.agents, options.database, settings)),
    Layer.provide(cluster),
  )
}

/**
 * effect/cluster's storage as a runner opens it (its messages, replies, runner rows and
 * shard locks in PostgreSQL; replies and read marks not waiting for the WAL flush unless
 * the settings' `repliesWaitForFlush`), for a cluster layer built by hand
 * (`NodeClusterSocket.layer({ storage: "byo" })`, which provides its `ShardingConfig`).
 *
 * @since 0.1.0
 * @category layers
 */
export const storageLayer = (database: string, settings?: Partial<Settings.Settings> | undefined) =>
  runnerStorageLayer(database, { waitForFlush: { ...Settings.defaults, ...settings }.repliesWaitForFlush })

/**
 * A client-only process's cluster and client, over the cluster's database. Before its
 * cluster starts it reads the live runners' records once (waiting for a runner up to its
 * `callTimeout`) and takes their `shardsPerGroup` and `lockExpiration`: a
 * `shardsPerGroup` given here that differs, or runners that disagree, fail it with
 * `Settings.SettingsMismatch`; a `lockExpiration` given here that differs is logged as a
 * warning and the runners' is used. With no live record it uses its own settings, with a
 * warning.
 *
 * @since 0.1.0
 * @category layers
 */
export const clientLayer = (options: { readonly database: string; readonly settings?: Partial<Settings.Settings> | undefined; readonly client?: Client.Options | undefined }) => {
  const given = options.settings ?? {}
  // The runners' shard count and lock expiry, read once before the cluster starts (it
  // computes every run's shard with the count); waits for a runner up to `callTimeout`.
  const wait = Settings.millisOf(options.client?.callTimeout ?? Client.defaultCallTimeout)
  const cluster = Layer.unwrap(
    Effect.map(
      Effect.catchTag(Agreement.forClient(given, wait), "SqlError", (error) => Effect.die(error)),
      (settings) => NodeClusterSocket.layer({ clientOnly: true, storage: "sql", shardingConfig: Settings.shardingConfig(settings) }),
    ),
  ).pipe(Layer.provide(sqlLayer(options.database)))
  return Client.layer(options.client).pipe(Layer.provide(cluster))
}

/**
 * The client with Promises, for a process that does not use Effect: `close` ends it.
 *
 * @since 0.1.0
 * @category constructors
 */
export const openClient = async (options: Parameters<typeof clientLayer>[0]) => {
  const runtime = ManagedRuntime.make(clientLayer(options))
  // A client that is not ready (Settings.SettingsMismatch) leaves nothing open behind it.
  const client = await runtime.runPromise(Effect.map(Client.HooklineClient, (c) => c)).catch(async (error: unknown) => {
    await runtime.dispose()
    throw error
  })
  return {
    start: (agent: string, input: string, startOptions?: Client.StartOptions) => runtime.runPromise(client.start(agent, input, startOptions)),
    result: (runId: string, resultOptions?: Client.ResultOptions) => runtime.runPromise(client.result(runId, resultOptions)),
    resume: (runId: string, decisions: ReadonlyArray<unknown>) => runtime.runPromise(client.resume(runId, decisions)),
    status: (runId: string) => runtime.runPromise(client.status(runId)),
    cancel: (runId: string) => runtime.runPromise(client.cancel(runId)),
    /** The run's events as an async iterable (`for await`); leaving the loop early stops asking. */
    events: (runId: string, eventsOptions?: Client.EventsOptions) => Stream.toAsyncIterable(client.events(runId, eventsOptions)),
    close: () => runtime.dispose(),
  }
}
