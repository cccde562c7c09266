/**
 * The memory rows of the comparison (issue 27): what a run holds in the heap, side by
 * side, each system in a child process of its own with --expose-gc (heap read after two
 * full collections):
 * - in flight: N runs started together, each waiting in its (only) model call on a
 *   deferred the harness resolves after measuring; (heap with all N waiting − heap before) / N;
 * - suspended: N runs stopped for approval of their one tool call, held in memory as a
 *   caller keeps them (hookline: the suspended AgentState; AI SDK: the messages array;
 *   LangChain: the interrupted thread's checkpoint in a MemorySaver); (heap − before) / N;
 * - leak check: M completed runs (one tool call, then the answer) one after another;
 *   (heap after M − heap after M/2) / (M/2), the slope over the second half (a one-off
 *   growth lands in the first): a run that leaves nothing behind is ~0.
 */
import type { Mode } from "../Plan.js"

/** System modules under footprint/systems/, in table order. */
export const footprintSystems = ["hookline", "ai", "langchain"] as const

export interface FootprintSettings {
  readonly mode: Mode
  readonly inFlight: number
  readonly suspended: number
  readonly completed: number
  /** Untimed runs of each kind first (code warmed, lazy state built). */
  readonly warmup: number
  readonly childTimeoutMs: number
}

export const footprintSettingsFor = (mode: Mode): FootprintSettings => {
  switch (mode) {
    // Many suspended and completed runs, after many warm-up runs: a few hundred KB of heap
    // noise (feedback vectors, code, lazily built tables) over N runs is below 100 B per run.
    case "full":
      return { mode, inFlight: 10_000, suspended: 5_000, completed: 5_000, warmup: 500, childTimeoutMs: 30 * 60_000 }
    case "quick":
      return { mode, inFlight: 2_000, suspended: 1_000, completed: 1_000, warmup: 200, childTimeoutMs: 10 * 60_000 }
    case "smoke":
      return { mode, inFlight: 20, suspended: 10, completed: 10, warmup: 2, childTimeoutMs: 90_000 }
  }
}

/** Bytes of a completed run under which the leak check calls the heap flat (heap noise over M runs). */
export const leakThreshold = 100

/** Issue 27's target: hookline's bytes at most this share of the lightest peer's. */
export const peerShare = 0.5

export interface Measured {
  readonly runs: number
  readonly bytesPerRun: number
}

export interface FootprintRow {
  readonly kind: "memory"
  readonly module: string
  readonly system: string
  readonly version: string
  readonly inFlight: Measured
  readonly suspended: Measured & { readonly held: string }
  readonly completed: Measured
}

export interface FootprintFailure {
  readonly kind: "failure"
  readonly module: string
  readonly error: string
}

export type FootprintResult = FootprintRow | FootprintFailure

/** A run started by the harness; resolves to its final text. */
export type Run = () => Promise<string>

export interface FootprintSystem {
  readonly name: string
  readonly version: string
  /** What a suspended run is held as, for the table. */
  readonly held: string
  /** Runs of one model call that waits for `gate()` and then answers "done". */
  readonly inFlight: (gate: () => Promise<void>) => Promise<Run>
  /** Runs of one echo tool call, then "done". */
  readonly completed: () => Promise<Run>
  /**
   * Runs that stop for approval of their echo call; each resolves to what a caller holds
   * to resume it later, and throws unless the run stopped there.
   */
  readonly suspended: () => Promise<(i: number) => Promise<unknown>>
}
