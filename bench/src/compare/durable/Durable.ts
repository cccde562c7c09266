/**
 * The durable rows of the comparison (issue 27): a checkpointed run, side by side.
 * Every system runs the same work: a fake model that asks for one `echo` tool call per
 * step (steps 1..S-1) then answers "done" (step S), K = 0, over H messages of history
 * the run starts from, each run a new thread (run id, thread id, session) so its first
 * checkpoint writes the history once. Measured per run: µs per step (the whole run / S),
 * steady µs per step (from the second model call to the run's end / (S - 1): without the
 * first checkpoint), and bytes written per step (how each counts them: `bytesHow`), all
 * of them and a tool step's alone.
 */
import type { Mode } from "../Plan.js"

/** Steps per run: a few (S - 1 tool steps, then the answer). */
export const durableSteps = 5

export const durableHs = (mode: Mode): ReadonlyArray<number> => (mode === "smoke" ? [0, 10] : [0, 10, 1_000, 10_000])

/** A system module under durable/systems/ and the stores it runs on, in table order. */
export const durableSystems: ReadonlyArray<{ readonly module: string; readonly stores: ReadonlyArray<string> }> = [
  // "none": the same agent without UseCheckpoints, the row the store rows add to.
  { module: "hookline", stores: ["none", "memory", "pglite", "postgres", "postgres-unflushed"] },
  { module: "langgraph", stores: ["memory", "postgres"] },
  { module: "openaiAgents", stores: ["memory"] },
]

/** Rows the plan leaves out, and why (printed under the table). */
export const leftOut: ReadonlyArray<string> = [
  "LangGraph SqliteSaver (@langchain/langgraph-checkpoint-sqlite): its only driver is better-sqlite3, which ships no binary in its npm package; " +
    "its install script downloads one from GitHub (unreachable here) or compiles it with node-gyp, and LangGraph has no other SQLite saver for Node 20 (node:sqlite needs Node 22)",
  "@openai/agents 0.20 has no SQLite session: MemorySession is its local one (OpenAIConversationsSession stores on OpenAI's servers)",
]

export interface DurableJob {
  readonly module: string
  readonly store: string
  readonly H: number
  readonly steps: number
}

export interface DurableSettings {
  readonly mode: Mode
  /**
   * Untimed runs first; the first of them also counts the bytes and reads the stored run
   * back (through a counting wrapper or session, not the timed path: the rest warm that).
   */
  readonly warmupRuns: number
  readonly minRuns: number
  readonly timeMs: number
  readonly maxRuns: number
  readonly childTimeoutMs: number
  /** The embedded PostgreSQL the parent started, for the "postgres" stores. */
  readonly connectionString?: string | undefined
}

export const durableSettingsFor = (mode: Mode): DurableSettings => {
  switch (mode) {
    case "full":
      return { mode, warmupRuns: 3, minRuns: 10, timeMs: 2_000, maxRuns: 500, childTimeoutMs: 30 * 60_000 }
    case "quick":
      return { mode, warmupRuns: 2, minRuns: 3, timeMs: 300, maxRuns: 50, childTimeoutMs: 10 * 60_000 }
    case "smoke":
      return { mode, warmupRuns: 1, minRuns: 1, timeMs: 0, maxRuns: 1, childTimeoutMs: 90_000 }
  }
}

/**
 * `BENCH_DURABLE=hookline/postgres,langgraph/postgres` runs only those rows (module/store);
 * every row by default.
 */
export const durableRowsFromEnv = (env: NodeJS.ProcessEnv = process.env): ReadonlyArray<string> | undefined => {
  const chosen = env["BENCH_DURABLE"]?.split(",").map((s) => s.trim()).filter((s) => s !== "")
  if (chosen === undefined || chosen.length === 0) return undefined
  const known = durableSystems.flatMap(({ module, stores }) => stores.map((store) => `${module}/${store}`))
  const unknown = chosen.filter((c) => !known.includes(c))
  if (unknown.length > 0) throw new Error(`BENCH_DURABLE: unknown ${unknown.join(", ")} (expected some of ${known.join(", ")})`)
  return chosen
}

/**
 * `BENCH_DURABLE_MODEL_MS=5`: hookline's and LangGraph's fake models wait that long (a
 * timer) once called, as a real model's round trip would, so the table shows a step
 * beside a model that takes time (a store's wait may overlap it); 0 by default (the model
 * answers at once: the store's and the framework's own cost). OpenAI Agents' (memory
 * only) answers at once either way.
 */
export const modelWaitMs = (env: NodeJS.ProcessEnv = process.env): number => {
  const raw = env["BENCH_DURABLE_MODEL_MS"]
  const ms = raw === undefined || raw.trim() === "" ? 0 : Number(raw)
  if (!Number.isFinite(ms) || ms < 0) throw new Error(`BENCH_DURABLE_MODEL_MS: expected milliseconds >= 0, got ${JSON.stringify(raw)}`)
  return ms
}

/** The fake model's wait (`BENCH_DURABLE_MODEL_MS`), or undefined when it answers at once. */
export const modelWait = (ms: number = modelWaitMs()): (() => Promise<void>) | undefined =>
  ms === 0 ? undefined : () => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** The jobs of a mode, in table order (only the rows `BENCH_DURABLE` names, when set). */
export const durableJobs = (mode: Mode, rows: ReadonlyArray<string> | undefined = durableRowsFromEnv()): ReadonlyArray<DurableJob> =>
  durableSystems.flatMap(({ module, stores }) =>
    stores.filter((store) => rows === undefined || rows.includes(`${module}/${store}`))
      .flatMap((store) => durableHs(mode).map((H) => ({ module, store, H, steps: durableSteps }))))

export interface Spread {
  readonly p10: number
  readonly p50: number
  readonly p90: number
}

export interface DurableRow {
  readonly kind: "durable"
  readonly job: DurableJob
  readonly system: string
  readonly version: string
  /** The saver or store as its library names it ("MemorySaver", "PostgresStore"). */
  readonly saver: string
  readonly runs: number
  readonly validated: number
  readonly usPerStep: Spread
  readonly steadyUsPerStep: Spread
  /** Every byte the run wrote / S (the first checkpoint, with the whole history, included). */
  readonly bytesPerStep: number
  /**
   * What a tool step writes: (the run's bytes − a one-step run's bytes over the same
   * history) / (S − 1). The first checkpoint (the history) and the run's end cancel out.
   */
  readonly bytesPerToolStep: number
  /** What `bytesPerStep` counts. */
  readonly bytesHow: string
}

export interface DurableFailure {
  readonly kind: "failure"
  readonly job: DurableJob
  readonly error: string
}

export type DurableResult = DurableRow | DurableFailure

/** What a system's fake model and tool report to the harness. */
export interface Calls {
  model: number
  tool: number
  /** hrtime of each model call of the current run. */
  readonly stamps: Array<bigint>
}

export const calls: Calls = { model: 0, tool: 0, stamps: [] }

export const modelCalled = (): void => {
  calls.model++
  calls.stamps.push(process.hrtime.bigint())
}

export const toolCalled = (): void => {
  calls.tool++
}

/** One configuration (H) of a system on a store: a run per thread id. */
export interface DurableCase {
  /**
   * Untimed: what the run needs before it starts (a state, a session). `count`: the run
   * will count bytes (a counting session is made for it; the timed runs get the plain one).
   */
  readonly before: (id: string, count: boolean) => Promise<void>
  /** The timed run; resolves to its final text. `count`: bytes are counted in this run. */
  readonly run: (id: string, count: boolean) => Promise<string>
  /**
   * Untimed. With `count`: reads the stored run back (throws unless it holds every
   * message of the run) and answers the bytes the run wrote; then removes the thread.
   */
  readonly after: (id: string, count: boolean) => Promise<number>
}

export interface OpenedStore {
  readonly saver: string
  readonly bytesHow: string
  readonly prepare: (H: number, steps: number) => Promise<DurableCase>
  readonly close: () => Promise<void>
}

export interface DurableSystem {
  readonly name: string
  readonly version: string
  readonly open: (store: string, settings: DurableSettings) => Promise<OpenedStore>
}

/** The messages a run of S steps over H messages of history ends with: H, the question, 2 per tool step, the answer. */
export const finalLength = (H: number, steps: number): number => H + 1 + 2 * (steps - 1) + 1
