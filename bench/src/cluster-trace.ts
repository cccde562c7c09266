/**
 * The cluster timeline's recorder, for bench/src/cluster-timeline.ts only (never on a
 * shipped path): a tracer that keeps every span effect makes (effect/cluster's messages,
 * effect/sql's statements, the RPC socket) with its start and end on the machine's
 * monotonic clock (`process.hrtime`, CLOCK_MONOTONIC, the same in every process of the
 * machine), and a store whose calls are stamped the same way (keeping its store's
 * one-statement ending, so it makes the statements the store makes). `dump` writes them as
 * JSON lines.
 */
import { Settings } from "@hookline/cluster"
import type { RunStore } from "@hookline/store"
import { Effect, Layer, Option, Tracer } from "effect"
import { MessageStorage, type RunnerAddress, ShardingConfig, SqlMessageStorage, SqlRunnerStorage } from "effect/cluster"
import { writeFileSync } from "node:fs"
// The store's ending registry (one statement for a run's last checkpoint and its lease's
// release, kept by the store object's identity): the traced store keeps its store's, so a
// recorded run makes the statements a shipped one makes.
import * as Ending from "../../packages/store/src/internal/ending.js"
// The cluster package's own copies (the bench does not depend on them by name).
import { NodeClusterSocket, NodeCrypto } from "../../packages/cluster/node_modules/@effect/platform-node/dist/index.js"
import { sqlLayer } from "../../packages/cluster/src/internal/sql.js"

export interface Mark {
  /** Who: "client" or "runner". */
  readonly who: string
  readonly name: string
  /** Monotonic microseconds. */
  readonly start: number
  readonly end: number
  /** The SQL statement (its first 120 characters), or the store call's run id. */
  readonly detail?: string | undefined
  readonly parent?: string | undefined
  readonly id: string
}

export const nowMicros = (): number => Number(process.hrtime.bigint() / 1_000n)

class TimedSpan extends Tracer.NativeSpan {
  readonly began = nowMicros()
  constructor(options: ConstructorParameters<typeof Tracer.NativeSpan>[0], private readonly done: (span: TimedSpan, end: number) => void) {
    super(options)
  }
  override end(endTime: bigint, exit: Parameters<Tracer.NativeSpan["end"]>[1]): void {
    if (this.status._tag !== "Ended") this.done(this, nowMicros())
    super.end(endTime, exit)
  }
}

export const recorder = (who: string) => {
  const marks: Array<Mark> = []
  const tracer = Tracer.make({
    span: (options) =>
      new TimedSpan(options, (span, end) => {
        const statement = span.attributes.get("db.statement") ?? span.attributes.get("db.query.text") ?? span.attributes.get("runId")
        const parent = Option.getOrUndefined(span.parent)
        marks.push({
          who,
          name: span.name,
          start: span.began,
          end,
          detail: statement === undefined ? undefined : String(statement).replace(/\s+/g, " ").slice(0, 120),
          parent: parent?._tag === "Span" ? parent.spanId : undefined,
          id: span.spanId,
        })
      }),
  })
  return {
    marks,
    layer: Layer.succeed(Tracer.Tracer, tracer),
    mark: (name: string, start: number, end: number, detail?: string) => marks.push({ who, name, start, end, detail, id: `${who}-${marks.length}` }),
    dump: (file: string) => writeFileSync(file, marks.map((m) => JSON.stringify(m)).join("\n") + "\n"),
  }
}

/**
 * The store with each call kept as a mark `store.<call>` with its run id, stamped directly
 * (no tracer needed, so the in-process baseline records the same way as the runner).
 */
export const tracedStore = (store: RunStore.RunStore, rec: ReturnType<typeof recorder>): RunStore.RunStore => {
  const out: Record<string, unknown> = { ...store }
  for (const [key, value] of Object.entries(store)) {
    if (typeof value !== "function" || key === "close") continue
    out[key] = (...args: Array<unknown>) => {
      const result = (value as (...a: Array<unknown>) => unknown).apply(store, args)
      if (!Effect.isEffect(result)) return result
      const first = args[0]
      const runId = typeof first === "string" ? first : typeof first === "object" && first !== null && "runId" in first ? String((first as { runId: unknown }).runId) : undefined
      // Stamped when the effect starts, not when it is built.
      return Effect.suspend(() => {
        const began = nowMicros()
        return Effect.ensuring(result, Effect.sync(() => rec.mark(`store.${key}`, began, nowMicros(), runId)))
      })
    }
  }
  const traced = out as unknown as RunStore.RunStore
  const ending = Ending.of(store)
  if (ending === undefined) return traced
  return Ending.register(traced, {
    commitAndRelease: (commit, owner) =>
      Effect.suspend(() => {
        const began = nowMicros()
        return Effect.ensuring(ending.commitAndRelease(commit, owner), Effect.sync(() => rec.mark("store.commitAndRelease", began, nowMicros(), commit.runId)))
      }),
  })
}

/**
 * The cluster's layers (effect/cluster over its SQL tables, as `Runner.layer` and
 * `Runner.clientLayer` build them) with each call of the message storage kept as a mark
 * (effect/cluster runs its storage with the tracer off): `storage.saveRequest` (a
 * persisted message's row), `storage.unprocessedMessages` (a runner's read of its new
 * messages), `storage.saveReply` and the rest.
 */
export const tracedCluster = (
  rec: ReturnType<typeof recorder>,
  database: string,
  options: { readonly clientOnly: true } | { readonly runnerAddress: RunnerAddress.RunnerAddress },
) => {
  const storage = Layer.effect(
    MessageStorage.MessageStorage,
    Effect.map(MessageStorage.MessageStorage, (inner) => {
      const out: Record<string, unknown> = { ...inner }
      for (const [key, value] of Object.entries(inner)) {
        if (typeof value !== "function") continue
        out[key] = (...args: Array<unknown>) => {
          const began = nowMicros()
          const result = (value as (...a: Array<unknown>) => unknown).apply(inner, args)
          if (!Effect.isEffect(result)) return result
          return Effect.ensuring(result, Effect.sync(() => rec.mark(`storage.${key}`, began, nowMicros())))
        }
      }
      return out as unknown as MessageStorage.MessageStorage["Service"]
    }),
  ).pipe(Layer.provide(SqlMessageStorage.layer.pipe(Layer.provide(NodeCrypto.layerDigest))))
  // The client's settings are the bench's (cluster.ts): assignments and polls every second.
  const shardingConfig = "clientOnly" in options
    ? Settings.shardingConfig({ ...Settings.defaults, assignmentsRefresh: "1 second", messagePoll: "1 second" })
    : { ...Settings.shardingConfig(Settings.defaults), runnerAddress: Option.some(options.runnerAddress) }
  return NodeClusterSocket.layer({ ...("clientOnly" in options ? { clientOnly: true } : {}), storage: "byo", shardingConfig }).pipe(
    Layer.provide(Layer.merge(storage, Layer.orDie(SqlRunnerStorage.layer))),
    Layer.provide(Layer.merge(sqlLayer(database), ShardingConfig.layer(shardingConfig))),
  )
}
