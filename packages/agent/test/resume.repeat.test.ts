// The rule for repeats (issue 26): a decision equal to the one kept for its call is a
// no-op and the resume gives the run's current outcome; a different one is
// DecisionInvalid("decided"). While the decision is kept with the pending call, and after
// the resumed run carried it out and went on (the step's record keeps it).
import { AgentState, Codecs, HookContext, HookTriggers } from "@hookline/core"
import { ScriptedDriver } from "@hookline/testing"
import { describe, expect, it } from "vitest"
import { AgentBuilder, Decision, UseDriver, UseHook, UseTools } from "../src/index.js"
import { payTool, twoPayments } from "./payments.js"

// The model asks for two payments in one step, then answers; every payment waits for a person.
const setup = twoPayments

const refusal = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e)

describe("Agent", () => {
  describe("resume (repeats)", () => {
    it("takes a repeat of a carried-out decision as a no-op, and refuses a different one, while other calls wait", async () => {
      const { agent, paid } = setup()
      const suspended = await agent.run("pay")
      const partial = await agent.resume(suspended, { decisions: [Decision.edit("c1", { amount: 5 })] })
      expect(partial.execution.status).toBe("suspended")
      expect(paid).toEqual([5])
      // The same edit again: nothing runs, the run is given back as it is.
      expect(await agent.resume(partial, { decisions: [Decision.edit("c1", { amount: 5 })] })).toBe(partial)
      for (const other of [Decision.approve("c1"), Decision.edit("c1", { amount: 6 }), Decision.reject("c1", "no")]) {
        expect(await refusal(agent.resume(partial, { decisions: [other] }))).toMatchObject({ _tag: "DecisionInvalid", toolCallId: "c1", reason: "decided" })
      }
      // A repeat beside a new decision: the new one runs, the repeated call does not run again.
      const final = await agent.resume(partial, { decisions: [Decision.edit("c1", { amount: 5 }), Decision.reject("c2", "too much")] })
      expect(final.execution.status).toBe("completed")
      expect(paid).toEqual([5])
    })

    it("holds after the resumed run finished, and on the stored (encoded) run", async () => {
      const { agent, paid } = setup()
      const suspended = await agent.run("pay")
      const edited = { amount: 3, memo: { to: "A7", lines: [1, 2] } }
      const final = await agent.resume(suspended, { decisions: [Decision.edit("c1", edited), Decision.reject("c2", "too much")] })
      expect(final.execution.status).toBe("completed")
      expect(paid).toEqual([3])
      const stored = Codecs.decode(Codecs.AgentState, JSON.parse(JSON.stringify(Codecs.AgentState.encode(final))))
      if (stored._tag !== "Success") throw new Error(String(stored))
      for (const state of [final, stored.success]) {
        // Equal (keys in another order): the run's outcome, nothing runs.
        const again = await agent.resume(state, { decisions: [Decision.edit("c1", { memo: { lines: [1, 2], to: "A7" }, amount: 3 }), Decision.reject("c2", "too much")] })
        expect(again).toBe(state)
        expect(await refusal(agent.resume(state, { decisions: [Decision.edit("c1", { ...edited, amount: 4 })] }))).toMatchObject({ reason: "decided" })
        expect(await refusal(agent.resume(state, { decisions: [Decision.reject("c2", "other words")] }))).toMatchObject({ reason: "decided" })
        expect(await refusal(agent.resume(state, { decisions: [Decision.approve("c2")] }))).toMatchObject({ reason: "decided" })
      }
      expect(paid).toEqual([3])
    })

    it("carries out the kept decisions on a repeat while they are kept with the pending calls (a resume that crashed)", async () => {
      const { agent, paid } = setup()
      const suspended = await agent.run("pay")
      const pending = suspended.execution.pendingCalls ?? []
      // As a resume's first checkpoint keeps them, before the process died.
      const crashed = AgentState.withPendingCalls(suspended, pending.map((p) => ({ ...p, decision: p.toolCall.id === "c1" ? { _tag: "Approve" as const } : { _tag: "Reject" as const, message: "no" } })))
      expect(await refusal(agent.resume(crashed, { decisions: [Decision.reject("c1", "no")] }))).toMatchObject({ toolCallId: "c1", reason: "decided" })
      expect(paid).toEqual([])
      const final = await agent.resume(crashed, { decisions: [Decision.approve("c1"), Decision.reject("c2", "no")] })
      expect(final.execution.status).toBe("completed")
      expect(paid).toEqual([1])
      expect(final.execution.steps.toArray()[0]?.decisions).toEqual({ c1: { _tag: "Approve" }, c2: { _tag: "Reject", message: "no" } })
    })

    it("holds when the resumed step failed after the decided call ran (its closed record keeps the decisions)", async () => {
      // Found by the fuzzer (seed 760893596): an AfterToolUse hook failing in the resumed
      // step closed the step without the decisions carried out in it, so their repeat was
      // refused as "decided".
      const paid: Array<number> = []
      const agent = AgentBuilder.make(
        UseDriver(ScriptedDriver.make([ScriptedDriver.toolCalls([{ id: "c1", name: "pay", arguments: { amount: 1 } }]), ScriptedDriver.text("paid")])),
        UseTools([payTool(paid)]),
        UseHook((ctx) => (ctx.toolCall?.name === "pay" ? HookContext.suspend(ctx, "approve payment") : ctx), { triggers: HookTriggers.beforeToolUse, name: "test:approval" }),
        UseHook(() => {
          throw new Error("the ledger is down")
        }, { triggers: HookTriggers.afterToolUse, name: "test:ledger" }),
      )
      const suspended = await agent.run("pay")
      const failed = await agent.resume(suspended, { decisions: [Decision.approve("c1")] })
      expect(failed.execution.status).toBe("failed")
      expect(paid).toEqual([1])
      expect(failed.execution.steps.toArray()[0]?.decisions).toEqual({ c1: { _tag: "Approve" } })
      expect(await agent.resume(failed, { decisions: [Decision.approve("c1")] })).toBe(failed)
      expect(await refusal(agent.resume(failed, { decisions: [Decision.reject("c1", "no")] }))).toMatchObject({ toolCallId: "c1", reason: "decided" })
      expect(paid).toEqual([1])
    })

    it("still refuses two decisions for one call in one resume, repeats included", async () => {
      const { agent } = setup()
      const suspended = await agent.run("pay")
      const partial = await agent.resume(suspended, { decisions: [Decision.approve("c1")] })
      expect(await refusal(agent.resume(partial, { decisions: [Decision.approve("c1"), Decision.approve("c1")] }))).toMatchObject({ reason: "repeated" })
    })
  })
})
