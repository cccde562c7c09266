import type fc from "fast-check"
import { describe, expectTypeOf, it } from "vitest"
import type { AgentState, Hook, HookContext, HookStack, Message, ToolCall } from "@hookline/core"
import { Arbitraries, HookLaws, TraceRecorder } from "@hookline/testing"

describe("@hookline/testing types", () => {
  it("gives typed arbitraries", () => {
    expectTypeOf(Arbitraries.agentState()).toEqualTypeOf<fc.Arbitrary<AgentState>>()
    expectTypeOf(Arbitraries.hookContext("BeforeToolUse", { maxMessages: 2 })).toEqualTypeOf<fc.Arbitrary<HookContext>>()
    expectTypeOf(Arbitraries.message()).toEqualTypeOf<fc.Arbitrary<Message>>()
    expectTypeOf(Arbitraries.toolCall({ toolNames: ["search"] })).toEqualTypeOf<fc.Arbitrary<ToolCall>>()
  })

  it("checks pure hooks with the options they are registered with", () => {
    const hook: Hook = (ctx) => ctx
    const options: HookStack.HookOptions = { triggers: "BeforeStep", priority: 10, name: "a:b" }
    expectTypeOf(HookLaws.check(hook, options)).toEqualTypeOf<HookLaws.Report>()
    expectTypeOf(HookLaws.check).parameter(0).toEqualTypeOf<Hook>()
    expectTypeOf(HookLaws.laws.keepsTrigger.check).returns.toEqualTypeOf<string | undefined>()
    expectTypeOf(HookLaws.verify(HookLaws.laws.immutable, hook)).toEqualTypeOf<HookLaws.LawFailed | undefined>()
  })

  it("records traces", () => {
    const recorder = TraceRecorder.make()
    expectTypeOf(recorder).toEqualTypeOf<TraceRecorder>()
    expectTypeOf(TraceRecorder.ranBefore(recorder, "a", "b", { trigger: "BeforeStep" })).toEqualTypeOf<boolean>()
  })
})
