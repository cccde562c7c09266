// Issue 12, item 6: a tool that ran leaves a record, and every tool call in a committed
// assistant message has exactly one committed tool message (its result, an error, or a
// cancellation marker) before the next model request.
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { Hook, HookContext, HookStack, HookTriggers, type AgentState, type InferenceRequest, type Message } from "@hookline/core"
import { AgentLoop, Tool, Tools } from "@hookline/agent"
import { ScriptedDriver } from "@hookline/testing"
import * as t from "io-ts"
import { unansweredCalls } from "./fuzz/properties.js"
import { add } from "./support.js"

const payments: Array<number> = []
const pay = Tool.make({
  name: "pay",
  parameters: t.type({ amount: t.number }),
  execute: ({ amount }) => {
    payments.push(amount)
    return `paid ${amount}`
  },
})

const failOnce = () => {
  let failed = false
  return (ctx: HookContext) => {
    if (!failed) {
      failed = true
      throw new Error("telemetry is down")
    }
    return ctx
  }
}

const handleAll = [HookContext.markErrorsHandled, { triggers: HookTriggers.of("OnError"), name: "test:retry" }] as const

const run = async (stack: HookStack, script: ReadonlyArray<ScriptedDriver.Turn>, options: { readonly concurrent?: boolean; readonly signal?: AbortSignal; readonly tools?: ReadonlyArray<Tool.Tool> } = {}) => {
  const driver = ScriptedDriver.make(script)
  const loop = AgentLoop.make({ interceptor: stack, tools: options.tools ?? [pay, add], toolConcurrency: options.concurrent === true ? "concurrent" : "sequential" })
  const final = await Effect.runPromise(AgentLoop.run(loop, "pay 5", { signal: options.signal }).pipe(Effect.provide(driver.layer)))
  return { final, requests: driver.requests as ReadonlyArray<InferenceRequest> }
}

const stackOf = (...hooks: ReadonlyArray<readonly [Hook.AnyHook<unknown, never>, HookStack.HookOptions]>) =>
  hooks.reduce<HookStack>((stack, [hook, options]) => HookStack.with(stack, hook, options), HookStack.empty)

const everyRequestAnswered = (requests: ReadonlyArray<InferenceRequest>) => {
  for (const request of requests) expect(unansweredCalls([...request.messages])).toEqual([])
}

const toolMessages = (final: AgentState) => [...final.context.messages].filter((m): m is Message.ToolMessage => m.role === "tool")

describe("tool records (issue 12, item 6)", () => {
  for (const concurrent of [false, true]) {
    it(`keeps the result of a tool that ran when an AfterToolUse hook fails and OnError retries (${concurrent ? "concurrent" : "sequential"})`, async () => {
      payments.length = 0
      const stack = stackOf([failOnce(), { triggers: HookTriggers.of("AfterToolUse"), name: "test:telemetry" }], handleAll)
      const { final, requests } = await run(stack, [
        ScriptedDriver.toolCalls([{ name: "pay", arguments: { amount: 5 } }, { name: "add", arguments: { a: 1, b: 2 } }]),
        ScriptedDriver.text("paid"),
      ], { concurrent })
      expect(payments).toEqual([5])
      expect(final.execution.status).toBe("completed")
      // The payment is recorded in its step and in the history, as it ran.
      expect(final.execution.steps.at(0)?.toolExecutions.map((e) => e.status === "success" && e.output)).toContain("paid 5")
      const messages = toolMessages(final)
      expect(messages[0]).toMatchObject({ content: "paid 5", isError: false })
      everyRequestAnswered(requests)
      expect(unansweredCalls([...final.context.messages])).toEqual([])
    })
  }

  it("answers the calls a failing BeforeToolUse hook kept from running with a cancellation marker", async () => {
    payments.length = 0
    let n = 0
    const failSecond = (ctx: HookContext) => {
      if (n++ === 1) throw new Error("policy service down")
      return ctx
    }
    const stack = stackOf([failSecond, { triggers: HookTriggers.of("BeforeToolUse"), name: "test:policy" }], handleAll)
    const { final, requests } = await run(stack, [
      ScriptedDriver.toolCalls([{ name: "pay", arguments: { amount: 1 } }, { name: "pay", arguments: { amount: 2 } }, { name: "add", arguments: { a: 1, b: 2 } }]),
      ScriptedDriver.text("done"),
    ])
    expect(payments).toEqual([1])
    const messages = toolMessages(final)
    expect(messages.map((m) => [m.content.startsWith("Cancelled: "), Tools.isCancelled(m)])).toEqual([[false, false], [true, true], [true, true]])
    everyRequestAnswered(requests)
  })

  for (const effectful of [false, true]) {
    it(`records a synchronous tool that fires the abort signal and returns, and cancels the calls after it (${effectful ? "effectful" : "pure"} AfterToolUse)`, async () => {
      const controller = new AbortController()
      const quit = Tool.make({
        name: "quit",
        parameters: t.type({}),
        execute: () => {
          controller.abort()
          return "bye"
        },
      })
      const after = effectful ? Hook.effect((ctx: HookContext) => Effect.as(Effect.yieldNow, ctx)) : (ctx: HookContext) => ctx
      const stack = stackOf([after, { triggers: HookTriggers.of("AfterToolUse"), name: "test:after" }])
      const { final } = await run(stack, [ScriptedDriver.toolCalls([{ name: "quit", arguments: {} }, { name: "add", arguments: { a: 1, b: 2 } }])], {
        signal: controller.signal,
        tools: [quit, add],
      })
      expect(final.execution.status).toBe("stopped")
      expect(final.execution.steps.at(0)?.toolExecutions.map((e) => e.toolCall.name)).toEqual(["quit"])
      expect(toolMessages(final).map((m) => m.content)).toEqual(["bye", "Cancelled: the run was aborted before it ran"])
      expect(unansweredCalls([...final.context.messages])).toEqual([])
    })
  }
})
