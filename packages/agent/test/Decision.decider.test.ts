// Who decided (issue 26): a decision may say who made it and why; both are kept with the
// call (pending call, resumed step, stored run, events) and are not part of the decision
// (a repeat by someone else is still a repeat). Bounded, checked where they enter.
import { Codecs } from "@hookline/core"
import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { Decision, type AgentEvent } from "../src/index.js"
import { twoPayments } from "./payments.js"

const setup = twoPayments

const refusal = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e)

describe("Decision", () => {
  describe("who decided", () => {
    it("keeps by and reason with the pending call, in the resumed step's record, in the events and in the stored run", async () => {
      const { agent, paid } = setup()
      const suspended = await agent.run("pay")
      const partial = await agent.resume(suspended, { decisions: [Decision.approve("c1", { by: "ana@desk", reason: "known customer" })] })
      // c1 ran: the open step's record keeps its decision while c2 waits.
      expect(partial.execution.suspendedStep?.decisions).toEqual({ c1: { _tag: "Approve", by: "ana@desk", reason: "known customer" } })
      const events: Array<AgentEvent> = []
      for await (const event of agent.resumeStream(partial, { decisions: [Decision.reject("c2", "too much", { by: "bo" })] })) events.push(event)
      const step = events.find((e) => e._tag === "StepEnded")
      const kept = { c1: { _tag: "Approve", by: "ana@desk", reason: "known customer" }, c2: { _tag: "Reject", message: "too much", by: "bo" } }
      expect(step?._tag === "StepEnded" && step.step.decisions).toEqual(kept)
      const end = events[events.length - 1]
      const final = end?._tag === "RunEnded" ? end.state : undefined
      expect(final?.execution.status).toBe("completed")
      expect(paid).toEqual([1])
      expect(final?.execution.steps.toArray()[0]?.decisions).toEqual(kept)
      // The stored (encoded) run keeps them.
      const stored = Codecs.fromJsonUnsafe(Codecs.AgentState, Codecs.toJson(Codecs.AgentState, final!))
      expect(stored.execution.steps.toArray()[0]?.decisions).toEqual(kept)
      const waiting = Codecs.fromJsonUnsafe(Codecs.AgentState, Codecs.toJson(Codecs.AgentState, partial))
      expect(waiting.execution.suspendedStep?.decisions).toEqual({ c1: { _tag: "Approve", by: "ana@desk", reason: "known customer" } })
    })

    it("decodes a decision stored before who and why existed as it was", () => {
      const decoded = Codecs.decode(Codecs.PendingDecision, { _tag: "Reject", message: "no" })
      expect(Result.isSuccess(decoded) && decoded.success).toEqual({ _tag: "Reject", message: "no" })
      expect(Codecs.decode(Codecs.PendingDecision, { _tag: "Approve", by: 3 })._tag).toBe("Failure")
    })

    it("takes a decision by someone else, or with another reason, as a repeat", async () => {
      const { agent, paid } = setup()
      const suspended = await agent.run("pay")
      const partial = await agent.resume(suspended, { decisions: [Decision.approve("c1", { by: "ana", reason: "ok" })] })
      expect(await agent.resume(partial, { decisions: [Decision.approve("c1", { by: "bo", reason: "other" })] })).toBe(partial)
      expect(await agent.resume(partial, { decisions: [Decision.approve("c1")] })).toBe(partial)
      expect(paid).toEqual([1])
      // The kept decision is the first one's.
      expect(partial.execution.suspendedStep?.decisions).toEqual({ c1: { _tag: "Approve", by: "ana", reason: "ok" } })
    })

    it.each([
      { name: "a by that is not a string", decision: { _tag: "Approve", toolCallId: "c1", by: 7 }, field: "by" },
      { name: "a by over the bound", decision: { _tag: "Approve", toolCallId: "c1", by: "x".repeat(Decision.maxBy + 1) }, field: "by" },
      { name: "the library's own name", decision: { _tag: "Edit", toolCallId: "c1", arguments: {}, by: Decision.library }, field: "by" },
      { name: "a reason that is not a string", decision: { _tag: "Edit", toolCallId: "c1", arguments: {}, reason: ["x"] }, field: "reason" },
      { name: "a reason over the bound", decision: { _tag: "Approve", toolCallId: "c1", reason: "x".repeat(Decision.maxReason + 1) }, field: "reason" },
      { name: "a rejection's by over the bound", decision: { _tag: "Reject", toolCallId: "c1", message: "no", by: "x".repeat(Decision.maxBy + 1) }, field: "by" },
    ])("refuses $name as malformed, naming the field, before anything runs", async ({ decision, field }) => {
      const { agent, paid } = setup()
      const suspended = await agent.run("pay")
      const error = await refusal(agent.resume(suspended, { decisions: [decision as unknown as Decision] }))
      expect(error).toMatchObject({ _tag: "DecisionInvalid", reason: "malformed", toolCallId: "c1" })
      expect((error as Decision.DecisionInvalid).message).toContain(`${field}: `)
      expect((error as Decision.DecisionInvalid).message.length).toBeLessThan(400)
      expect(paid).toEqual([])
    })

    it("takes bounds at their limit, and gives a rejection no reason (its message is why)", () => {
      const at = Decision.decode([
        { _tag: "Approve", toolCallId: "c1", by: "x".repeat(Decision.maxBy), reason: "y".repeat(Decision.maxReason) },
        { _tag: "Reject", toolCallId: "c2", message: "no", by: "bo", reason: "dropped" },
      ])
      expect(Result.isSuccess(at)).toBe(true)
      if (Result.isSuccess(at)) {
        expect(at.success[0]?.by?.length).toBe(Decision.maxBy)
        expect(at.success[1]).toEqual({ _tag: "Reject", toolCallId: "c2", message: "no", by: "bo" })
      }
    })
  })
})
