// The records a run leaves, pure: the input of a dispatch, a step's attempts and usage,
// its executions in call order, what a committed tool result does to the state, the
// settlement of the calls a run leaves unanswered, and the record a failed step leaves.
import {
  AgentError,
  AgentState,
  type HookTrigger,
  type InferenceRequest,
  type InferenceResponse,
  Step,
  type ToolCall,
  ToolExecution,
  Usage,
} from "@hookline/core"
import * as Tools from "../Tools.js"
import type { DispatchInput, OpenStep } from "./types.js"

// Every input the loop dispatches is made here, with all the parts in one order, so
// HookContext.make reads one hidden class instead of one per trigger family (reading
// parts from five shapes was a third of a step's cost with hooks).
export const point = (
  trigger: HookTrigger,
  state: AgentState,
  createdAt: number,
  request?: InferenceRequest,
  response?: InferenceResponse,
  toolCall?: ToolCall,
  toolExecution?: ToolExecution,
  errors?: ReadonlyArray<AgentError.AgentError>,
): DispatchInput => ({ trigger, state, createdAt, request, response, toolCall, toolExecution, errors, runContext: undefined })

/** The state with the record of `raised` (its last entries, if untouched) replaced by `transformed`. */
export const rerecord = (
  state: AgentState,
  raised: ReadonlyArray<AgentError.AgentError>,
  transformed: ReadonlyArray<AgentError.AgentError>,
): AgentState => {
  const all = state.execution.errors
  const start = all.length - raised.length
  const untouched = start >= 0 && raised.every((error, i) => all[start + i] === error)
  return untouched ? AgentState.withExecution(state, { ...state.execution, errors: [...all.slice(0, start), ...transformed] }) : state
}

/** The attempts of a step and what its model calls cost, as a step record takes them (none: no wrap hooks ran). */
export interface Attempts {
  readonly attempts?: ReadonlyArray<Step.InferenceAttempt> | undefined
  readonly toolAttempts?: ReadonlyArray<Step.ToolAttempt> | undefined
  readonly usage?: Usage.Usage | undefined
}

/**
 * The attempts of a step with wrap hooks, and its usage: the response that counts plus
 * every other attempt that answered (a retry discarded it, it still cost tokens).
 */
export const attemptsOf = (open: OpenStep, response: InferenceResponse | undefined, at: number): Attempts => {
  if (open.attempts === undefined && open.toolAttempts === undefined) return {}
  // A call still running when the step is recorded ran until now, and did not answer.
  const attempts = open.attempts?.map((a) => (a.open === true ? Step.inferenceAttempt({ ...a.attempt, durationMs: Math.max(0, at - a.attempt.startedAt) }) : a.attempt))
  let usage = response?.usage ?? Usage.empty
  for (const a of open.attempts ?? []) if (a.response !== undefined && a.response !== response) usage = Usage.add(usage, a.attempt.usage)
  return { attempts, toolAttempts: open.toolAttempts, usage }
}

/**
 * A step's executions in the order the model asked for the calls (a resumed step
 * holds those run before its suspension, then the decided ones).
 */
export const inCallOrder = <A extends { readonly toolCall: ToolCall }>(executions: ReadonlyArray<A>, response: InferenceResponse | undefined): ReadonlyArray<A> => {
  if (response === undefined) return executions
  const order = new Map(response.toolCalls.map((call, i) => [call.id, i]))
  const rank = (e: A) => order.get(e.toolCall.id) ?? order.size
  return [...executions].sort((a, b) => rank(a) - rank(b))
}

/** The run's usage with what a tool call spent added. */
export const withSpent = (state: AgentState, spent: Usage.Usage | undefined): AgentState =>
  spent === undefined ? state : AgentState.withExecution(state, { ...state.execution, usage: Usage.add(state.execution.usage, spent) })

/**
 * A call's result committed: its tool message, what the call spent (`spent`, whatever a
 * hook made of its result) in the run's usage, and a block or a failure in the errors.
 */
export const commitResult = (state: AgentState, toolCall: ToolCall, final: ToolExecution, spent: Usage.Usage | undefined): AgentState => {
  let next = withSpent(AgentState.appendMessage(state, ToolExecution.toMessage(final)), spent)
  if (final.status === "blocked") next = AgentState.addError(next, AgentError.toolBlocked(toolCall.id, toolCall.name, final.reason))
  else if (final.status === "failure") next = AgentState.addError(next, final.error)
  return next
}

/** What settling left: the state, and the executions it recorded as they ran (for the step's record and the events). */
export interface Settled {
  readonly state: AgentState
  readonly recorded: ReadonlyArray<ToolExecution>
}

/**
 * Every tool call of the last assistant message gets exactly one tool message before
 * anything else is committed: a tool that ran and was not recorded (`ran`: its
 * AfterToolUse failed, or the run was aborted there) is recorded as it ran; a call that
 * never ran gets a cancellation marker (Tools.cancelled, `why`).
 * A call waiting for a decision is kept (unanswered) only when the run ends suspended
 * (`keepPending`); a failed or stopped step cancels it, or nobody could ever decide it
 * and the model would read an unanswered call (found by the fuzzer, issue 13).
 * `spentBy` gives what a recorded call spent besides its execution's own (the host's
 * report of a subagent), asked as the call is recorded.
 */
export const settle = (
  state: AgentState,
  ran: ReadonlyArray<ToolExecution>,
  why: string,
  keepPending: boolean,
  spentBy: (toolCallId: string) => Usage.Usage | undefined = () => undefined,
): Settled => {
  const messages = state.context.messages
  // The last assistant message, and the tool messages after it (a state given by
  // hand may have other messages in between; a hook's return may not, contextCheck.ts).
  let i = messages.length - 1
  const answered: Array<string> = []
  for (let m = messages.at(i); m !== undefined && m.role !== "assistant"; m = messages.at(--i)) {
    if (m.role === "tool") answered.push(m.toolCallId)
  }
  const last = messages.at(i)
  if (last === undefined || last.role !== "assistant" || last.toolCalls.length === 0) return { state, recorded: [] }
  const left = [...ran]
  const recorded: Array<ToolExecution> = []
  for (const call of last.toolCalls) {
    // A call waiting for a person's decision is answered when the run resumes.
    if (answered.includes(call.id) || (keepPending && AgentState.isPendingCall(state, call.id))) continue
    const k = left.findIndex((e) => e.toolCall.id === call.id)
    if (k < 0) {
      state = AgentState.appendMessage(state, Tools.cancelled(call, why))
      continue
    }
    const [ran_] = left.splice(k, 1) as [ToolExecution]
    const execution = ToolExecution.withUsage(ran_, spentBy(ran_.toolCall.id))
    recorded.push(execution)
    state = commitResult(state, execution.toolCall, execution, ToolExecution.usageOf(execution))
  }
  if (!keepPending) state = AgentState.withPendingCalls(state, undefined)
  return { state, recorded }
}

/** What a step that an error ended leaves. */
export type FailedStep = "None" | "CloseOpen" | "Record"

/**
 * A step that an error ended still leaves its record (so the steps guard counts
 * retries): the open step a resume was finishing is closed (`CloseOpen`); a BeforeStep
 * that failed after a stop was decided (a guard fired before the failing hook), that an
 * abort cut short, or that the steps limit forbids (the guard would have fired, had the
 * failing hook let it run) never started a step (`None`).
 */
export const failedStep = (facts: {
  readonly open: boolean
  readonly resumed: boolean
  readonly suspendedStep: boolean
  readonly inBeforeStep: boolean
  readonly aborting: boolean
  readonly stopSignals: boolean
  readonly stepsLimitReached: boolean
}): FailedStep =>
  !facts.open
    ? "None"
    : facts.resumed && facts.suspendedStep
    ? "CloseOpen"
    : facts.inBeforeStep && (facts.aborting || facts.stopSignals || facts.stepsLimitReached)
    ? "None"
    : "Record"

/** The record of a step an error ended, appended: what it got to, `finishReason` "error". */
export const appendFailed = (state: AgentState, open: OpenStep, index: number, completedAt: number, at: number): AgentState =>
  AgentState.appendStep(
    state,
    Step.make({
      index,
      startedAt: open.startedAt,
      response: open.response,
      toolExecutions: open.executions,
      finishReason: "error",
      completedAt,
      ...attemptsOf(open, undefined, at),
    }),
  )

/**
 * The open step a suspension left in the state (`suspendedStep`), ended as a failed
 * step: with what ran of it, this run's decided calls too (`open`, the resumed step), in
 * the model's order. Its model call counted in the run's usage when it suspended: not
 * again. The state as it is when there is none.
 */
export const closeOpenStep = (state: AgentState, open: OpenStep | undefined, index: number, completedAt: number): AgentState => {
  const suspendedStep = state.execution.suspendedStep
  if (suspendedStep === undefined) return state
  const usage = state.execution.usage
  const closed = Step.make({
    ...suspendedStep,
    index,
    toolExecutions: open === undefined ? suspendedStep.toolExecutions : inCallOrder(open.executions, suspendedStep.response),
    toolAttempts: open === undefined ? suspendedStep.toolAttempts : open.toolAttempts,
    decisions: open?.decisions ?? suspendedStep.decisions,
    finishReason: "error",
    completedAt,
  })
  let next = AgentState.withSuspendedStep(state, undefined)
  next = AgentState.appendStep(next, closed)
  return AgentState.withExecution(next, { ...next.execution, usage })
}
