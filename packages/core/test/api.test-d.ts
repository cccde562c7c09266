// The shapes of the public types the engine redesign (issue 23) moves between modules: the
// models of core's eight-file circle (AgentError, WrapPoint, HookContext, Step, StopSignal,
// ToolExecution, HookExecuted) and the JSON vocabulary of the Json ↔ sealed circle. Each is
// pinned against its literal shape, so a move that changes one fails here.
import { describe, expectTypeOf, it } from "vitest"
import type {
  AgentError,
  AgentState,
  AppendLog,
  HookContext,
  HookExecuted,
  HookTrigger,
  InferenceRequest,
  InferenceResponse,
  Json,
  Step,
  StopReason,
  StopSignal,
  ToolCall,
  ToolExecution,
  Usage,
  WrapHook,
} from "@hookline/core"
import { WrapHook as WrapHookValues } from "@hookline/core"

type JsonValue = null | boolean | number | string | ReadonlyArray<JsonValue> | { readonly [key: string]: JsonValue }

describe("WrapHook", () => {
  it("keeps WrapPoint the union of the two wrap points, and its constants and guard", () => {
    expectTypeOf<WrapHook.WrapPoint>().toEqualTypeOf<"WrapInference" | "WrapToolUse">()
    expectTypeOf(WrapHookValues.WrapInference).toEqualTypeOf<"WrapInference">()
    expectTypeOf(WrapHookValues.WrapToolUse).toEqualTypeOf<"WrapToolUse">()
    expectTypeOf(WrapHookValues.points).toEqualTypeOf<ReadonlyArray<WrapHook.WrapPoint>>()
    expectTypeOf(WrapHookValues.isWrapPoint).toEqualTypeOf<(u: unknown) => u is WrapHook.WrapPoint>()
  })
})

describe("Json", () => {
  it("keeps JsonValue, JsonObject and Metadata", () => {
    expectTypeOf<Json.JsonValue>().toEqualTypeOf<JsonValue>()
    expectTypeOf<Json.JsonObject>().toEqualTypeOf<{ readonly [key: string]: Json.JsonValue }>()
    expectTypeOf<Json.Metadata>().toEqualTypeOf<{ readonly [key: string]: Json.JsonValue }>()
  })
})

describe("AgentError", () => {
  it("keeps the union of its eleven errors, by tag", () => {
    expectTypeOf<AgentError.AgentErrorTag>().toEqualTypeOf<
      | "HookFailed"
      | "HookIsEffectful"
      | "InferenceFailed"
      | "ToolFailed"
      | "ToolTimedOut"
      | "ToolBlocked"
      | "ToolArgumentsInvalid"
      | "UnknownTool"
      | "InvalidConfiguration"
      | "DecodeFailed"
      | "Aborted"
    >()
  })
  it("types HookFailed's trigger as a trigger or a wrap point (the import that closes core's circle)", () => {
    expectTypeOf<AgentError.HookFailed>().toEqualTypeOf<{
      readonly _tag: "HookFailed"
      readonly hook: string
      readonly trigger: HookTrigger | WrapHook.WrapPoint
      readonly message: string
    }>()
  })
  it("keeps the fields of the errors a run records", () => {
    expectTypeOf<AgentError.InferenceFailed>().toEqualTypeOf<{
      readonly _tag: "InferenceFailed"
      readonly message: string
      readonly status: number | undefined
      readonly retryable: boolean
      readonly retryAfterMs?: number | undefined
    }>()
    expectTypeOf<AgentError.ToolTimedOut>().toEqualTypeOf<{
      readonly _tag: "ToolTimedOut"
      readonly toolCallId: string
      readonly toolName: string
      readonly timeoutMs: number
      readonly message: string
    }>()
    expectTypeOf<AgentError.Aborted>().toEqualTypeOf<{ readonly _tag: "Aborted"; readonly message: string }>()
  })
})

describe("HookExecuted", () => {
  it("keeps the event's fields and its sink", () => {
    expectTypeOf<HookExecuted>().toHaveProperty("trigger").toEqualTypeOf<HookTrigger | WrapHook.WrapPoint>()
    expectTypeOf<HookExecuted>().toHaveProperty("startedAt").toEqualTypeOf<number>()
    expectTypeOf<HookExecuted>().toHaveProperty("durationMs").toEqualTypeOf<number>()
    expectTypeOf<HookExecuted.EventSink>().toEqualTypeOf<(event: HookExecuted) => void>()
  })
})

describe("HookContext", () => {
  it("keeps its fields, with the run's context typed by its parameter", () => {
    expectTypeOf<HookContext<{ readonly user: string }>>().toEqualTypeOf<{
      readonly trigger: HookTrigger
      readonly state: AgentState
      readonly request?: InferenceRequest | undefined
      readonly response?: InferenceResponse | undefined
      readonly toolCall?: ToolCall | undefined
      readonly toolExecution?: ToolExecution | undefined
      readonly toolExecutionBlocked: boolean
      readonly errors: ReadonlyArray<AgentError>
      readonly metadata: Json.Metadata
      readonly createdAt: number
      readonly updatedAt: number
      readonly runContext: { readonly user: string }
    }>()
  })
})

describe("Step", () => {
  it("keeps a step's record and its attempts", () => {
    expectTypeOf<Step>().toEqualTypeOf<{
      readonly index: number
      readonly response: InferenceResponse | undefined
      readonly toolExecutions: ReadonlyArray<ToolExecution>
      readonly usage: Usage
      readonly finishReason: InferenceResponse.FinishReason | undefined
      readonly startedAt: number
      readonly completedAt: number | undefined
      readonly attempts?: ReadonlyArray<Step.InferenceAttempt> | undefined
      readonly toolAttempts?: ReadonlyArray<Step.ToolAttempt> | undefined
      readonly decisions?: Readonly<Record<string, Step.Decision>> | undefined
    }>()
    expectTypeOf<Step.InferenceAttempt>().toEqualTypeOf<{
      readonly modelId: string | undefined
      readonly startedAt: number
      readonly durationMs: number
      readonly usage: Usage
      readonly error: AgentError.InferenceFailed | undefined
    }>()
    expectTypeOf<Step.ToolAttempt>().toEqualTypeOf<{
      readonly toolCallId: string
      readonly toolName: string
      readonly startedAt: number
      readonly durationMs: number
      readonly error: ToolExecution.ToolError | undefined
    }>()
  })
})

describe("StopSignal", () => {
  it("keeps a signal's fields", () => {
    expectTypeOf<StopSignal>().toEqualTypeOf<{
      readonly reason: StopReason.Name
      readonly message: string
      readonly source: string
      readonly priority?: number | undefined
      readonly kind?: StopReason.Kind | undefined
    }>()
    expectTypeOf<StopReason.Kind>().toEqualTypeOf<"hard" | "soft">()
  })
})

describe("ToolExecution", () => {
  it("keeps the three outcomes of a call and the errors of a failure", () => {
    expectTypeOf<ToolExecution["status"]>().toEqualTypeOf<"success" | "failure" | "blocked">()
    expectTypeOf<ToolExecution.Success>().toEqualTypeOf<{
      readonly status: "success"
      readonly toolCall: ToolCall
      readonly output: Json.JsonValue
      readonly startedAt: number
      readonly completedAt: number
      readonly usage?: Usage | undefined
      readonly replayed?: true | undefined
    }>()
    expectTypeOf<ToolExecution.Failure>().toEqualTypeOf<{
      readonly status: "failure"
      readonly toolCall: ToolCall
      readonly error: ToolExecution.ToolError
      readonly startedAt: number
      readonly completedAt: number
      readonly usage?: Usage | undefined
      readonly replayed?: true | undefined
    }>()
    expectTypeOf<ToolExecution.Blocked>().toEqualTypeOf<{
      readonly status: "blocked"
      readonly toolCall: ToolCall
      readonly reason: string
      readonly startedAt: number
      readonly completedAt: number
      readonly replayed?: true | undefined
    }>()
    expectTypeOf<ToolExecution.ToolError>().toEqualTypeOf<
      AgentError.ToolFailed | AgentError.ToolTimedOut | AgentError.UnknownTool | AgentError.ToolArgumentsInvalid
    >()
  })
})

describe("AgentState", () => {
  it("keeps the state's parts and the execution's fields", () => {
    expectTypeOf<keyof AgentState>().toEqualTypeOf<"id" | "parentId" | "context" | "execution" | "metadata">()
    expectTypeOf<AgentState.Execution["steps"]>().toEqualTypeOf<AppendLog<Step>>()
    expectTypeOf<AgentState.Execution["stopSignals"]>().toEqualTypeOf<ReadonlyArray<StopSignal>>()
    expectTypeOf<AgentState.Execution["errors"]>().toEqualTypeOf<ReadonlyArray<AgentError>>()
  })
})
