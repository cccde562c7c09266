// Issue 22: a non-finite number given to a public constructor was kept; JSON writes it
// as `null`, so the state, checkpoint or event that held it did not read back. Every
// constructor that takes a number either refuses it (HooklineError carrying
// InvalidConfiguration, naming the field) or normalises it (error constructors, which
// never throw); what it builds round-trips through its codec.
import fc from "fast-check"
import type * as t from "io-ts"
import { describe, expect, it } from "vitest"
import {
  AgentError,
  AgentState,
  Codecs,
  Guards,
  HookContext,
  HookExecuted,
  InferenceRequest,
  Step,
  StopReason,
  StopSignal,
  ToolCall,
  ToolExecution,
  Usage,
} from "../src/index.js"

const call = ToolCall.make({ id: "c1", name: "add", arguments: { a: 1 } })
const custom = { _tag: "CustomStopReason", name: "Budget", priority: 0, kind: "hard" } as unknown as StopReason.Custom

interface Case {
  readonly name: string
  readonly build: (n: number) => unknown
  /** The codec its value must round-trip through, when it is kept. */
  readonly codec: t.Type<any, any, unknown> | undefined
  /** Refused (throws), or normalised (never throws). */
  readonly policy: "refuse" | "normalise"
  readonly field: string
}

// Every public constructor of core that takes a number (docs/decisions.md lists them).
const cases: ReadonlyArray<Case> = [
  { name: "AgentError.inferenceFailed status", build: (n) => AgentError.inferenceFailed("x", { status: n }), codec: Codecs.AgentError, policy: "normalise", field: "status" },
  { name: "AgentError.inferenceFailed retryAfterMs", build: (n) => AgentError.inferenceFailed("x", { retryAfterMs: n }), codec: Codecs.AgentError, policy: "normalise", field: "retryAfterMs" },
  { name: "AgentError.toolTimedOut timeoutMs", build: (n) => AgentError.toolTimedOut("c1", "add", n), codec: Codecs.AgentError, policy: "normalise", field: "timeoutMs" },
  { name: "Usage.make inputTokens", build: (n) => Usage.make(n, 1), codec: Codecs.Usage, policy: "refuse", field: "inputTokens" },
  { name: "Usage.make outputTokens", build: (n) => Usage.make(1, n), codec: Codecs.Usage, policy: "refuse", field: "outputTokens" },
  { name: "Usage.make cachedInputTokens", build: (n) => Usage.make(1, 1, { cachedInputTokens: n }), codec: Codecs.Usage, policy: "refuse", field: "cachedInputTokens" },
  { name: "Usage.make reasoningTokens", build: (n) => Usage.make(1, 1, { reasoningTokens: n }), codec: Codecs.Usage, policy: "refuse", field: "reasoningTokens" },
  { name: "Step.make index", build: (n) => Step.make({ index: n, startedAt: 1 }), codec: Codecs.Step, policy: "refuse", field: "index" },
  { name: "Step.make startedAt", build: (n) => Step.make({ index: 0, startedAt: n }), codec: Codecs.Step, policy: "refuse", field: "startedAt" },
  { name: "Step.make completedAt", build: (n) => Step.make({ index: 0, startedAt: 1, completedAt: n }), codec: Codecs.Step, policy: "refuse", field: "completedAt" },
  { name: "Step.inferenceAttempt startedAt", build: (n) => Step.inferenceAttempt({ startedAt: n, durationMs: 1 }), codec: Codecs.InferenceAttempt, policy: "refuse", field: "startedAt" },
  { name: "Step.inferenceAttempt durationMs", build: (n) => Step.inferenceAttempt({ startedAt: 1, durationMs: n }), codec: Codecs.InferenceAttempt, policy: "refuse", field: "durationMs" },
  { name: "Step.toolAttempt startedAt", build: (n) => Step.toolAttempt({ toolCallId: "c1", toolName: "add", startedAt: n, durationMs: 1 }), codec: Codecs.ToolAttempt, policy: "refuse", field: "startedAt" },
  { name: "Step.toolAttempt durationMs", build: (n) => Step.toolAttempt({ toolCallId: "c1", toolName: "add", startedAt: 1, durationMs: n }), codec: Codecs.ToolAttempt, policy: "refuse", field: "durationMs" },
  { name: "ToolExecution.success startedAt", build: (n) => ToolExecution.success(call, 1, n), codec: Codecs.ToolExecution, policy: "refuse", field: "startedAt" },
  { name: "ToolExecution.success completedAt", build: (n) => ToolExecution.success(call, 1, 1, n), codec: Codecs.ToolExecution, policy: "refuse", field: "completedAt" },
  { name: "ToolExecution.failure startedAt", build: (n) => ToolExecution.failure(call, AgentError.toolFailed("c1", "add", "x"), n), codec: Codecs.ToolExecution, policy: "refuse", field: "startedAt" },
  { name: "ToolExecution.failure completedAt", build: (n) => ToolExecution.failure(call, AgentError.toolFailed("c1", "add", "x"), 1, n), codec: Codecs.ToolExecution, policy: "refuse", field: "completedAt" },
  { name: "ToolExecution.blocked at", build: (n) => ToolExecution.blocked(call, "no", n), codec: Codecs.ToolExecution, policy: "refuse", field: "at" },
  { name: "HookContext.make createdAt", build: (n) => HookContext.make({ trigger: "BeforeStep", state: AgentState.make({ id: "s" }), createdAt: n }), codec: Codecs.HookContext, policy: "refuse", field: "createdAt" },
  { name: "HookContext.make updatedAt", build: (n) => HookContext.make({ trigger: "BeforeStep", state: AgentState.make({ id: "s" }), createdAt: 1, updatedAt: n }), codec: Codecs.HookContext, policy: "refuse", field: "updatedAt" },
  { name: "HookExecuted.make startedAt", build: (n) => HookExecuted.make({ trigger: "BeforeStep", hook: "h", startedAt: n, durationMs: 0, outcome: "unchanged", error: undefined }), codec: undefined, policy: "refuse", field: "startedAt" },
  { name: "HookExecuted.make durationMs", build: (n) => HookExecuted.make({ trigger: "BeforeStep", hook: "h", startedAt: 1, durationMs: n, outcome: "unchanged", error: undefined }), codec: undefined, policy: "refuse", field: "durationMs" },
  { name: "AgentState.withStatus at", build: (n) => AgentState.withStatus(AgentState.make({ id: "s" }), "running", n), codec: Codecs.AgentState, policy: "refuse", field: "at" },
  ...(["temperature", "topP", "topK", "maxOutputTokens", "seed"] as const).map((key): Case => ({
    name: `InferenceRequest.make options.${key}`,
    build: (n) => InferenceRequest.make({ options: { [key]: n } }),
    codec: Codecs.InferenceRequest,
    policy: "refuse",
    field: `options.${key}`,
  })),
  { name: "Guards.stepsLimit", build: (n) => Guards.stepsLimit(n), codec: undefined, policy: "refuse", field: "maxSteps" },
  { name: "Guards.tokenLimit", build: (n) => Guards.tokenLimit(n), codec: undefined, policy: "refuse", field: "maxTokens" },
  { name: "StopSignal.make priority (a hand-built custom reason)", build: (n) => StopSignal.make({ ...custom, priority: n }, "m", "s"), codec: Codecs.StopSignal, policy: "refuse", field: "priority" },
]

const nonFinite = fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY)

const outcome = (c: Case, n: number): { readonly thrown: unknown } | { readonly value: unknown } => {
  try {
    return { value: c.build(n) }
  } catch (thrown) {
    return { thrown }
  }
}

describe("core's constructors", () => {
  it.each(cases)("$name: a non-finite number is refused or normalised at construction", (c) => {
    fc.assert(fc.property(nonFinite, (n) => {
      const got = outcome(c, n)
      if (c.policy === "refuse") {
        expect("thrown" in got).toBe(true)
        const thrown = (got as { thrown: unknown }).thrown
        expect(thrown).toBeInstanceOf(AgentError.HooklineError)
        expect((thrown as AgentError.HooklineError).error).toMatchObject({ _tag: "InvalidConfiguration", path: c.field })
        return
      }
      expect("value" in got).toBe(true)
      const value = (got as { value: unknown }).value
      // What JSON writes reads back as what was built.
      if (c.codec !== undefined) {
        const back = Codecs.fromJson(c.codec, JSON.stringify(c.codec.encode(value)))
        expect(back).toMatchObject({ _tag: "Success", success: value })
      }
    }))
  })

  it("a finite number is kept as given (-0 as 0)", () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 1_000_000 }), fc.constantFrom(...cases), (n, c) => {
      const value = c.build(n)
      if (c.codec !== undefined) expect(Codecs.fromJson(c.codec, JSON.stringify(c.codec.encode(value)))).toMatchObject({ _tag: "Success" })
    }))
    expect(AgentError.inferenceFailed("busy", { status: 503, retryAfterMs: 250 })).toMatchObject({ status: 503, retryAfterMs: 250 })
    expect(Object.is(AgentError.inferenceFailed("busy", { retryAfterMs: -0 }).retryAfterMs, 0)).toBe(true)
    expect(AgentError.inferenceFailed("busy", { retryAfterMs: -5 })).not.toHaveProperty("retryAfterMs")
    expect(AgentError.toolTimedOut("c1", "add", Number.POSITIVE_INFINITY)).toMatchObject({ timeoutMs: 0, message: 'tool "add" timed out after Infinity ms' })
  })
})
