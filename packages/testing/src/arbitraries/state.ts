// Steps, states and hook contexts.
import {
  AgentState,
  AppendLog,
  HookContext,
  HookTrigger,
  Step,
  StopSignal,
  ToolCall,
  Usage,
} from "@hookline/core"
import fc from "fast-check"
import { epochMs, executionStatus, identifier, metadata, sizes, text, type Options } from "./base.js"
import { inferenceRequest, inferenceResponse, responseFormat } from "./inference.js"
import { agentError, executionOf, message, stopSignal, toolCall } from "./messages.js"

const stepData = (options: Options) =>
  fc.record({
    response: fc.option(inferenceResponse(options), { nil: undefined }),
    executions: fc.array(executionOf(options), { maxLength: sizes(options).maxToolCalls }),
    offset: fc.nat(60_000),
    duration: fc.option(fc.nat(60_000), { nil: undefined }),
  })

type StepData = typeof stepData extends (o: Options) => fc.Arbitrary<infer A> ? A : never

const makeStep = (index: number, startedAt: number, data: StepData): Step => {
  const calls = data.response?.toolCalls ?? []
  const executions = data.executions.map((of, i) =>
    of(calls[i] ?? ToolCall.make({ id: `call_step${index}_${i}`, name: "tool", arguments: {} }))
  )
  const at = startedAt + data.offset
  return Step.make({
    index,
    startedAt: at,
    response: data.response,
    toolExecutions: executions,
    completedAt: data.duration === undefined ? undefined : at + data.duration,
  })
}

/**
 * A step of the loop at `options.index` (default 0).
 *
 * @since 0.1.0
 * @category constructors
 */
export const step = (options: Options & { readonly index?: number | undefined } = {}): fc.Arbitrary<Step> =>
  fc.tuple(epochMs, stepData(options)).map(([at, data]) => makeStep(options.index ?? 0, at, data))

const finalStatuses: ReadonlySet<AgentState.ExecutionStatus> = new Set(["completed", "stopped", "failed"])

/**
 * A whole state: history, steps (indexed 0..n-1, usage summed from them), stop
 * signals (unique by reason and source), errors and metadata. Times are coherent: a
 * pending run has not started, a finished one has completed after it started.
 *
 * @since 0.1.0
 * @category constructors
 */
export const agentState = (options: Options = {}): fc.Arbitrary<AgentState> => {
  const s = sizes(options)
  return fc
    .record({
      id: identifier,
      parentId: fc.option(identifier, { nil: undefined }),
      systemPrompt: text(options),
      responseFormat: fc.option(responseFormat(options), { nil: undefined }),
      messages: fc.array(message(options), { maxLength: s.maxMessages }),
      contextMetadata: metadata(options),
      metadata: metadata(options),
      status: executionStatus(),
      startedAt: epochMs,
      duration: fc.nat(3_600_000),
      steps: fc.array(stepData(options), { maxLength: s.maxSteps }),
      stopSignals: fc.uniqueArray(stopSignal(options), {
        maxLength: s.maxStopSignals,
        selector: (signal) => `${signal.reason}/${signal.source}`,
      }),
      continuationRequested: fc.boolean(),
      errors: fc.array(agentError(options), { maxLength: s.maxErrors }),
    })
    .map((r) => {
      const started = r.status !== "pending"
      const steps = r.steps.map((data, i) => makeStep(i, r.startedAt, data))
      const base = AgentState.make({
        id: r.id,
        parentId: r.parentId,
        systemPrompt: r.systemPrompt,
        responseFormat: r.responseFormat,
        messages: r.messages,
        contextMetadata: r.contextMetadata,
        metadata: r.metadata,
      })
      return AgentState.withExecution(base, {
        status: r.status,
        startedAt: started ? r.startedAt : undefined,
        // The last run call's start (a resumed run's is later than its first start).
        runningSince: started ? r.startedAt + Math.floor(r.duration / 2) : undefined,
        completedAt: finalStatuses.has(r.status) ? r.startedAt + r.duration : undefined,
        steps: AppendLog.fromIterable(steps),
        stopSignals: Object.freeze(r.stopSignals),
        continuationRequested: r.continuationRequested,
        usage: steps.reduce((u, st) => Usage.add(u, st.usage), Usage.empty),
        errors: Object.freeze(r.errors),
        // A finished run says how it ended: its highest signal's reason.
        stopReason: finalStatuses.has(r.status) ? StopSignal.highest(r.stopSignals)?.reason : undefined,
        metadata: AgentState.emptyExecution.metadata,
      })
    })
}

// The context of one trigger: only the fields the trigger carries are generated.
const contextOf = (on: HookTrigger, options: Options): fc.Arbitrary<HookContext> => {
  const s = sizes(options)
  const fields = HookTrigger.fields[on]
  const has = (field: HookTrigger.Field) => fields.includes(field)
  const absent = fc.constant(undefined)
  return fc
    .record({
      state: agentState(options),
      at: epochMs,
      elapsed: fc.nat(s.maxElapsedMs),
      request: has("request") ? inferenceRequest(options) : absent,
      response: has("response") ? inferenceResponse(options) : absent,
      toolCall: has("toolCall") ? toolCall(options) : absent,
      execution: has("toolExecution") ? executionOf(options) : absent,
      errors: has("errors")
        ? fc.array(agentError(options), { minLength: 1, maxLength: Math.max(1, s.maxErrors) })
        : absent,
      metadata: metadata(options),
      runContext: options.runContext ?? fc.constant(undefined),
    })
    .map((r) => {
      // The loop's clock reading: after this run call started, when it has.
      const createdAt = (r.state.execution.runningSince ?? r.state.execution.startedAt ?? r.at) + r.elapsed
      return HookContext.make({
        trigger: on,
        state: r.state,
        createdAt,
        request: r.request,
        response: r.response,
        toolCall: r.toolCall,
        toolExecution: r.execution === undefined || r.toolCall === undefined ? undefined : r.execution(r.toolCall),
        errors: r.errors,
        metadata: r.metadata,
        runContext: r.runContext,
      })
    })
}

/**
 * A hook context of `trigger` (or of any trigger, shrinking towards BeforeExecution)
 * with exactly the optional fields that trigger carries (`HookTrigger.fields`):
 * BeforeInference a request, AfterInference a request and a response, BeforeToolUse a
 * tool call, AfterToolUse a tool call and its execution (which may be a block),
 * OnError at least one error. `createdAt` falls after the state's `runningSince` (so
 * after its `startedAt`). Given `options.runContext: fc.Arbitrary<C>`, the contexts
 * are `HookContext<C>`, typed: a hook that reads `ctx.runContext` takes them as they are.
 *
 * @since 0.1.0
 * @category constructors
 */
export const hookContext: {
  <C>(on: HookTrigger | undefined, options: WithRunContext<C>): fc.Arbitrary<HookContext<C>>
  (on?: HookTrigger | undefined, options?: Options): fc.Arbitrary<HookContext>
} = (on?: HookTrigger | undefined, options: Options = {}): fc.Arbitrary<HookContext> =>
  on === undefined ? hookContextOf(HookTrigger.all, options) : contextOf(on, options)

/**
 * Options that give the run context's generator, so the contexts are typed `HookContext<C>`.
 *
 * @since 0.1.0
 * @category models
 */
export type WithRunContext<C> = Options<C> & { readonly runContext: fc.Arbitrary<C> }

/**
 * A context of any of the given triggers.
 *
 * @since 0.1.0
 * @category constructors
 */
export const hookContextOf: {
  <C>(triggers: ReadonlyArray<HookTrigger>, options: WithRunContext<C>): fc.Arbitrary<HookContext<C>>
  (triggers: ReadonlyArray<HookTrigger>, options?: Options): fc.Arbitrary<HookContext>
} = (triggers: ReadonlyArray<HookTrigger>, options: Options = {}): fc.Arbitrary<HookContext> => {
  const list = triggers.length === 0 ? HookTrigger.all : [...new Set(triggers)]
  return list.length === 1
    ? contextOf(list[0] as HookTrigger, options)
    : fc.oneof({ withCrossShrink: true }, ...list.map((t) => contextOf(t, options)))
}

type ToolTrigger = typeof HookTrigger.BeforeToolUse | typeof HookTrigger.AfterToolUse

/**
 * A tool context whose call an earlier hook blocked: BeforeToolUse or AfterToolUse
 * (default either), `toolExecutionBlocked` true, the execution `blocked` with a reason.
 *
 * @since 0.1.0
 * @category constructors
 */
export const blockedHookContext: {
  <C>(on: ToolTrigger | undefined, options: WithRunContext<C>): fc.Arbitrary<HookContext<C>>
  (on?: ToolTrigger | undefined, options?: Options): fc.Arbitrary<HookContext>
} = (on?: ToolTrigger | undefined, options: Options = {}): fc.Arbitrary<HookContext> =>
  fc
    .tuple(hookContextOf(on === undefined ? [HookTrigger.BeforeToolUse, HookTrigger.AfterToolUse] : [on], options), text(options))
    .map(([ctx, reason]) => HookContext.withToolExecutionBlocked(ctx, reason))
