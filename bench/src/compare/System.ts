/**
 * One system of the comparison (hookline, the bare loop, koa-compose, the AI SDK,
 * LangChain, the OpenAI Agents SDK) as the child process that measures it sees it.
 * Every system runs the same workloads: a fake model that, at step s of S, asks for one
 * `echo` tool call with `{"i": s}` (steps 1..S-1) or answers the final text "done"
 * (step S); K cheap observer hooks on every hook point the system offers.
 */

/** W1: S = 50, K = 0/5/20. W2: S = 10, K = 5, H seeded messages. W4: W1 at K = 5, 1,000 runs at once, async model. */
export type WorkloadName = "W1" | "W2" | "W4"

export interface Workload {
  readonly name: WorkloadName
  /** Steps per run (model calls): S - 1 tool calls, then the final text. */
  readonly steps: number
  /** Observers per hook point. */
  readonly K: number
  /** Messages in the history a run starts from (alternating user/assistant), then one user message. 0 for W1/W4. */
  readonly H: number
  /** Runs started together (W4: 1,000); 1 otherwise. */
  readonly concurrency: number
  /** The fake model yields to the event loop (`setImmediate`) before it answers (W4). */
  readonly asyncModel: boolean
}

/**
 * Counters a system's fake model, echo tool and observers increment; the harness reads
 * them before and after each run, outside the timed region, to validate it.
 */
export interface Counters {
  modelCalls: number
  toolCalls: number
  hookCalls: number
}

export interface Prepared {
  /** One whole run of the workload (the timed region); resolves to the run's final text. */
  readonly run: () => Promise<string>
}

export interface System {
  /** As printed in the table: "hookline", "bare loop", "koa-compose", "ai", "langchain", "@openai/agents". */
  readonly name: string
  /** The package version measured (from its package.json), or "–". */
  readonly version: string
  /** The hook points the observers are registered on, by the system's own names. */
  readonly hookPoints: ReadonlyArray<string>
  /** Hook-point firings in one run of `steps` steps (each firing calls K observers). */
  readonly firingsPerRun: (steps: number) => number
  readonly counters: Counters
  /** Builds the agent (once per configuration, outside the timed region). */
  readonly prepare: (workload: Workload) => Promise<Prepared>
}

/** The expected counter deltas of `runs` runs, and the expected final text. */
export const expected = (system: System, workload: Workload, runs: number): Counters & { readonly text: string } => ({
  modelCalls: workload.steps * runs,
  toolCalls: (workload.steps - 1) * runs,
  hookCalls: workload.K * system.firingsPerRun(workload.steps) * runs,
  text: "done",
})
