// The one mutable thing of a run. `state` is always the last committed state, so an
// abort or an error anywhere keeps everything committed before it; everything the cell
// holds is frozen, and only the interpreter (run/) writes it.
import type { AgentState, ToolExecution } from "@hookline/core"
import type { DispatchInput, OpenStep } from "./types.js"

export class RunCell {
  /** Where the next step's record goes in `steps`. */
  stepIndex: number
  /** The step being run, for the record an error leaves. */
  open: OpenStep | undefined = undefined
  /**
   * The record of the step a resume finishes, while it runs: an error there closes the
   * open step (`Records.closeOpenStep`), not a new one.
   */
  resumed: OpenStep | undefined = undefined
  /** In the BeforeStep dispatch: a failure there may have started no step. */
  inBeforeStep = false
  /**
   * Tools that ran and whose result is not committed yet (its AfterToolUse hooks run):
   * an error or an abort there still records them (`Records.settle`).
   */
  readonly ran: Array<ToolExecution> = []
  // The open step's executions: one array for the run's steps, each step's record a
  // copy of it (a new array per step grew to 17 slots at its first push).
  private readonly executions: Array<ToolExecution> = []
  /** Live text or reasoning streamed since the last TextReset (a wrapped call's attempts may not count). */
  textStreamed = false
  /** The steps were interrupted (from outside, or by the time limit): nothing new starts. */
  interrupted = false
  /** The caller's abort signal, once the race on it started. */
  signal: AbortSignal | undefined = undefined

  // The clock is read again only after something that takes time (the model, a tool,
  // an effectful dispatch); between pure dispatches, and from one step to the next, the
  // last reading stands (a reading costs as much as a dispatch of a few hooks).
  lastReading = 0
  stale = true

  /** The input a step's dispatch fills for HookContext.make and empties (dispatch.ts `dispatchAt`). */
  input: DispatchInput | undefined = undefined

  constructor(public state: AgentState, private readonly now: () => number) {
    this.stepIndex = state.execution.steps.length
  }

  /**
   * The executions array of a new step (`step`), emptied: what the last step left there
   * was copied into its record (Step.make copies an unfrozen array). Emptied by pops,
   * which keep its backing store (`length = 0` drops it).
   */
  emptyExecutions(): Array<ToolExecution> {
    const executions = this.executions
    while (executions.length > 0) executions.pop()
    return executions
  }

  /** The last reading, unless something that takes time ran since. */
  at(): number {
    return this.stale ? this.read() : this.lastReading
  }

  /** A fresh reading, which the next `at` reuses: readings never go back in time. */
  read(): number {
    this.lastReading = this.now()
    this.stale = false
    return this.lastReading
  }
}

/**
 * Checked where the loop would start new work without yielding (the next step, a tool,
 * a model call a wrap hook asks for): an abort the race could not see yet stops it
 * there, and so does an interrupted body (a Promise wrap hook's `next` can still be
 * called after the run was interrupted from outside or by its time limit).
 */
export const abortSeen = (cell: RunCell): boolean => cell.interrupted || cell.signal?.aborted === true
