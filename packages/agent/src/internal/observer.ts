// Where a run's events go, as a types-only leaf: the run (run/) and the subagent host
// (subagent/host.ts) both name it, and neither may import the other's side for it.
import type { Effect } from "effect"
import type { AgentEvent } from "../AgentEvent.js"

/** Where the run's events go (streaming), and whether the model is streamed. */
export interface Observer {
  readonly emit: (event: AgentEvent) => void
  readonly streaming: boolean
  /**
   * Holds until the consumer has taken every event emitted so far: the loop waits on
   * it before tools run, so what a consumer sees follows what happened.
   */
  readonly settled?: Effect.Effect<void> | undefined
  /** Whether the run's HookExecuted events go to `emit` too (`RunOptions.hookEvents`). */
  readonly hookEvents?: boolean | undefined
}
