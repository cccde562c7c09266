// The rule for repeats on a call a subagent waits on (`<parentCallId>/<childCallId>`,
// issue 26): the same decision again is a no-op, a different one DecisionInvalid("decided"),
// after the parent went on and finished, and on the stored (encoded) run.
import { AgentState, Codecs, HookContext } from "@hookline/core"
import { ScriptedDriver } from "@hookline/testing"
import * as t from "io-ts"
import { describe, expect, it } from "vitest"
import { AgentBuilder, Decision, Tool, UseDriver, UseHook, UseTools } from "../src/index.js"

const setup = () => {
  const refunds: Array<number> = []
  const refund = Tool.make({
    name: "refund",
    parameters: t.type({ amount: t.number }),
    execute: ({ amount }) => (refunds.push(amount), { refunded: amount }),
  })
  const approval = UseHook(
    (ctx) => ctx.toolCall?.name === "refund" ? HookContext.suspend(ctx, "a person approves refunds") : ctx,
    { triggers: "BeforeToolUse", name: "test:approval" },
  )
  const child = AgentBuilder.make(
    UseDriver(ScriptedDriver.make([
      ScriptedDriver.toolCalls([{ id: "c1", name: "refund", arguments: { amount: 500 } }]),
      ScriptedDriver.text("refunded 500"),
    ])),
    UseTools([refund]),
    approval,
  )
  const parent = AgentBuilder.make(
    UseDriver(ScriptedDriver.make([
      ScriptedDriver.toolCalls([{ id: "p1", name: "research", arguments: { prompt: "refund order A7" } }]),
      ScriptedDriver.text("the refund is done"),
    ])),
    UseTools([Tool.fromAgent(child, { name: "research" })]),
  )
  return { parent, refunds }
}

const refusal = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e)

describe("Agent", () => {
  describe("resume (repeats of a subagent's call)", () => {
    it("takes the same decision on p/c again as a no-op, and refuses a different one, after the run finished", async () => {
      const { parent, refunds } = setup()
      const suspended = await parent.run(AgentState.make({ id: "r", messages: [] }))
      expect(suspended.execution.status).toBe("suspended")
      const final = await parent.resume(suspended, { decisions: [Decision.approve("p1/c1", { by: "ana" })] })
      expect(final.execution.status).toBe("completed")
      expect(refunds).toEqual([500])
      // Kept with the parent's step, by its path.
      expect(final.execution.steps.toArray()[0]?.decisions?.["p1/c1"]).toEqual({ _tag: "Approve", by: "ana" })
      expect(await parent.resume(final, { decisions: [Decision.approve("p1/c1")] })).toBe(final)
      const stored = Codecs.fromJsonUnsafe(Codecs.AgentState, Codecs.toJson(Codecs.AgentState, final))
      expect(await parent.resume(stored, { decisions: [Decision.approve("p1/c1", { by: "bo" })] })).toBe(stored)
      expect(await refusal(parent.resume(final, { decisions: [Decision.reject("p1/c1", "no")] }))).toMatchObject({
        _tag: "DecisionInvalid",
        toolCallId: "p1/c1",
        reason: "decided",
      })
      expect(refunds).toEqual([500])
    })
  })
})
