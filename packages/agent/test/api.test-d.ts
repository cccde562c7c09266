// The shapes of the public types the engine redesign (issue 23) moves: RunOptions (today in
// internal/engine.ts), the driver's contract (Driver ↔ callSignal ↔ derivedStream), the
// agent circle's Decision, Tool and Agent, and `Tool.fromAgent`, which the redesign may type
// on a structural agent: it must still infer `Tool<A, C>` from `Agent<unknown>` and
// `Agent<Ctx>`, and still refuse what is not an agent.
import { describe, expectTypeOf, it } from "vitest"
import type { Effect, Stream } from "effect"
import type { AgentError, AgentState, HookExecuted, InferenceRequest, InferenceResponse, Json, ToolCall } from "@hookline/core"
import { Tool, type Agent, type AgentEvent, type AgentLoop, Decision, type Driver, type Resource } from "@hookline/agent"

interface Ctx {
  readonly user: string
}

declare const plain: Agent
declare const withContext: Agent<Ctx>

describe("AgentLoop.RunOptions", () => {
  it("keeps the options of a run, with the context typed by its parameter", () => {
    expectTypeOf<AgentLoop.RunOptions<Ctx>>().toEqualTypeOf<{
      readonly signal?: AbortSignal | undefined
      readonly interruption?: "stop" | "handOver" | undefined
      readonly sink?: HookExecuted.EventSink | undefined
      readonly hookEvents?: boolean | undefined
      readonly decisions?: ReadonlyMap<string, Decision> | undefined
      readonly context?: Ctx | undefined
    }>()
    expectTypeOf<AgentLoop.RunOptions>().toEqualTypeOf<AgentLoop.RunOptions<unknown>>()
  })
  it("is what AgentLoop.run takes", () => {
    expectTypeOf<AgentLoop.AgentLoop<never, Ctx>>().toHaveProperty("~runContext")
    type RunParameters = Parameters<typeof import("@hookline/agent").AgentLoop.run<never, Ctx>>
    expectTypeOf<RunParameters[2]>().toEqualTypeOf<AgentLoop.RunOptions<Ctx> | undefined>()
  })
})

describe("Driver", () => {
  it("keeps the call options, the stream parts and the driver's shape", () => {
    expectTypeOf<Driver.CallOptions>().toEqualTypeOf<{ readonly signal: AbortSignal }>()
    expectTypeOf<Driver.StreamPart>().toEqualTypeOf<
      | { readonly _tag: "TextDelta"; readonly text: string }
      | { readonly _tag: "ReasoningDelta"; readonly text: string }
      | { readonly _tag: "ToolCall"; readonly toolCall: ToolCall }
      | { readonly _tag: "Finish"; readonly response: InferenceResponse }
    >()
    expectTypeOf<Driver.DriverShape>().toEqualTypeOf<{
      readonly generate: (
        request: InferenceRequest,
        options: Driver.CallOptions,
      ) => Effect.Effect<InferenceResponse, AgentError.InferenceFailed>
      readonly stream: (request: InferenceRequest, options: Driver.CallOptions) => Stream.Stream<Driver.StreamPart, AgentError.InferenceFailed>
      readonly model?: {
        readonly provider: string
        readonly id: string
        readonly server?: { readonly address: string; readonly port?: number | undefined } | undefined
      } | undefined
    }>()
    expectTypeOf<Driver>().toEqualTypeOf<Driver.DriverShape>()
  })
})

describe("Decision", () => {
  it("keeps the three decisions on a pending call", () => {
    expectTypeOf<Decision>().toEqualTypeOf<
      | { readonly _tag: "Approve"; readonly toolCallId: string } & Decision.Decider
      | { readonly _tag: "Edit"; readonly toolCallId: string; readonly arguments: Json.JsonValue } & Decision.Decider
      | { readonly _tag: "Reject"; readonly toolCallId: string; readonly message: string } & Decision.Decider
    >()
    expectTypeOf<Decision.Decider>().toEqualTypeOf<{ readonly by?: string | undefined; readonly reason?: string | undefined }>()
    // A rejection says who, its message says why.
    expectTypeOf(Decision.reject).toBeCallableWith("c1", "too much", { by: "ana" })
    // @ts-expect-error: a rejection's reason is its message
    Decision.reject("c1", "too much", { by: "ana", reason: "why" })
  })
})

describe("Tool", () => {
  it("keeps what a tool's execute gets", () => {
    expectTypeOf<Tool.ToolContext<Ctx>>().toEqualTypeOf<{
      readonly toolCall: ToolCall
      readonly state: AgentState
      readonly signal: AbortSignal
      readonly idempotencyKey: string
      readonly runContext: Ctx
    }>()
    expectTypeOf<Tool.Tool<{ readonly a: number }, Ctx>["execute"]>().toEqualTypeOf<
      (args: { readonly a: number }, context: Tool.ToolContext<Ctx>) => Effect.Effect<unknown, unknown>
    >()
  })

  describe("fromAgent", () => {
    it("infers Tool<A, C> from an Agent<unknown> and an Agent<Ctx>, data-first and data-last", () => {
      expectTypeOf(Tool.fromAgent(plain, { name: "ask", description: "asks" })).toEqualTypeOf<Tool.Tool<{ readonly prompt: string }, unknown>>()
      expectTypeOf(Tool.fromAgent(withContext, { name: "ask", description: "asks" })).toEqualTypeOf<Tool.Tool<{ readonly prompt: string }, Ctx>>()
      expectTypeOf(Tool.fromAgent({ name: "ask", description: "asks" })(withContext)).toEqualTypeOf<Tool.Tool<{ readonly prompt: string }, Ctx>>()
    })
    it("refuses what is not an agent", () => {
      // @ts-expect-error: not an agent
      Tool.fromAgent({ run: () => Promise.resolve(1) }, { name: "ask", description: "asks" })
      // @ts-expect-error: not an agent
      Tool.fromAgent({ name: "ask", description: "asks" })({ _tag: "Tool" })
    })
  })
})

describe("Agent", () => {
  it("keeps its members, and asks for the context only when the agent has one", () => {
    expectTypeOf<keyof Agent>().toEqualTypeOf<
      "_tag" | "loop" | "driver" | "resources" | "run" | "runOrThrow" | "stream" | "iterate" | "runEffect" | "resume" | "resumeEffect" | "resumeStream"
      | "continue" | "continueEffect" | "continueStream"
    >()
    expectTypeOf<Agent<Ctx>["loop"]>().toEqualTypeOf<AgentLoop.AgentLoop<never, Ctx>>()
    expectTypeOf<Agent["resources"]>().toEqualTypeOf<ReadonlyArray<Resource>>()
    expectTypeOf<Agent["driver"]>().toEqualTypeOf<Driver.DriverShape | undefined>()
    expectTypeOf<Agent["stream"]>().returns.toEqualTypeOf<AsyncIterable<AgentEvent>>()
    expectTypeOf(plain.run).parameters.toEqualTypeOf<[input: AgentLoop.Input, options?: AgentLoop.RunOptions<unknown>]>()
    expectTypeOf(withContext.run).parameters.toEqualTypeOf<[input: AgentLoop.Input, options: AgentLoop.RunOptions<Ctx> & { readonly context: Ctx }]>()
    // A continuation asks for the context as a resume does, and takes no decisions.
    expectTypeOf(plain.continue).toBeCallableWith("run-1", "and then?")
    expectTypeOf(plain.continue).toBeCallableWith("run-1", { role: "user", content: "and then?" }, { key: "m-2" })
    expectTypeOf(withContext.continue).toBeCallableWith("run-1", "and then?", { context: {} as Ctx })
    // @ts-expect-error: a typed context is required
    withContext.continue("run-1", "and then?")
    // @ts-expect-error: a continuation takes no decisions
    plain.continue("run-1", "and then?", { decisions: [] })
    // @ts-expect-error: only a user message
    plain.continue("run-1", { role: "assistant", content: "x", toolCalls: [] })
  })

  it("resumes with one options object, the context required when the agent has one", () => {
    const approve: Decision.Decision = { _tag: "Approve", toolCallId: "c1" }
    expectTypeOf(plain.resume("run")).toEqualTypeOf<Promise<AgentState>>()
    expectTypeOf(plain.resume("run", { decisions: [approve] })).toEqualTypeOf<Promise<AgentState>>()
    expectTypeOf(withContext.resume("run", { decisions: [approve], context: { user: "u" } })).toEqualTypeOf<Promise<AgentState>>()
    expectTypeOf(withContext.resumeEffect("run", { context: { user: "u" } })).toEqualTypeOf<Effect.Effect<AgentState, Agent.ResumeError>>()
    expectTypeOf(withContext.resumeStream("run", { context: { user: "u" } })).toEqualTypeOf<AsyncIterable<AgentEvent>>()
    // The deprecated positional form still type-checks.
    expectTypeOf(withContext.resume("run", [approve], { context: { user: "u" } })).toEqualTypeOf<Promise<AgentState>>()
    // @ts-expect-error: the agent reads a context
    void withContext.resume("run", { decisions: [approve] })
    // @ts-expect-error: the agent reads a context
    void withContext.resumeStream("run")
    // @ts-expect-error: decisions are decisions
    void plain.resume("run", { decisions: ["approve"] })
  })
})
