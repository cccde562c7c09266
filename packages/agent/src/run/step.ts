// One step (BeforeStep → request → the model → AfterInference → tools → its record →
// AfterStep), or the step a resume finishes; each says how it ended as a `StepEnd`. And
// the stop check that ends a step, and the loop's other transitions.
import { type AgentError, AgentState, InferenceRequest, Json, Message, Step, StopReason, StopSignal, type ToolCall, ToolExecution, Usage, HookStack, WrapHook } from "@hookline/core"
import { Effect } from "effect"
import { isEffect } from "../internal/isEffect.js"
import type { Decision } from "../Decision.js"
import type { RunCell } from "./cell.js"
import { LOOP } from "./conclude.js"
import { dispatch, dispatchAt, reportHookFailure } from "./dispatch.js"
import { callDriver, derivedAnswered, wrappedCall } from "./inference.js"
import * as KeptDecisions from "./keptDecisions.js"
import * as Records from "./records.js"
import * as Stop from "./stop.js"
import { runTools } from "./tools.js"
import type { OpenStep, Phase, RunEnv, StepEnd } from "./types.js"

/** The step ends without a stop: the loop goes on. */
export const Continue: StepEnd = Object.freeze({ _tag: "Continue" })
/** The run should stop. */
export const Stop_: StepEnd = Object.freeze({ _tag: "Stop" })

const ended = (stop: boolean): StepEnd => (stop ? Stop_ : Continue)

// Model options InferenceRequest.make took (checked and frozen). A configuration's
// options are one object for all its runs and steps: its later drafts skip make's
// checks of what cannot have changed. Never a Proxy (it could answer anew each step).
const tookOptions = new WeakSet<InferenceRequest.ModelOptions>()

// The step's request before the BeforeInference hooks: the same object make would build
// (the state's parts are frozen all through, the tools' definitions a frozen array).
const draftOf = <R>(env: RunEnv<R>, state: AgentState): InferenceRequest.InferenceRequest => {
  const { context } = state
  const tools = env.config.tools.definitions
  const options = env.config.modelOptions
  if (tookOptions.has(options) && Object.isFrozen(tools)) {
    return InferenceRequest.fromFrozenParts(context.systemPrompt, context.messages, tools, context.responseFormat, options)
  }
  const draft = InferenceRequest.make({ systemPrompt: context.systemPrompt, messages: context.messages, tools, responseFormat: context.responseFormat, options })
  if (draft.options === options && Json.isProxy !== undefined && !Json.isProxy(options)) tookOptions.add(options)
  return draft
}

/** One step. */
export function* step<R>(env: RunEnv<R>, cell: RunCell): Phase<StepEnd, AgentError.HookFailed | AgentError.InferenceFailed, R> {
  const startedAt = cell.at()
  // A step starts at BeforeStep: an error from there on leaves a step record, so
  // retries after handled errors count against the steps guard.
  const open: OpenStep = { startedAt, response: undefined, executions: cell.emptyExecutions(), attempts: undefined, toolAttempts: undefined, decisions: undefined }
  cell.open = open
  cell.inBeforeStep = true
  // dispatchNow: no generator per dispatch when every hook is pure (dispatch.ts).
  const beforeStep = dispatchAt(env, cell, "BeforeStep", startedAt)
  if (isEffect(beforeStep)) yield* beforeStep
  cell.inBeforeStep = false
  if (cell.state.execution.stopSignals.length > 0) {
    // The stop check is not part of the step: an OnStop failure here leaves no step record.
    cell.open = undefined
    if (yield* shouldStop(env, cell)) return Stop_
    cell.open = open
  }
  const index = cell.stepIndex

  const draft = draftOf(env, cell.state)
  const beforeInference = dispatchAt(env, cell, "BeforeInference", cell.at(), draft)
  const before = isEffect(beforeInference) ? yield* beforeInference : beforeInference
  const request = before.request ?? draft
  let answered = before.response
  if (answered === undefined) {
    if (env.config.wraps === undefined || !HookStack.hasWraps(env.config.wraps, WrapHook.WrapInference)) {
      answered = yield* callDriver(env, cell, request, index, env.driver, false)
      derivedAnswered(env, cell, index, answered)
    } else {
      answered = yield* wrappedCall(env, cell, env.config.wraps, before, request, index, open)
    }
    cell.stale = true
  }
  const afterInference = dispatchAt(env, cell, "AfterInference", cell.at(), request, answered)
  const after = isEffect(afterInference) ? yield* afterInference : afterInference
  const response = after.response ?? answered
  open.response = response
  if (env.streaming && env.config.textCheck !== undefined) {
    // Checked text: the reasoning too is held back until the AfterInference hooks ran.
    if (response.reasoning !== undefined) env.emit?.({ _tag: "ReasoningDelta", step: index, text: response.reasoning })
    if (response.text.length > 0) env.emit?.({ _tag: "TextDelta", step: index, text: response.text })
  }
  cell.state = AgentState.appendMessage(cell.state, Message.assistant(response.text, response.toolCalls))
  if (env.emit !== undefined) {
    for (const toolCall of response.toolCalls) env.emit({ _tag: "ToolCallRequested", step: index, toolCall })
    // The consumer sees the calls before any tool hook or tool acts on them.
    if (env.settled !== undefined && response.toolCalls.length > 0) yield* env.settled
  }

  if (response.toolCalls.length > 0) yield* runTools(env, cell, response.toolCalls, index, open.executions)
  if (cell.state.execution.pendingCalls !== undefined) {
    // The step stays open, but its model call was paid for: it counts in the run's
    // usage now (the token guard sees it). Its record so far stays in the state; the
    // step that ends it on resume keeps the response (a cost budget prices it by its
    // model) without counting its usage in the run's again.
    const spent = Records.attemptsOf(open, response, cell.at()).usage ?? response.usage
    cell.state = AgentState.withExecution(cell.state, { ...cell.state.execution, usage: Usage.add(cell.state.execution.usage, spent) })
    return suspend(cell, Step.make({ index, startedAt, response, toolExecutions: open.executions, completedAt: cell.at(), ...Records.attemptsOf(open, response, cell.at()) }))
  }

  // Without wrap hooks there are no attempts: no object to spread, and every part is
  // frozen all through (the answer checked where it entered, the executions each frozen),
  // so the record walks nothing (Step.fromFrozenParts). It takes a frozen copy of the
  // executions of the exact size (the pushed array keeps spare capacity a stored step
  // would hold). Before that change a probe that threw on any unfrozen part there ran
  // through the agent's suite, its fuzzers included, without firing.
  const completedAt = cell.at()
  const toolExecutions = Object.freeze(open.executions.slice())
  const record = open.attempts === undefined && open.toolAttempts === undefined
    ? Step.fromFrozenParts(index, startedAt, response, toolExecutions, completedAt)
    : Step.make({ index, startedAt, response, toolExecutions, completedAt, ...Records.attemptsOf(open, response, completedAt) })
  cell.state = AgentState.appendStep(cell.state, record)
  cell.stepIndex++
  cell.open = undefined
  if (response.toolCalls.length === 0) {
    cell.state = AgentState.withStopSignal(cell.state, StopSignal.make(StopReason.Completed, "the model answered without tool calls", LOOP))
  }
  const afterStep = dispatchAt(env, cell, "AfterStep", cell.at())
  if (isEffect(afterStep)) yield* afterStep
  env.emit?.({ _tag: "StepEnded", step: record, state: cell.state })
  // No stop signal: no OnStop, and no generator for the check.
  return cell.state.execution.stopSignals.length === 0 ? Continue : ended(yield* shouldStop(env, cell))
}

// The run ends at once, `suspended`; the step stays open until the decisions come, its
// record so far kept in the state (a resume in another process ends it). Kept here, in
// the step, not by the loop: nothing may come between the suspension and its record.
const suspend = (cell: RunCell, open: Step): StepEnd => {
  cell.state = AgentState.withSuspendedStep(cell.state, open)
  cell.open = undefined
  return { _tag: "Suspend", open }
}

/**
 * The step a suspended run was left in: the decided calls run (an approved call goes
 * through BeforeToolUse, where a block still holds), a rejected one is answered with
 * the person's message; then the step ends as any step does, unless calls still wait.
 */
export function* decidedStep<R>(
  env: RunEnv<R>,
  cell: RunCell,
  decisions: ReadonlyMap<string, Decision | AgentState.PendingDecision>,
): Phase<StepEnd, AgentError.HookFailed, R> {
  // The step as far as it went before the suspension (a state suspended before the
  // record was kept has none: its record then starts here, with the decided calls).
  const suspended = cell.state.execution.suspendedStep
  const startedAt = suspended?.startedAt ?? cell.at()
  const index = cell.stepIndex
  const response = suspended?.response
  const open: OpenStep = {
    startedAt,
    response,
    executions: [...(suspended?.toolExecutions ?? [])],
    attempts: undefined,
    toolAttempts: suspended?.toolAttempts === undefined ? undefined : [...suspended.toolAttempts],
    decisions: undefined,
  }
  cell.open = open
  cell.resumed = open
  const pending = cell.state.execution.pendingCalls ?? []
  // The decisions carried out here stay with the step's record, after the calls ran: a
  // repeat of one is then told from a different one (Decision.validate). Kept on the open
  // step too, so the record of a step that fails from here keeps them (Records.closeOpenStep).
  const carried = KeptDecisions.carried(suspended?.decisions, pending, decisions)
  open.decisions = carried
  const waiting = pending.filter((p) => !decisions.has(p.toolCall.id))
  cell.state = AgentState.withPendingCalls(cell.state, waiting)
  // The decided calls run as a step's calls do, with the tool concurrency, in the
  // model's order (calls wait in the order they were suspended in, a subagent's after
  // the others); a rejected one is answered with the person's message, where a
  // BeforeToolUse block would be.
  const calls: Array<ToolCall> = []
  const rejected = new Map<string, ToolExecution>()
  for (const { toolCall } of Records.inCallOrder(pending.filter((p) => decisions.has(p.toolCall.id)), response)) {
    // Fail-closed: only an Approve or an Edit runs the call (keptDecisions.ts).
    const applied = KeptDecisions.apply(toolCall, decisions.get(toolCall.id) as Decision | AgentState.PendingDecision)
    if (typeof applied === "string") rejected.set(toolCall.id, ToolExecution.blocked(toolCall, applied, cell.at()))
    calls.push(typeof applied === "string" ? toolCall : applied)
  }
  yield* runTools(env, cell, calls, index, open.executions, true, rejected)
  const executions = Records.inCallOrder(open.executions, response)
  // The model calls of the step were recorded before the suspension.
  const recorded = suspended === undefined ? {} : { usage: suspended.usage, finishReason: suspended.finishReason, attempts: suspended.attempts }
  const record = (completedAt: number) =>
    Step.make({ index, startedAt, response, toolExecutions: executions, completedAt, ...recorded, toolAttempts: open.toolAttempts, decisions: carried })
  if (cell.state.execution.pendingCalls !== undefined) return suspend(cell, record(cell.at()))
  const closed = record(cell.at())
  // The open step's usage counted in the run's when it suspended.
  const usage = cell.state.execution.usage
  cell.state = AgentState.withSuspendedStep(cell.state, undefined)
  cell.state = AgentState.appendStep(cell.state, closed)
  if (suspended !== undefined) cell.state = AgentState.withExecution(cell.state, { ...cell.state.execution, usage })
  cell.stepIndex++
  cell.open = undefined
  yield* dispatch(env, cell, Records.point("AfterStep", cell.state, cell.at()))
  env.emit?.({ _tag: "StepEnded", step: closed, state: cell.state })
  // No stop signal: no OnStop, and no generator for the check.
  return cell.state.execution.stopSignals.length === 0 ? Continue : ended(yield* shouldStop(env, cell))
}

/**
 * The stop check: with stop signals, OnStop runs; a continuation resumes the loop
 * unless a hard stop is among the signals (`Stop.afterOnStop`). True when the run
 * should stop.
 */
export function* shouldStop<R>(env: RunEnv<R>, cell: RunCell): Phase<boolean, never, R> {
  if (cell.state.execution.stopSignals.length === 0) return false
  // A failing OnStop hook cannot continue the run: it is reported and the stop holds
  // (else a hook that always fails, under an OnError hook that handles everything,
  // would never let the run end).
  const result = yield* Effect.result(Effect.gen(() => dispatch(env, cell, Records.point("OnStop", cell.state, cell.at()))))
  if (result._tag === "Failure") {
    reportHookFailure(env, cell, result.failure)
    return true
  }
  const decided = Stop.afterOnStop(cell.state)
  cell.state = decided.state
  return decided.stop
}

/** The steps limit forbids another step. */
export const stepsLimitReached = <R>(env: RunEnv<R>, cell: RunCell): boolean => Stop.stepsLimitReached(cell.state, env.config.stepsLimit)
