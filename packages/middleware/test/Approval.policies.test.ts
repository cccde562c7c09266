import { AgentBuilder, Decision, Tool, UseDriver, UseHook, UseTools } from "@hookline/agent"
import { AgentState, HookContext, HookTriggers, ToolCall, type JsonValue } from "@hookline/core"
import { ScriptedDriver } from "@hookline/testing"
import { describe, expect, it } from "vitest"
import * as z from "zod"
import { Approval, UseApproval } from "../src/index.js"

// A refund tool whose schema coerces the amount: the model may send "500".
const refundTool = (ran: Array<number>) =>
  Tool.make({
    name: "refund",
    parameters: z.object({ amount: z.coerce.number(), currency: z.string().default("EUR") }),
    execute: ({ amount, currency }) => (ran.push(amount), `refunded ${amount} ${currency}`),
  })

const oneCall = (args: JsonValue) =>
  UseDriver(ScriptedDriver.make([ScriptedDriver.toolCalls([{ id: "r1", name: "refund", arguments: args }]), ScriptedDriver.text("done")]))

const toolMessages = (state: AgentState) =>
  state.context.messages.toArray().flatMap((m) => (m.role === "tool" ? [m.content] : []))

describe("Approval", () => {
  describe("forTool", () => {
    it("decides on the arguments as the tool decodes them: a refund of \"500\" is asked about", async () => {
      const ran: Array<number> = []
      const refund = refundTool(ran)
      const state = await AgentBuilder.make(
        oneCall({ amount: "500" }),
        UseTools([refund]),
        UseApproval.forTool(refund, { when: (a) => a.amount > 100, reason: (a) => `a refund of ${a.amount} ${a.currency}` }),
      ).run("refund")
      expect(state.execution.status).toBe("suspended")
      // The call keeps the model's raw JSON; the person sees it as sent.
      expect(state.execution.pendingCalls).toEqual([
        { toolCall: { id: "r1", name: "refund", arguments: { amount: "500" } }, reason: "a refund of 500 EUR", payload: { amount: "500" } },
      ])
      expect(ran).toEqual([])
    })

    it("lets a call under the limit run, and does not ask about arguments that do not decode", async () => {
      for (const [args, expected] of [[{ amount: "50" }, [50]], [{ amount: "lots" }, []]] as const) {
        const ran: Array<number> = []
        const refund = refundTool(ran)
        const state = await AgentBuilder.make(oneCall(args), UseTools([refund]), UseApproval.forTool(refund, { when: (a) => a.amount > 100 })).run("refund")
        expect(state.execution.status).toBe("completed")
        expect(ran).toEqual(expected)
      }
      const ran: Array<number> = []
      const refund = refundTool(ran)
      const bad = await AgentBuilder.make(oneCall({ amount: "lots" }), UseTools([refund]), UseApproval.forTool(refund, { when: () => true })).run("refund")
      expect(bad.execution.steps.at(0)?.toolExecutions.at(0)).toMatchObject({ status: "failure", error: { _tag: "ToolArgumentsInvalid", path: "amount" } })
    })

    it("decodes a call a hook edited before the policy again (a new call object)", async () => {
      const ran: Array<number> = []
      const refund = refundTool(ran)
      const seen: Array<number> = []
      const raise = (ctx: HookContext) =>
        ctx.toolCall === undefined ? ctx : HookContext.withToolCall(ctx, ToolCall.make({ ...ctx.toolCall, arguments: { amount: "900" } }))
      const state = await AgentBuilder.make(
        oneCall({ amount: 5 }),
        UseTools([refund]),
        UseHook(raise, { triggers: HookTriggers.beforeToolUse, priority: 100, name: "test:raise" }),
        UseApproval.forTool(refund, { when: (a) => (seen.push(a.amount), a.amount > 100) }),
      ).run("refund")
      expect(seen).toEqual([900])
      expect(state.execution.status).toBe("suspended")
      expect(state.execution.pendingCalls?.[0]?.toolCall.arguments).toEqual({ amount: "900" })
    })

    it("decodes a person's edit again before the policy reads it", async () => {
      const ran: Array<number> = []
      const refund = refundTool(ran)
      const seen: Array<number> = []
      const agent = AgentBuilder.make(
        UseDriver(ScriptedDriver.make([ScriptedDriver.toolCalls([{ id: "r1", name: "refund", arguments: { amount: "500" } }]), ScriptedDriver.text("done")])),
        UseTools([refund]),
        UseApproval.forTool(refund, { when: (a) => (seen.push(a.amount), a.amount > 100) }),
      )
      const suspended = await agent.run("refund")
      expect(seen).toEqual([500])
      const final = await agent.resume(suspended, { decisions: [Decision.edit("r1", { amount: "90" })] })
      expect(final.execution.status).toBe("completed")
      expect(seen).toEqual([500, 90])
      expect(ran).toEqual([90])
      expect(toolMessages(final)).toEqual(["refunded 90 EUR"])
    })

    it("asks about every call of a tool whose validator answers asynchronously (fail-closed)", async () => {
      const ran: Array<number> = []
      const slow = Tool.make({
        name: "refund",
        parameters: z.object({ amount: z.coerce.number() }).refine(async () => true),
        execute: ({ amount }) => (ran.push(amount), "ok"),
      })
      const state = await AgentBuilder.make(oneCall({ amount: "5" }), UseTools([slow]), UseApproval.forTool(slow, { when: () => false, reason: "refunds" })).run("refund")
      expect(state.execution.status).toBe("suspended")
      expect(state.execution.pendingCalls?.[0]?.reason).toBe("refunds")
      expect(ran).toEqual([])
    })

    it("leaves other tools' calls alone and refuses options that are not a policy", () => {
      const refund = refundTool([])
      const hook = Approval.forTool(refund, { when: () => true })
      const ctx = HookContext.make({
        trigger: "BeforeToolUse",
        state: AgentState.make({ id: "run" }),
        createdAt: 0,
        toolCall: ToolCall.make({ id: "l1", name: "lookup", arguments: { amount: 500 } }),
      })
      expect(hook(ctx)).toBe(ctx)
      expect(() => Approval.forTool(refund, { when: 5 as never })).toThrow("expected a function")
      expect(() => Approval.forTool({} as never)).toThrow("expected a tool")
    })
  })

  describe("make", () => {
    it("gives when, reason and payload the decoded arguments of the tools in decode; the old call shape still works", async () => {
      const ran: Array<number> = []
      const refund = refundTool(ran)
      const state = await AgentBuilder.make(
        oneCall({ amount: "500" }),
        UseTools([refund]),
        UseApproval({
          decode: [refund],
          when: (call) => call.name === "refund" && (call.decoded as { amount: number }).amount > 100,
          reason: (call) => `refund of ${(call.decoded as { amount: number }).amount}`,
          payload: (call) => ({ raw: call.arguments, currency: (call.decoded as { currency: string }).currency }),
        }),
      ).run("refund")
      expect(state.execution.pendingCalls).toEqual([
        { toolCall: { id: "r1", name: "refund", arguments: { amount: "500" } }, reason: "refund of 500", payload: { raw: { amount: "500" }, currency: "EUR" } },
      ])
    })
  })
})
