// Issue 22, class F: a result or an answer a journal gives back (a BeforeToolUse or
// BeforeInference hook, as UseCheckpoints does on a resume) is marked replayed, and the
// mark reaches AfterToolUse/AfterInference, the stream's ToolResult event and the step
// record, even when a later hook rewrites the result.
import { Effect, Stream } from "effect"
import { describe, expect, it } from "vitest"
import { Hook, HookContext, HookTriggers, InferenceResponse, ToolExecution } from "@hookline/core"
import { AgentEvent, AgentLoop, Driver } from "@hookline/agent"
import { ScriptedDriver } from "@hookline/testing"
import { add, stackOf } from "./support.js"

describe("replayed results", () => {
  it("reach AfterToolUse, the ToolResult event and the step record, a redaction included", async () => {
    const seen: Array<[string, boolean]> = []
    // Gives the call's result back as a journal would, instead of running the tool.
    const journal = (ctx: HookContext) =>
      ctx.toolCall?.id === "j" ? HookContext.withToolExecution(ctx, ToolExecution.asReplayed(ToolExecution.success(ctx.toolCall, 3, 1, 2))) : ctx
    const redact = (ctx: HookContext) => HookContext.withToolResult(ctx, "[redacted]")
    const audit = Hook.observe((ctx) => {
      if (ctx.toolExecution !== undefined) seen.push([ctx.toolExecution.toolCall.id, ToolExecution.isReplayed(ctx.toolExecution)])
    })
    const stack = stackOf(
      [journal, { triggers: HookTriggers.of("BeforeToolUse"), name: "test:journal" }],
      [redact, { triggers: HookTriggers.of("AfterToolUse"), name: "test:redact", priority: 10 }],
      [audit, { triggers: HookTriggers.of("AfterToolUse"), name: "test:audit" }],
    )
    const driver = ScriptedDriver.make([
      ScriptedDriver.toolCalls([{ name: "add", id: "j", arguments: { a: 1, b: 2 } }, { name: "add", id: "r", arguments: { a: 2, b: 2 } }]),
      ScriptedDriver.text("done"),
    ])
    const loop = AgentLoop.make({ interceptor: stack, tools: [add] })
    const events = await Effect.runPromise(Stream.runCollect(AgentLoop.stream(loop, "q")).pipe(Effect.provideService(Driver.Driver, driver)))
    expect(seen).toEqual([["j", true], ["r", false]])
    expect(events.filter(AgentEvent.is("ToolResult")).map((e) => [e.execution.toolCall.id, ToolExecution.isReplayed(e.execution)])).toEqual([["j", true], ["r", false]])
    const final = events.filter(AgentEvent.is("RunEnded"))[0]!.state
    expect(final.execution.steps.at(0)?.toolExecutions.map((e) => [e.toolCall.id, ToolExecution.isReplayed(e)])).toEqual([["j", true], ["r", false]])
  })

  it("marks a replayed answer at AfterInference and in the step record", async () => {
    const seen: Array<boolean> = []
    const journal = (ctx: HookContext) =>
      ctx.state.execution.steps.length === 0 ? HookContext.withResponse(ctx, InferenceResponse.asReplayed(InferenceResponse.make({ text: "from the journal" }))) : ctx
    const stack = stackOf(
      [journal, { triggers: HookTriggers.of("BeforeInference"), name: "test:journal" }],
      [Hook.observe((ctx) => void seen.push(InferenceResponse.isReplayed(ctx.response!))), { triggers: HookTriggers.of("AfterInference"), name: "test:audit" }],
    )
    const driver = ScriptedDriver.make([ScriptedDriver.text("never asked")])
    const final = await Effect.runPromise(AgentLoop.run(AgentLoop.make({ interceptor: stack }), "q").pipe(Effect.provideService(Driver.Driver, driver)))
    expect(seen).toEqual([true])
    expect(InferenceResponse.isReplayed(final.execution.steps.at(0)!.response!)).toBe(true)
    expect(driver.requests).toHaveLength(0)
  })
})
