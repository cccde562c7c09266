/**
 * The runner of bench/src/cluster-timeline.ts: `hookline-runner`'s layers (Runner.ts's,
 * built here the same way, shipped settings) with the timeline's recorder: every effect
 * span and every store call kept with its monotonic time, written to $TIMELINE_OUT when
 * the process exits. Flags as `hookline-runner`'s: --agents, --db, --port.
 */
import { NodeRuntime } from "@effect/platform-node"
import { ClusterAgent, RunEntity, Settings } from "@hookline/cluster"
import { PostgresStore } from "@hookline/store"
import { Effect, Layer } from "effect"
import { RunnerAddress } from "effect/cluster"
import { resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { parseArgs } from "node:util"
import pg from "pg"
import { recorder, stampedPool, tracedCluster } from "./cluster-trace.js"

const { values } = parseArgs({ options: { agents: { type: "string" }, db: { type: "string" }, port: { type: "string" } } })
const database = values.db as string
const port = Number(values.port)
const agents = ((await import(pathToFileURL(resolve(values.agents as string)).href)) as { default: ReadonlyArray<ClusterAgent.ClusterAgent> }).default
const out = process.env["TIMELINE_OUT"] as string
const rec = recorder("runner")
process.on("exit", () => rec.dump(out))

// TIMELINE_FLUSH=1: the runner's replies and read marks wait for the WAL flush (the
// setting `repliesWaitForFlush`, the default before it existed), for an A/B in one sitting.
// TIMELINE_SHARDS=n: shards per group (the client is given the same), for an A/B of the
// shard count, which effect/cluster's read of new messages writes into its text.
const shards = process.env["TIMELINE_SHARDS"]
const settings: Settings.Settings = {
  ...Settings.defaults,
  repliesWaitForFlush: process.env["TIMELINE_FLUSH"] === "1",
  ...(shards === undefined ? {} : { shardsPerGroup: Number(shards) }),
}
const hookline = Layer.effect(
  RunEntity.Hookline,
  Effect.gen(function*() {
    // The runner's pool (10 connections, as Runner.ts opens it), its statements stamped.
    const pool = yield* Effect.acquireRelease(Effect.sync(() => stampedPool(new pg.Pool({ connectionString: database, max: 10 }), rec)), (p) => Effect.promise(() => p.end()))
    pool.on("error", () => undefined)
    const store = yield* Effect.acquireRelease(Effect.orDie(PostgresStore.openEffect({ pool })), (s) => s.close())
    const registered = yield* ClusterAgent.register(agents, store, { lease: Settings.leaseMillis(settings) })
    return { store, agents: registered }
  }),
)
const cluster = tracedCluster(rec, database, { runnerAddress: RunnerAddress.make("127.0.0.1", port), settings })
const runner = RunEntity.layer({ maxIdleTime: Settings.millisOf(settings.idleEviction), drainTimeout: Settings.millisOf(settings.terminationTimeout) }).pipe(
  Layer.provide(hookline),
  Layer.provide(cluster),
  Layer.provide(rec.layer),
)

Effect.scoped(Effect.gen(function*() {
  yield* Layer.build(runner)
  process.stderr.write(`hookline-runner ready 127.0.0.1:${port} pid ${process.pid}\n`)
  return yield* Effect.never
})).pipe(NodeRuntime.runMain)
