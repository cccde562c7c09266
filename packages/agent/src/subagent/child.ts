// The child's side of a subagent call: runs the child agent for one call of its tool
// (`Tool.fromAgent`), in the tool's fiber, and tells the parent's host what came of it.
import { AgentState, HookExecuted, Message, StopSignal, Usage, type AgentError, type ToolCall } from "@hookline/core"
import { Effect, Result } from "effect"
import type { Decision } from "../Decision.js"
import * as InputState from "../internal/inputState.js"
import { childRunId, childState, payload } from "../internal/subagentPayload.js"
import { Current, Host, linkOf, ParentCall } from "./host.js"

/** What a subagent tool needs of an agent (`Agent.Agent`; a structural type: no import cycle). */
export interface ChildAgent {
  readonly runEffect: (input: AgentState, options?: never) => Effect.Effect<AgentState>
  readonly resumeEffect: (
    run: AgentState,
    decisions?: ReadonlyArray<Decision>,
    options?: never,
  ) => Effect.Effect<AgentState, { readonly _tag: string; readonly message: string }>
}

/** What a subagent tool reads of its tool context. */
export interface CallContext {
  readonly toolCall: ToolCall
  readonly state: AgentState
  readonly runContext: unknown
}

/** A child run that ended failed or stopped: the tool's error, naming the child's. */
export class SubagentFailed extends Error {
  readonly _tag = "SubagentFailed"
}

// The error that ended a failed run (as Agent.failure reads it).
const failureOf = (state: AgentState): AgentError.AgentError | undefined => {
  const errors = state.execution.errors
  const reason = StopSignal.highest(state.execution.stopSignals)?.message
  return errors.find((e) => e.message === reason) ?? errors[errors.length - 1]
}

const minus = (a: Usage.Usage, b: Usage.Usage): Usage.Usage =>
  Usage.make(Math.max(0, a.inputTokens - b.inputTokens), Math.max(0, a.outputTokens - b.outputTokens))

/**
 * Runs the child for one call of its tool, in the tool's fiber: a new run whose
 * `parentId` is the parent's run id (its id derived from it, `childRunId`), or, when the parent resumes with decisions for
 * the child's calls, the child's stored run resumed with them. Gives `output(final)`
 * for a completed child; parks the call (the parent suspends) for a suspended one;
 * fails naming the child's error or stop for a failed or stopped one.
 */
export const runChild = (
  agent: ChildAgent,
  name: string,
  prompt: string,
  output: (final: AgentState) => unknown,
  context: CallContext,
): Effect.Effect<unknown, unknown> =>
  Effect.gen(function*() {
    const current = yield* Current
    const host = current instanceof Host ? current : undefined
    const callId = context.toolCall.id
    const options = (context.runContext === undefined ? undefined : { context: context.runContext }) as never
    const resumption = host?.takeResumption(callId)
    let from: AgentState | undefined
    let child: Effect.Effect<AgentState, { readonly _tag: string; readonly message: string }>
    if (resumption === undefined) {
      const id = childRunId(context.state.id, callId)
      // Made here from checked parts: the child's run takes it without checking it again.
      child = agent.runEffect(InputState.vouch(AgentState.make({ id, parentId: context.state.id, messages: [Message.user(prompt)] })), options)
    } else {
      const decoded = childState(resumption.state, "payload.state")
      if (Result.isFailure(decoded)) {
        return yield* Effect.fail(new SubagentFailed(`subagent "${name}" cannot resume: its stored state is invalid: ${decoded.failure.message}`))
      }
      // Decoded with core's codec (a frozen copy): as checked as the run's entry would.
      from = InputState.vouch(decoded.success)
      child = agent.resumeEffect(from, resumption.decisions, options)
    }
    const final = yield* child.pipe(
      Effect.mapError((e) => new SubagentFailed(`subagent "${name}" cannot resume: ${e._tag}: ${e.message}`)),
      // Its events go to the parent's observer, nested; its hooks' events too, not to
      // the parent's own sink (they would read as the parent's hooks).
      Effect.provideService(Current, linkOf(host, context.state.id, callId)),
      Effect.provideService(ParentCall, Object.freeze({ runId: context.state.id, toolCallId: callId })),
      Effect.provideService(HookExecuted.CurrentEventSink, undefined),
    )
    host?.report(callId, from === undefined ? final.execution.usage : minus(final.execution.usage, from.execution.usage))
    const status = final.execution.status
    if (status === "completed") return output(final)
    if (status === "suspended") {
      if (host === undefined) return yield* Effect.fail(new SubagentFailed(`subagent "${name}" suspended, and no run can wait on it`))
      const waiting = (final.execution.pendingCalls ?? []).map((p) => p.toolCall.name).join(", ")
      host.park(callId, `subagent "${name}" waits for a decision on ${waiting}`, payload(name, callId, final))
      return null
    }
    if (status === "failed") {
      const error = failureOf(final)
      return yield* Effect.fail(
        new SubagentFailed(`subagent "${name}" (run ${final.id}) failed: ${error === undefined ? "unknown error" : `${error._tag}: ${error.message}`}`),
      )
    }
    const stop = StopSignal.highest(final.execution.stopSignals)
    return yield* Effect.fail(
      new SubagentFailed(`subagent "${name}" (run ${final.id}) stopped: ${stop === undefined ? status : `${stop.reason}: ${stop.message}`}`),
    )
  })

/** The key under which `UseOutput` keeps a decoded answer (`@hookline/middleware` Output). */
const structuredKey = "output:structured"

/**
 * What a completed child gives its parent: its structured output when it has one
 * (`UseOutput`), else the text of its last answer.
 */
export const defaultOutput = (final: AgentState): unknown => {
  const stored = final.metadata[structuredKey]
  if (typeof stored === "object" && stored !== null && !Array.isArray(stored) && (stored as { status?: unknown }).status === "valid") {
    return (stored as { json?: unknown }).json ?? null
  }
  const last = final.context.messages.toArray().findLast((m) => m.role === "assistant")
  return last?.content ?? ""
}

/** The child's user message: the `prompt` string of the input, else the input as JSON. */
export const defaultPrompt = (input: unknown): string => {
  if (typeof input === "string") return input
  if (typeof input === "object" && input !== null && typeof (input as { prompt?: unknown }).prompt === "string") {
    return (input as { prompt: string }).prompt
  }
  return JSON.stringify(input) ?? ""
}
