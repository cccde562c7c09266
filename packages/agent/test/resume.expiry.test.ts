// Approvals that expire (issue 26): a waiting call may carry a deadline; the next resume
// at or after it rejects the call by "hookline" with a reason the model reads, and a
// caller's approval of it is refused (DecisionInvalid "expired"). Time is Effect's
// TestClock.
import { AgentState, Codecs, HookContext, HookTriggers, type InferenceRequest } from "@hookline/core"
import { ScriptedDriver } from "@hookline/testing"
import { Effect, Result } from "effect"
import { TestClock } from "effect/testing"
import { describe, expect, it } from "vitest"
import { AgentBuilder, Decision, UseDriver, UseHook, UseTools } from "../src/index.js"
import { payTool } from "./payments.js"

const expiresIn = "1 minute"
const start = 1_000
const deadline = start + 60_000

const setup = (expiry: unknown = expiresIn) => {
  const paid: Array<number> = []
  const requests: Array<InferenceRequest> = []
  const agent = AgentBuilder.make(
    UseDriver(ScriptedDriver.make([
      ScriptedDriver.toolCalls([{ id: "c1", name: "pay", arguments: { amount: 1 } }]),
      ScriptedDriver.respond((request) => (requests.push(request), ScriptedDriver.text("done"))),
    ])),
    UseTools([payTool(paid)]),
    UseHook(
      (ctx) => ctx.toolCall?.name === "pay" ? HookContext.suspend(ctx, "approve payment", undefined, { expiresIn: expiry as "1 minute" }) : ctx,
      { triggers: HookTriggers.beforeToolUse, name: "test:approval" },
    ),
  )
  return { agent, paid, requests }
}

// The run suspended at `start`, then the clock at `at`, then `f`.
const at = <A, E>(now: number, f: (s: ReturnType<typeof setup>, suspended: AgentState) => Effect.Effect<A, E>) => {
  const s = setup()
  return Effect.runPromise(Effect.gen(function*() {
    yield* TestClock.setTime(start)
    const suspended = yield* s.agent.runEffect("pay")
    yield* TestClock.setTime(now)
    return yield* f(s, suspended)
  }).pipe(Effect.provide(TestClock.layer())))
}

const expiredText = `the approval expired at ${new Date(deadline).toISOString()}`

describe("Agent", () => {
  describe("resume (approvals that expire)", () => {
    it("keeps the deadline with the waiting call, from the clock when the run suspended, in the stored run too", async () => {
      const suspended = await at(start, (_, s) => Effect.succeed(s))
      expect(suspended.execution.status).toBe("suspended")
      expect(suspended.execution.pendingCalls?.[0]?.expiresAt).toBe(deadline)
      const stored = Codecs.fromJsonUnsafe(Codecs.AgentState, Codecs.toJson(Codecs.AgentState, suspended))
      expect(stored.execution.pendingCalls?.[0]?.expiresAt).toBe(deadline)
      // A waiting call stored before deadlines existed decodes with none.
      const old = Codecs.decode(Codecs.PendingCall, { toolCall: { id: "c1", name: "pay", arguments: {} }, reason: "r" })
      expect(Result.isSuccess(old) && old.success.expiresAt).toBeUndefined()
    })

    it("takes an approval before the deadline", async () => {
      const { paid, final } = await at(deadline - 1, (s, suspended) =>
        Effect.map(s.agent.resumeEffect(suspended, { decisions: [Decision.approve("c1", { by: "ana" })] }), (final) => ({ paid: s.paid, final })))
      expect(final.execution.status).toBe("completed")
      expect(paid).toEqual([1])
    })

    it("rejects an expired call by hookline on the next resume without decisions, with a reason the model reads", async () => {
      const { paid, final, requests } = await at(deadline, (s, suspended) =>
        Effect.map(s.agent.resumeEffect(suspended), (final) => ({ paid: s.paid, final, requests: s.requests })))
      expect(final.execution.status).toBe("completed")
      expect(paid).toEqual([])
      const answer = final.context.messages.toArray().find((m) => m.role === "tool")
      expect(answer?.content).toContain(expiredText)
      expect(requests[0]?.messages.toArray().some((m) => m.role === "tool" && m.content.includes(expiredText))).toBe(true)
      expect(final.execution.steps.toArray()[0]?.decisions).toEqual({ c1: { _tag: "Reject", message: expiredText, by: "hookline" } })
    })

    it("refuses a caller's approval or edit of an expired call, before anything runs, and after hookline rejected it", async () => {
      const result = await at(deadline + 5_000, (s, suspended) =>
        Effect.gen(function*() {
          const approve = yield* Effect.result(s.agent.resumeEffect(suspended, { decisions: [Decision.approve("c1")] }))
          const edit = yield* Effect.result(s.agent.resumeEffect(suspended, { decisions: [Decision.edit("c1", { amount: 2 })] }))
          const paidBefore = [...s.paid]
          const final = yield* s.agent.resumeEffect(suspended)
          const after = yield* Effect.result(s.agent.resumeEffect(final, { decisions: [Decision.approve("c1")] }))
          return { approve, edit, paidBefore, after }
        }))
      for (const refused of [result.approve, result.edit, result.after]) {
        expect(Result.isFailure(refused) && refused.failure).toMatchObject({ _tag: "DecisionInvalid", toolCallId: "c1", reason: "expired" })
      }
      expect(Result.isFailure(result.approve) && result.approve.failure.message).toContain(new Date(deadline).toISOString())
      expect(result.paidBefore).toEqual([])
    })

    it("takes a person's rejection of an expired call as theirs", async () => {
      const final = await at(deadline + 1, (s, suspended) => s.agent.resumeEffect(suspended, { decisions: [Decision.reject("c1", "no", { by: "ana" })] }))
      expect(final.execution.steps.toArray()[0]?.decisions).toEqual({ c1: { _tag: "Reject", message: "no", by: "ana" } })
    })

    it.each([
      { name: "a negative duration", expiry: -1 },
      { name: "not a duration", expiry: "soon" },
      { name: "an infinite duration", expiry: Infinity },
    ])("fails the hook that gives $name, naming expiresIn", async ({ expiry }) => {
      const s = setup(expiry)
      const final = await s.agent.run("pay")
      expect(final.execution.status).toBe("failed")
      expect(final.execution.errors[0]).toMatchObject({ _tag: "HookFailed", hook: "test:approval" })
      expect(final.execution.errors[0]?.message).toContain("expiresIn")
      expect(s.paid).toEqual([])
    })
  })
})
