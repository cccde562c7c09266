import { pipe } from "effect/Function"
import { describe, expectTypeOf, it } from "vitest"
import {
  AgentState,
  AppendLog,
  type Hook,
  HookContext,
  HookTrigger,
  Message,
  StopReason,
  StopSignal,
  ToolCall,
  Usage,
} from "@hookline/core"

declare const state: AgentState
declare const ctx: HookContext
declare const message: Message
declare const log: AppendLog<Message>

describe("readonly data", () => {
  it("rejects assignments to a state's fields", () => {
    // @ts-expect-error id is readonly
    state.id = "x"
    // @ts-expect-error context.messages is readonly
    state.context.messages = AppendLog.empty()
    // @ts-expect-error execution.status is readonly
    state.execution.status = "running"
    // @ts-expect-error metadata entries are readonly
    state.metadata["k"] = 1
  })

  it("rejects assignments to a context's fields", () => {
    // @ts-expect-error trigger is readonly
    ctx.trigger = "OnStop"
    // @ts-expect-error toolExecutionBlocked is readonly
    ctx.toolExecutionBlocked = false
    // @ts-expect-error state is readonly
    ctx.state = state
  })

  it("rejects assignments to a message's fields", () => {
    // @ts-expect-error content is readonly
    message.content = "x"
    const user = Message.user("hi")
    // @ts-expect-error role is readonly
    user.role = "system"
  })

  it("offers no mutating array methods on history and lists", () => {
    // @ts-expect-error an AppendLog has no push
    log.push(message)
    // @ts-expect-error stop signals are a ReadonlyArray
    state.execution.stopSignals.push(StopSignal.make("Completed", "", "x"))
    // @ts-expect-error toArray returns a ReadonlyArray
    log.toArray().push(message)
  })
})

describe("dual functions", () => {
  it("infer the same return type in both call forms for AgentState.appendMessage", () => {
    expectTypeOf(AgentState.appendMessage(state, message)).toEqualTypeOf<AgentState>()
    expectTypeOf(pipe(state, AgentState.appendMessage(message))).toEqualTypeOf<AgentState>()
    expectTypeOf(AgentState.appendMessage(message)).toEqualTypeOf<(self: AgentState) => AgentState>()
  })

  it("infer the same return type in both call forms for AgentState.update", () => {
    expectTypeOf(AgentState.update(state, (draft) => {
      draft.metadata["k"] = 1
    })).toEqualTypeOf<AgentState>()
    expectTypeOf(pipe(state, AgentState.update((draft) => {
      draft.context.systemPrompt = "x"
    }))).toEqualTypeOf<AgentState>()
  })

  it("infer the same return type in both call forms for AgentState.withStatus", () => {
    expectTypeOf(AgentState.withStatus(state, "running", 1)).toEqualTypeOf<AgentState>()
    expectTypeOf(pipe(state, AgentState.withStatus("completed"))).toEqualTypeOf<AgentState>()
  })

  it("infer the same return type in both call forms for HookContext.withToolExecutionBlocked", () => {
    expectTypeOf(HookContext.withToolExecutionBlocked(ctx, "no")).toEqualTypeOf<HookContext>()
    expectTypeOf(pipe(ctx, HookContext.withToolExecutionBlocked("no"))).toEqualTypeOf<HookContext>()
  })

  it("infer the same return type in every call form of HookContext.requestContinuation", () => {
    expectTypeOf(HookContext.requestContinuation(ctx)).toEqualTypeOf<HookContext>()
    expectTypeOf(HookContext.requestContinuation(ctx, "more")).toEqualTypeOf<HookContext>()
    expectTypeOf(pipe(ctx, HookContext.requestContinuation("more"))).toEqualTypeOf<HookContext>()
    expectTypeOf(pipe(ctx, HookContext.requestContinuation())).toEqualTypeOf<HookContext>()
  })

  it("infer the same return type in both call forms for the other HookContext changes", () => {
    expectTypeOf(HookContext.withToolResult(ctx, { ok: true })).toEqualTypeOf<HookContext>()
    expectTypeOf(pipe(ctx, HookContext.withToolResult("ok"))).toEqualTypeOf<HookContext>()
    expectTypeOf(pipe(ctx, HookContext.withStopSignal(StopSignal.make("Completed", "", "x")))).toEqualTypeOf<HookContext>()
    expectTypeOf(pipe(ctx, HookContext.withState(state))).toEqualTypeOf<HookContext>()
  })

  it("reject arguments of the wrong type", () => {
    // @ts-expect-error a message is not a string
    AgentState.appendMessage(state, "hi")
    // @ts-expect-error the reason must be a string
    HookContext.withToolExecutionBlocked(ctx, 42)
    // @ts-expect-error not a status
    AgentState.withStatus(state, "done")
    // @ts-expect-error metadata values are JSON
    HookContext.withMetadata(ctx, { at: new Date() })
  })
})

describe("literal types", () => {
  it("types each trigger constant as its own name", () => {
    expectTypeOf(HookTrigger.BeforeToolUse).toEqualTypeOf<"BeforeToolUse">()
    expectTypeOf(ctx.trigger).toEqualTypeOf<HookTrigger>()
    expectTypeOf<"BeforeToolUse">().toExtend<HookTrigger>()
    expectTypeOf<"BeforeTool">().not.toExtend<HookTrigger>()
  })

  it("types each stop reason constant as its own name", () => {
    expectTypeOf(StopReason.Completed).toEqualTypeOf<"Completed">()
    expectTypeOf(StopSignal.make("Completed", "", "x").reason).toEqualTypeOf<StopReason.Name>()
    // @ts-expect-error not a stop reason
    StopSignal.make("Done", "", "x")
  })

  it("types a message's role as the union of roles", () => {
    expectTypeOf(message.role).toEqualTypeOf<"system" | "user" | "assistant" | "tool">()
    expectTypeOf(Message.user("x").role).toEqualTypeOf<"user">()
  })
})

describe("Hook", () => {
  it("accepts a function from context to context", () => {
    const h: Hook = (c) => c
    const block: Hook = (c) => HookContext.withToolExecutionBlocked(c, "no")
    expectTypeOf(h).toEqualTypeOf<Hook>()
    expectTypeOf(block).parameter(0).toEqualTypeOf<HookContext>()
    expectTypeOf(block).returns.toEqualTypeOf<HookContext>()
  })

  it("rejects a hook that returns something else", () => {
    // @ts-expect-error a hook returns a HookContext
    const toString: Hook = (c) => c.trigger
    // @ts-expect-error a hook returns a HookContext, not a state
    const toState: Hook = (c) => c.state
    expectTypeOf(toString).toEqualTypeOf<Hook>()
    expectTypeOf(toState).toEqualTypeOf<Hook>()
  })
})

describe("values", () => {
  it("types getters and constructors", () => {
    expectTypeOf(AgentState.lastMessage(state)).toEqualTypeOf<Message | undefined>()
    expectTypeOf(AgentState.totalTokens(state)).toEqualTypeOf<number>()
    expectTypeOf(state.context.messages).toEqualTypeOf<AppendLog<Message>>()
    expectTypeOf(log.at(-1)).toEqualTypeOf<Message | undefined>()
    expectTypeOf(log.slice(1)).toEqualTypeOf<ReadonlyArray<Message>>()
    expectTypeOf(Usage.add(Usage.empty, Usage.make(1, 2))).toEqualTypeOf<Usage>()
    expectTypeOf(ToolCall.make({ id: "c", name: "t" })).toEqualTypeOf<ToolCall>()
  })
})
