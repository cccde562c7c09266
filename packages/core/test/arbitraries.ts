// fast-check arbitraries for every core type: valid by construction and frozen.
// (The public kit in @hookline/testing grows from these.)
import fc from "fast-check"
import {
  AgentError,
  AgentState,
  AppendLog,
  HookContext,
  HookTrigger,
  InferenceRequest,
  InferenceResponse,
  Message,
  Step,
  StopReason,
  StopSignal,
  ToolCall,
  ToolExecution,
  Usage,
  type JsonValue,
  type Metadata,
} from "@hookline/core"

export interface Sizes {
  readonly maxMessages?: number
  readonly maxSteps?: number
  readonly maxToolCalls?: number
}

const text = fc.string({ maxLength: 12 })
const name = fc.stringMatching(/^[a-z][a-z0-9_]{0,9}$/)
const time = fc.integer({ min: 0, max: 4_000_000_000_000 })

export const json: fc.Arbitrary<JsonValue> = fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<JsonValue>
export const metadata: fc.Arbitrary<Metadata> = fc.dictionary(name, json, { maxKeys: 3 })

export const usage: fc.Arbitrary<Usage> = fc.tuple(fc.nat(5_000), fc.nat(5_000)).map(([i, o]) => Usage.make(i, o))

export const toolCall: fc.Arbitrary<ToolCall> = fc
  .record({ id: name, name, arguments: json })
  .map((c) => ToolCall.make(c))

export const message = (maxToolCalls = 2): fc.Arbitrary<Message> =>
  fc.oneof(
    text.map(Message.system),
    text.map(Message.user),
    fc.tuple(text, fc.array(toolCall, { maxLength: maxToolCalls })).map(([c, calls]) => Message.assistant(c, calls)),
    fc.record({ toolCallId: name, toolName: name, content: text, isError: fc.boolean() }).map(Message.tool),
  )

export const stopSignal: fc.Arbitrary<StopSignal> = fc
  .tuple(fc.constantFrom(...StopReason.all), text, name)
  .map(([reason, m, source]) => StopSignal.make(reason, m, source))

export const trigger: fc.Arbitrary<HookTrigger> = fc.constantFrom(...HookTrigger.all)

export const agentError: fc.Arbitrary<AgentError> = fc.oneof(
  fc.tuple(name, trigger, text).map(([h, t, c]) => AgentError.hookFailed(h, t, c)),
  fc.tuple(name, trigger).map(([h, t]) => AgentError.hookIsEffectful(h, t)),
  fc.tuple(text, fc.option(fc.integer({ min: 400, max: 599 }), { nil: undefined }), fc.boolean())
    .map(([m, status, retryable]) => AgentError.inferenceFailed(m, { status, retryable })),
  fc.tuple(name, name, text).map(([id, n, c]) => AgentError.toolFailed(id, n, c)),
  fc.tuple(name, name, fc.nat(60_000)).map(([id, n, ms]) => AgentError.toolTimedOut(id, n, ms)),
  fc.tuple(name, name, text).map(([id, n, r]) => AgentError.toolBlocked(id, n, r)),
  fc.tuple(name, name, name, text).map(([id, n, p, d]) => AgentError.toolArgumentsInvalid(id, n, p, d)),
  fc.tuple(name, name).map(([id, n]) => AgentError.unknownTool(id, n)),
  fc.tuple(name, text).map(([p, d]) => AgentError.invalidConfiguration(p, d)),
  fc.tuple(name, text).map(([p, d]) => AgentError.decodeFailed(p, d)),
  text.map((m) => AgentError.aborted(m)),
)

export const toolExecution: fc.Arbitrary<ToolExecution> = fc.oneof(
  fc.tuple(toolCall, json, time).map(([c, out, at]) => ToolExecution.success(c, out, at, at + 5)),
  fc.tuple(toolCall, text, time).map(([c, m, at]) => ToolExecution.failure(c, AgentError.toolFailed(c.id, c.name, m), at, at + 5)),
  fc.tuple(toolCall, text, time).map(([c, r, at]) => ToolExecution.blocked(c, r, at)),
)

export const finishReason = fc.constantFrom(...InferenceResponse.finishReasons)

export const inferenceResponse = (maxToolCalls = 2): fc.Arbitrary<InferenceResponse> =>
  fc
    .record({
      text,
      toolCalls: fc.array(toolCall, { maxLength: maxToolCalls }),
      usage,
      finishReason,
      modelId: name,
      metadata,
    })
    .map(InferenceResponse.make)

const jsonObject = fc.dictionary(name, json, { maxKeys: 3 })

export const responseFormat: fc.Arbitrary<InferenceRequest.ResponseFormat> = fc.oneof(
  fc.constant({ type: "text" as const }),
  fc.record({ type: fc.constant("json" as const), schema: jsonObject, name }, { requiredKeys: ["type"] }),
)

export const inferenceRequest = (sizes: Sizes = {}): fc.Arbitrary<InferenceRequest> =>
  fc
    .record({
      systemPrompt: text,
      messages: fc.array(message(sizes.maxToolCalls), { maxLength: sizes.maxMessages ?? 5 }),
      tools: fc.array(fc.record({ name, description: text, parameters: jsonObject }), { maxLength: 3 }),
      responseFormat: fc.option(responseFormat, { nil: undefined }),
      options: fc.record(
        { temperature: fc.double({ min: 0, max: 2, noNaN: true }), maxOutputTokens: fc.nat(4096), seed: fc.nat() },
        { requiredKeys: [] },
      ),
    })
    .map(InferenceRequest.make)

export const step = (index: number): fc.Arbitrary<Step> =>
  fc
    .record({
      response: fc.option(inferenceResponse(), { nil: undefined }),
      toolExecutions: fc.array(toolExecution, { maxLength: 2 }),
      startedAt: time,
      completedAt: fc.option(time, { nil: undefined }),
    })
    .map((s) => Step.make({ index, ...s }))

export const status = fc.constantFrom<AgentState.ExecutionStatus>("pending", "running", "completed", "stopped", "failed")

export const agentState = (sizes: Sizes = {}): fc.Arbitrary<AgentState> =>
  fc
    .record({
      id: name,
      parentId: fc.option(name, { nil: undefined }),
      systemPrompt: text,
      responseFormat: fc.option(responseFormat, { nil: undefined }),
      messages: fc.array(message(sizes.maxToolCalls), { maxLength: sizes.maxMessages ?? 6 }),
      contextMetadata: metadata,
      metadata,
      status,
      startedAt: fc.option(time, { nil: undefined }),
      completedAt: fc.option(time, { nil: undefined }),
      stepCount: fc.nat(sizes.maxSteps ?? 3),
      stopSignals: fc.uniqueArray(stopSignal, { maxLength: 3, selector: (s) => `${s.reason}/${s.source}` }),
      continuationRequested: fc.boolean(),
      errors: fc.array(agentError, { maxLength: 3 }),
    })
    .chain((r) =>
      fc.tuple(...Array.from({ length: r.stepCount }, (_, i) => step(i))).map((steps) => {
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
          startedAt: r.startedAt,
          completedAt: r.completedAt,
          steps: AppendLog.fromIterable(steps),
          stopSignals: r.stopSignals,
          continuationRequested: r.continuationRequested,
          usage: steps.reduce((u, s) => Usage.add(u, s.usage), Usage.empty),
          errors: r.errors,
        })
      })
    )

/** A context of the given (or any) trigger, with exactly the optional fields that trigger carries. */
export const hookContext = (on?: HookTrigger, sizes: Sizes = {}): fc.Arbitrary<HookContext> =>
  (on === undefined ? trigger : fc.constant(on)).chain((t) => {
    const fields = HookTrigger.fields[t]
    return fc
      .record({
        state: agentState(sizes),
        createdAt: time,
        request: inferenceRequest(sizes),
        response: inferenceResponse(sizes.maxToolCalls),
        toolCall,
        blocked: fc.boolean(),
        toolExecution,
        errors: fc.array(agentError, { maxLength: 2 }),
        metadata,
      })
      .map((r) => {
        const toolExecution = fields.includes("toolExecution") ? { ...r.toolExecution, toolCall: r.toolCall } as ToolExecution : undefined
        return HookContext.make({
          trigger: t,
          state: r.state,
          createdAt: r.createdAt,
          request: fields.includes("request") ? r.request : undefined,
          response: fields.includes("response") ? r.response : undefined,
          toolCall: fields.includes("toolCall") ? r.toolCall : undefined,
          toolExecution,
          errors: t === "OnError" ? r.errors : undefined,
          metadata: r.metadata,
        })
      })
  })

/** Whether a value and everything reachable from it (AppendLog items included) is frozen. */
export const isDeepFrozen = (value: unknown, seen = new Set<unknown>()): boolean => {
  if (value === null || typeof value !== "object" || seen.has(value)) return true
  seen.add(value)
  if (!Object.isFrozen(value)) return false
  if (AppendLog.isAppendLog(value)) return [...value].every((item) => isDeepFrozen(item, seen))
  return Object.values(value).every((v) => isDeepFrozen(v, seen))
}
