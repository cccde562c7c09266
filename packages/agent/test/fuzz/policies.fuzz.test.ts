// The validated-arguments rule at the engine (issue 26): what a hook reads with
// `Tool.argumentsOf` is exactly what the tool then gets, for tools that coerce,
// transform and default, models that send strings for numbers, and hooks that edit the
// call first; and a call whose arguments read as `undefined` does not run.
import { AgentBuilder, Tool, UseDriver, UseHook, UseLoopOptions, UseTools } from "@hookline/agent"
import { HookContext, HookTriggers, ToolCall } from "@hookline/core"
import { ScriptedDriver } from "@hookline/testing"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { foundCases, heldArguments, policyCase, referenceDecode, refundTool, type PolicyCase } from "./policies.js"

const runs = Number(process.env["FUZZ_POLICY_RUNS"] ?? 300)

const runCase = async (c: PolicyCase) => {
  const received: Array<unknown> = []
  const tool = refundTool(c.schema, received)
  const read: Array<unknown> = []
  const edit = (ctx: HookContext) =>
    ctx.toolCall === undefined || c.edit === undefined ? ctx : HookContext.withToolCall(ctx, ToolCall.make({ ...ctx.toolCall, arguments: c.edit }))
  // Reads last, as the call leaves the hooks.
  const reader = (ctx: HookContext) => (read.push(Tool.argumentsOf(tool, ctx.toolCall)), ctx)
  const final = await AgentBuilder.make(
    UseDriver(ScriptedDriver.make([ScriptedDriver.toolCalls([{ id: "r1", name: "refund", arguments: c.sent }]), ScriptedDriver.text("done")])),
    UseTools([tool]),
    UseLoopOptions({ toolConcurrency: c.toolConcurrency }),
    UseHook(edit, { triggers: HookTriggers.beforeToolUse, priority: 100, name: "fuzz:edit" }),
    UseHook(reader, { triggers: HookTriggers.beforeToolUse, priority: -100, name: "fuzz:read" }),
  ).run("refund")
  return { final, received, read, tool }
}

describe("policies over validated arguments (fuzz)", () => {
  it(`a hook reads what the tool gets, over ${runs} coercing cases`, async () => {
    await fc.assert(
      fc.asyncProperty(policyCase, async (c) => {
        const { final, received, read, tool } = await runCase(c)
        const args = heldArguments(c)
        const expected = referenceDecode(tool, args)
        expect(read).toHaveLength(1)
        expect(read[0]).toEqual(expected)
        const execution = final.execution.steps.at(0)?.toolExecutions.at(0)
        if (expected === undefined) {
          // Arguments that do not decode: the call does not run.
          expect(received).toEqual([])
          expect(execution).toMatchObject({ status: "failure", error: { _tag: "ToolArgumentsInvalid" } })
        } else {
          expect(received).toEqual([expected])
          expect(execution?.status).toBe("success")
        }
        // The call keeps the raw JSON the model (or the editing hook) gave.
        expect(execution?.toolCall.arguments).toEqual(args)
      }),
      { numRuns: runs, examples: foundCases },
    )
  }, 120_000)
})
