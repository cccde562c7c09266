// A step's tool calls, `sequential` or `concurrent` behind one switch. Each call walks
// one straight path: prepare (BeforeToolUse; does it wait for a decision?) → execute
// (plain or held by WrapToolUse hooks) → claim (the host, asked once: what a subagent
// spent, whether it parked) → after (AfterToolUse) → commit. Concurrently, the tools
// themselves run together between the two hook phases, and results are committed in
// call order. A call in `answered` (a person rejected it) skips BeforeToolUse and the
// tool: its answer is committed in its place.
import { AgentError, AgentState, HookContext, HookStack, type JsonValue, Step, type ToolCall, ToolExecution, type Usage, WrapHook } from "@hookline/core"
import { Effect, Exit } from "effect"
import { isEffect } from "../internal/isEffect.js"
import * as Tools from "../Tools.js"
import { abortSeen, type RunCell } from "./cell.js"
import { dispatch, dispatchAt } from "./dispatch.js"
import * as Records from "./records.js"
import type { OpenStep, Phase, RunEnv, StepDispatched } from "./types.js"

/** The calls of a step, with the tool concurrency (a plain function: one generator per step, not two). */
export const runTools = <R>(
  env: RunEnv<R>,
  cell: RunCell,
  calls: ReadonlyArray<ToolCall>,
  index: number,
  executions: Array<ToolExecution>,
  approved = false,
  answered?: ReadonlyMap<string, ToolExecution>,
): Phase<void, AgentError.HookFailed, R> =>
  env.config.toolConcurrency === "sequential"
    ? sequential(env, cell, calls, index, executions, approved, answered)
    : concurrent(env, cell, calls, index, executions, approved, answered)

function* sequential<R>(
  env: RunEnv<R>,
  cell: RunCell,
  calls: ReadonlyArray<ToolCall>,
  index: number,
  executions: Array<ToolExecution>,
  approved: boolean,
  answered: ReadonlyMap<string, ToolExecution> | undefined,
) {
  for (let i = 0; i < calls.length; i++) {
    const call = calls[i] as ToolCall
    if (abortSeen(cell)) return
    // prepare, inlined on this hot path (no generator or record per call).
    let toolCall = call
    let given = answered?.get(call.id)
    let before: StepDispatched | undefined
    if (given === undefined) {
      const d = dispatchAt(env, cell, "BeforeToolUse", cell.at(), undefined, undefined, call)
      before = isEffect(d) ? yield* d : d
      if (waits(cell, call, approved, before.toolExecution !== undefined)) continue
      toolCall = before.toolCall ?? call
      given = before.toolExecution
    }
    let execution = given
    if (execution === undefined) {
      if (env.settled !== undefined) yield* env.settled
      const started = execute(env, cell, toolCall, before)
      if (isEffect(started)) {
        execution = yield* started
        // Unwrapped, the tool's end was read as it ended, and nothing ran since: it is
        // the last reading (one clock read less per call). A wrap hook may take time after.
        if (hasToolWraps(env)) cell.stale = true
        else {
          cell.lastReading = execution.completedAt
          cell.stale = false
        }
      } else {
        // A synchronous tool's end is the last reading.
        execution = started
        cell.lastReading = started.completedAt
      }
      cell.ran.push(execution)
    }
    // claim: the host, asked once for this call.
    const parked = given === undefined ? env.host.takeParked(toolCall.id) : undefined
    const usage = env.host.takeUsage(toolCall.id)
    if (parked !== undefined) {
      park(cell, toolCall, execution, parked, usage)
      continue
    }
    const done = after(env, cell, toolCall, execution, usage, index)
    executions.push(isEffect(done) ? yield* done : done)
  }
}

function* concurrent<R>(
  env: RunEnv<R>,
  cell: RunCell,
  calls: ReadonlyArray<ToolCall>,
  index: number,
  executions: Array<ToolExecution>,
  approved: boolean,
  answered: ReadonlyMap<string, ToolExecution> | undefined,
) {
  const prepared: Array<Prepared> = []
  for (const call of calls) {
    const p = yield* prepare(env, cell, call, approved, answered)
    if (p !== undefined) prepared.push(p)
  }
  if (abortSeen(cell)) return
  if (env.settled !== undefined) yield* env.settled
  const state = cell.state
  const results = yield* Effect.forEach(
    prepared,
    (p) =>
      p.execution !== undefined
        ? Effect.succeed(p.execution)
        : Effect.tap(executeIn(env, cell, p.toolCall, p.before, state), (e) => Effect.sync(() => void cell.ran.push(e))),
    { concurrency: "unbounded" },
  )
  cell.stale = true
  for (let i = 0; i < prepared.length; i++) {
    const p = prepared[i] as Prepared
    const execution = results[i] as ToolExecution
    // claim: the host, asked once for this call.
    const parked = p.execution === undefined ? env.host.takeParked(p.toolCall.id) : undefined
    const usage = env.host.takeUsage(p.toolCall.id)
    if (parked !== undefined) {
      park(cell, p.toolCall, execution, parked, usage)
      continue
    }
    const done = after(env, cell, p.toolCall, execution, usage, index)
    executions.push(isEffect(done) ? yield* done : done)
  }
}

/** A call past BeforeToolUse: the call to run (a hook may have edited it), or the answer a hook gave. */
interface Prepared {
  readonly toolCall: ToolCall
  readonly execution: ToolExecution | undefined
  readonly before: StepDispatched | undefined
}

// BeforeToolUse, unless a person's answer replaces the call; `undefined` when the call
// waits for a decision (and so does not run). The concurrent path's; the sequential one
// has it inlined.
function* prepare<R>(env: RunEnv<R>, cell: RunCell, call: ToolCall, approved: boolean, answered: ReadonlyMap<string, ToolExecution> | undefined) {
  const answer = answered?.get(call.id)
  if (answer !== undefined) return { toolCall: call, execution: answer, before: undefined } as Prepared
  const before = yield* dispatch(env, cell, Records.point("BeforeToolUse", cell.state, cell.at(), undefined, undefined, call))
  if (waits(cell, call, approved, before.toolExecution !== undefined)) return undefined
  return { toolCall: before.toolCall ?? call, execution: before.toolExecution, before } as Prepared
}

// After BeforeToolUse: whether the call waits for a decision (and so does not run).
// An approved call that a hook suspends again (the approval hook) runs.
// A call a hook answered (a result, a block) in the same dispatch does not wait: its
// answer is committed, nothing is left to decide (found by the fuzzer, issue 13).
const waits = (cell: RunCell, call: ToolCall, approved: boolean, answered: boolean): boolean => {
  if (!AgentState.isPendingCall(cell.state, call.id)) return false
  if (!approved && !answered) return true
  const rest = (cell.state.execution.pendingCalls ?? []).filter((p) => p.toolCall.id !== call.id)
  cell.state = AgentState.withPendingCalls(cell.state, rest)
  return false
}

// The tool, in call order (sequential): a synchronous tool's execution at once, else an
// Effect (WrapToolUse hooks around it, or a tool that takes time).
const execute = <R>(env: RunEnv<R>, cell: RunCell, toolCall: ToolCall, before: StepDispatched | undefined): ToolExecution | Effect.Effect<ToolExecution, AgentError.HookFailed, R> =>
  hasToolWraps(env)
    ? wrappedTool(env, cell, env.config.wraps!, before, toolCall, cell.state, cell.open!)
    : Tools.start(env.config.tools, toolCall, cell.state, env.now, cell.at(), env.runContext)

// The tool as an Effect on the state the calls were prepared in (concurrent).
const executeIn = <R>(env: RunEnv<R>, cell: RunCell, toolCall: ToolCall, before: StepDispatched | undefined, state: AgentState) =>
  hasToolWraps(env)
    ? wrappedTool(env, cell, env.config.wraps!, before, toolCall, state, cell.open!)
    : Tools.execute(env.config.tools, toolCall, { state, runContext: env.runContext })

const hasToolWraps = <R>(env: RunEnv<R>): boolean => env.config.wraps !== undefined && HookStack.hasWraps(env.config.wraps, WrapHook.WrapToolUse)

// A subagent's tool whose child run ended suspended: the call waits too, with the
// child's pending calls and state in its payload, and its result is not committed.
// What the child spent so far counts at once.
const park = (cell: RunCell, toolCall: ToolCall, execution: ToolExecution, parked: { readonly reason: string; readonly payload: JsonValue }, usage: Usage.Usage | undefined): void => {
  const ran = cell.ran.indexOf(execution)
  if (ran >= 0) cell.ran.splice(ran, 1)
  cell.state = Records.withSpent(AgentState.suspendCall(cell.state, toolCall, parked.reason, parked.payload), usage)
}

// What a call spent on models (a subagent reports it through the host) goes on its
// execution, so AfterToolUse hooks and the journal see it, and a replayed execution
// brings it back; it is added to the run's as the call is committed.
// Its result at once when the AfterToolUse hooks are pure (no generator per call), else
// an Effect to yield (dispatch.ts, dispatchNow).
const after = <R>(
  env: RunEnv<R>,
  cell: RunCell,
  toolCall: ToolCall,
  ran: ToolExecution,
  usage: Usage.Usage | undefined,
  index: number,
): ToolExecution | Effect.Effect<ToolExecution, AgentError.HookFailed, R> => {
  const execution = ToolExecution.withUsage(ran, usage)
  const unrecorded = cell.ran.indexOf(ran)
  // Recorded as it ran, spending included, if AfterToolUse fails (Records.settle).
  if (unrecorded >= 0) cell.ran[unrecorded] = execution
  const d = dispatchAt(env, cell, "AfterToolUse", cell.at(), undefined, undefined, toolCall, execution)
  // A closure only when the hooks take time (no closure per call on the pure path).
  return isEffect(d)
    ? Effect.map(d, (ctx) => ended(env, cell, toolCall, execution, unrecorded >= 0, index, ctx))
    : ended(env, cell, toolCall, execution, unrecorded >= 0, index, d)
}

// AfterToolUse ran: the call's final execution committed, and no longer counted as
// only ran (`unrecorded`: it was in `cell.ran`).
const ended = <R>(
  env: RunEnv<R>,
  cell: RunCell,
  toolCall: ToolCall,
  execution: ToolExecution,
  unrecorded: boolean,
  index: number,
  ctx: StepDispatched,
): ToolExecution => {
  const final = ctx.toolExecution ?? execution
  if (unrecorded) {
    const at = cell.ran.indexOf(execution)
    // The last one (sequential calls: the only one) is popped, with no array for what a splice removes.
    if (at === cell.ran.length - 1) cell.ran.pop()
    else cell.ran.splice(at, 1)
  }
  commit(env, cell, toolCall, final, index, ToolExecution.usageOf(execution))
  return final
}

/** A call's result committed (`spent`: what the call spent, whatever a hook made of its result), and its event. */
export const commit = <R>(env: RunEnv<R>, cell: RunCell, toolCall: ToolCall, final: ToolExecution, index: number, spent: Usage.Usage | undefined): void => {
  cell.state = Records.commitResult(cell.state, toolCall, final, spent)
  env.emit?.({ _tag: "ToolResult", step: index, execution: final })
}

// One tool execution held by the WrapToolUse hooks; each call of the innermost
// `next` is one attempt. The tool runs in the fiber and context of that `next`: what a
// wrap hook provides around it (a span, a tracer, a reference) the tool sees
// (guaranteed: Tools.context.test.ts; telemetry nests a tool's own spans so).
const wrappedTool = <R>(
  env: RunEnv<R>,
  cell: RunCell,
  stack: HookStack.HookStack<R>,
  before: StepDispatched | undefined,
  toolCall: ToolCall,
  state: AgentState,
  open: OpenStep,
): Effect.Effect<ToolExecution, AgentError.HookFailed, R> => {
  const ctx = HookContext.isHookContext(before) && before.toolCall === toolCall
    ? before
    : HookContext.make({ ...Records.point("BeforeToolUse", state, cell.at(), undefined, undefined, toolCall), runContext: env.runContext })
  const attempts = (open.toolAttempts ??= [])
  // This call's runs that were interrupted (a timeout), until the wrap hook that cut
  // them says why (a failed execution: its error).
  const cut: Array<Step.ToolAttempt> = []
  const onCut = (ended: Exit.Exit<unknown, unknown>) => {
    const execution = Exit.isSuccess(ended) ? ended.value as ToolExecution : undefined
    if (execution?.status === "failure") {
      for (const a of cut) attempts[attempts.indexOf(a)] = Step.toolAttempt({ ...a, error: execution.error })
    }
    cut.length = 0
  }
  const tools = env.config.tools
  return HookStack.wrapToolUse(stack, ctx, (c) => {
    const call = c.toolCall ?? toolCall
    const startedAt = env.now()
    // Every run is an attempt, an interrupted one too.
    return Effect.onExit(Tools.execute(tools, call, { state, runContext: env.runContext }), (exit) =>
      Effect.sync(() => {
        const execution = Exit.isSuccess(exit) ? exit.value : undefined
        const attempt = Step.toolAttempt({
          toolCallId: call.id,
          toolName: call.name,
          startedAt,
          durationMs: env.now() - startedAt,
          error: execution === undefined
            ? AgentError.toolFailed(call.id, call.name, "the tool call was interrupted before it ended")
            : execution.status === "failure"
            ? execution.error
            : undefined,
        })
        attempts.push(attempt)
        if (execution === undefined) cut.push(attempt)
      }))
  }, { ...env.hooks, onCut })
}
