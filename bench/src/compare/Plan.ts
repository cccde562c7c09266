/**
 * What the comparison runs: the systems, the configurations of each workload, and how
 * long a child measures one configuration, in each mode (full, `BENCH_QUICK=1`, the CI
 * smoke). The parent builds the plan; each child gets its settings as JSON.
 */
import type { Workload } from "./System.js"

export type Mode = "full" | "quick" | "smoke"

/** Module names under systems/, in table order. */
export const systems = ["hookline", "hooklineFacade", "hooklineStream", "bare", "koaCompose", "ai", "langchain", "openaiAgents"] as const

/** The agent frameworks the hookline target is set against (not the bare loop, not koa-compose). */
export const agentFrameworks: ReadonlyArray<string> = ["ai", "langchain", "openaiAgents"]

/** How a child measures. Single runs: warm-up, then runs until both minimums are met. */
export interface ChildSettings {
  readonly mode: Mode
  readonly warmupRuns: number
  /**
   * Every system's warm-up, in full mode 2.5 s: a fresh child's first runs load and
   * compile (hookline's facade: 22–43 runs in the first 0.5 s, at up to 400 µs a step),
   * and its code is still being optimized for the next 1.5 s (W1 K = 0: p50 4.67 µs a
   * step over 0.5–2 s, 4.07–4.11 after, `bench/src/ab`'s measures), so a 0.5 s warm-up
   * timed the tail of the warm-up into the medians.
   */
  readonly warmupMs: number
  readonly minRuns: number
  readonly timeMs: number
  /** A fast system stops here, whatever the time. */
  readonly maxRuns: number
  /** W4: runs the workload's batch size at once, after warm-up runs; warm-up batches first. */
  readonly warmupBatches: number
  readonly minBatches: number
  readonly maxBatches: number
  /** W4: past `minBatches`, another batch starts only while the batches so far took less than this. */
  readonly batchBudgetMs: number
  /**
   * W4: a system whose batch is estimated longer (warm-up run × runs per batch) runs a
   * single batch and no warm-up batch: a slow peer would take an hour otherwise.
   */
  readonly longBatchMs: number
  /** The parent kills a child that takes longer. */
  readonly childTimeoutMs: number
}

export const settingsFor = (mode: Mode): ChildSettings => {
  switch (mode) {
    case "full":
      return {
        mode, warmupRuns: 10, warmupMs: 2_500, minRuns: 30, timeMs: 2_000, maxRuns: 20_000,
        warmupBatches: 1, minBatches: 5, maxBatches: 30, batchBudgetMs: 20_000, longBatchMs: 60_000, childTimeoutMs: 60 * 60_000,
      }
    case "quick":
      return {
        mode, warmupRuns: 2, warmupMs: 300, minRuns: 5, timeMs: 300, maxRuns: 2_000,
        warmupBatches: 1, minBatches: 2, maxBatches: 3, batchBudgetMs: 1_000, longBatchMs: 10_000, childTimeoutMs: 10 * 60_000,
      }
    case "smoke":
      return {
        mode, warmupRuns: 0, warmupMs: 0, minRuns: 2, timeMs: 0, maxRuns: 2,
        warmupBatches: 0, minBatches: 1, maxBatches: 1, batchBudgetMs: 0, longBatchMs: 0, childTimeoutMs: 90_000,
      }
  }
}

export const modeFromEnv = (env: NodeJS.ProcessEnv = process.env): Mode =>
  env["BENCH_SMOKE"] === "1" ? "smoke" : env["BENCH_QUICK"] === "1" ? "quick" : "full"

const w1 = (K: number): Workload => ({ name: "W1", steps: 50, K, H: 0, concurrency: 1, asyncModel: false })
const w2 = (H: number): Workload => ({ name: "W2", steps: 10, K: 5, H, concurrency: 1, asyncModel: false })
const w4 = (concurrency: number): Workload => ({ name: "W4", steps: 50, K: 5, H: 0, concurrency, asyncModel: true })

/**
 * The configurations of a mode. Each is measured in a child of its own (a JIT that has
 * seen only it), except in smoke mode, where one child per system runs all of them.
 */
export const workloadsFor = (mode: Mode, env: NodeJS.ProcessEnv = process.env): ReadonlyArray<Workload> => {
  // W4 at full size in a full run only: LangChain takes over ten minutes per batch of 1,000.
  // `BENCH_W4_RUNS=1000` sets the size in any mode but smoke (a quick run of the fast systems at full size).
  const given = Number(env["BENCH_W4_RUNS"])
  const concurrent = mode === "smoke" ? 5 : Number.isSafeInteger(given) && given > 1 ? given : mode === "full" ? 1_000 : 100
  return mode === "smoke"
    ? [w1(5), w2(10), w4(concurrent)]
    : [w1(0), w1(5), w1(20), w2(10), w2(1_000), w2(10_000), w4(concurrent)]
}

/** `BENCH_SYSTEMS=hookline,bare` measures a subset (named in the report's header); all by default. */
export const systemsFromEnv = (env: NodeJS.ProcessEnv = process.env): ReadonlyArray<string> => {
  const chosen = env["BENCH_SYSTEMS"]?.split(",").map((s) => s.trim()).filter((s) => s !== "")
  if (chosen === undefined || chosen.length === 0) return systems
  const unknown = chosen.filter((s) => !(systems as ReadonlyArray<string>).includes(s))
  if (unknown.length > 0) throw new Error(`BENCH_SYSTEMS: unknown ${unknown.join(", ")} (expected some of ${systems.join(", ")})`)
  return chosen
}

/** The parts of `pnpm bench compare`, in output order: the main tables, the durable rows, the memory rows, MCP. */
export const sections = ["main", "durable", "memory", "mcp"] as const
export type Section = (typeof sections)[number]

/** `BENCH_SECTIONS=durable,memory` runs some parts of the comparison; all by default. */
export const sectionsFromEnv = (env: NodeJS.ProcessEnv = process.env): ReadonlyArray<Section> => {
  const chosen = env["BENCH_SECTIONS"]?.split(",").map((s) => s.trim()).filter((s) => s !== "")
  if (chosen === undefined || chosen.length === 0) return sections
  const unknown = chosen.filter((s) => !(sections as ReadonlyArray<string>).includes(s))
  if (unknown.length > 0) throw new Error(`BENCH_SECTIONS: unknown ${unknown.join(", ")} (expected some of ${sections.join(", ")})`)
  return sections.filter((s) => chosen.includes(s))
}

/** A configuration's label in progress lines and failure messages. */
export const label = (w: Workload): string =>
  `${w.name} K=${w.K} H=${w.H}${w.concurrency > 1 ? ` ×${w.concurrency}` : ""}`
