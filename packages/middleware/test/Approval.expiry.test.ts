// UseApproval({ expiresIn }): the approval's deadline, from the clock when the run
// suspends (issue 26). Time is Effect's TestClock.
import { AgentBuilder, Decision, Tool, UseDriver, UseTools } from "@hookline/agent"
import { ScriptedDriver } from "@hookline/testing"
import { Effect, Result } from "effect"
import { TestClock } from "effect/testing"
import * as t from "io-ts"
import { describe, expect, it } from "vitest"
import { Approval, UseApproval } from "../src/index.js"

const setup = (forTool = false) => {
  const refunds: Array<number> = []
  const refund = Tool.make({
    name: "refund",
    parameters: t.type({ amount: t.number }),
    execute: ({ amount }) => (refunds.push(amount), "refunded"),
  })
  const agent = AgentBuilder.make(
    UseDriver(ScriptedDriver.make([
      ScriptedDriver.toolCalls([{ id: "r1", name: "refund", arguments: { amount: 500 } }]),
      ScriptedDriver.text("done"),
    ])),
    UseTools([refund]),
    forTool ? UseApproval.forTool(refund, { expiresIn: "2 hours" }) : UseApproval({ tools: ["refund"], expiresIn: "2 hours" }),
  )
  return { agent, refunds, refund }
}

describe("UseApproval", () => {
  describe("expiresIn", () => {
    it.each([["UseApproval", false], ["UseApproval.forTool", true]] as const)("%s gives the waiting call a deadline, and the next resume after it rejects the call", async (_, forTool) => {
      const { agent, refunds } = setup(forTool)
      const out = await Effect.runPromise(Effect.gen(function*() {
        yield* TestClock.setTime(5_000)
        const suspended = yield* agent.runEffect("refund")
        yield* TestClock.adjust("2 hours")
        const approve = yield* Effect.result(agent.resumeEffect(suspended, { decisions: [Decision.approve("r1")] }))
        const final = yield* agent.resumeEffect(suspended)
        return { suspended, approve, final }
      }).pipe(Effect.provide(TestClock.layer())))
      const deadline = 5_000 + 2 * 60 * 60 * 1000
      expect(out.suspended.execution.pendingCalls?.[0]?.expiresAt).toBe(deadline)
      expect(Result.isFailure(out.approve) && out.approve.failure).toMatchObject({ _tag: "DecisionInvalid", reason: "expired" })
      expect(out.final.execution.status).toBe("completed")
      expect(out.final.context.messages.toArray().find((m) => m.role === "tool")?.content).toContain(
        `the approval expired at ${new Date(deadline).toISOString()}`,
      )
      expect(refunds).toEqual([])
    })

    it.each([-1, "soon", Infinity])("refuses %s when the hook is made, naming expiresIn", (expiresIn) => {
      expect(() => Approval.make({ tools: ["refund"], expiresIn: expiresIn as "1 hour" })).toThrow(/expiresIn/)
      expect(() => Approval.forTool(setup().refund, { expiresIn: expiresIn as "1 hour" })).toThrow(/expiresIn/)
    })
  })
})
