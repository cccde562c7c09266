// Untrusted input to agent.continue and to a decision's decider, generated (issue 26):
// whatever comes in, the check never throws, and either takes it or names the part.
import { fc, test } from "@fast-check/vitest"
import { AgentState, Message } from "@hookline/core"
import { Result } from "effect"
import { describe, expect } from "vitest"
import * as Decision from "../../src/Decision.js"
import * as Continuation from "../../src/run/continuation.js"

const anything = fc.oneof(fc.anything(), fc.string(), fc.record({ role: fc.constantFrom("user", "assistant", "system", 3), content: fc.anything() }))

describe("Continuation.check", () => {
  test.prop([anything, fc.option(fc.anything(), { nil: undefined })])("never throws: a user message, or ContinuationInvalid naming the part", (message, key) => {
    const result = Continuation.check(message, key)
    if (Result.isSuccess(result)) {
      expect(result.success.message.role).toBe("user")
      expect(typeof result.success.message.content).toBe("string")
      const state = AgentState.withStatus(AgentState.make({ id: "r", messages: [Message.user("hi")] }), "completed", 1)
      const plan = Continuation.plan(state, result.success)
      expect(Result.isSuccess(plan) && plan.success.state.context.messages.length).toBe(2)
    } else {
      expect(["message", "message.role", "message.content", "key"]).toContain(result.failure.path)
      expect(result.failure.message.length).toBeLessThan(300)
    }
  })
})

describe("Decision.decode (who decided)", () => {
  test.prop([fc.constantFrom("Approve", "Edit", "Reject"), fc.anything(), fc.anything()])("never throws: takes bounded strings, else malformed naming by or reason", (tag, by, reason) => {
    const result = Decision.decode([{ _tag: tag, toolCallId: "c1", arguments: {}, message: "m", by, reason }])
    const fits = (u: unknown, max: number) => u === undefined || (typeof u === "string" && u.length <= max)
    const ok = fits(by, Decision.maxBy) && by !== Decision.library && (tag === "Reject" || fits(reason, Decision.maxReason))
    expect(Result.isSuccess(result)).toBe(ok)
    if (Result.isFailure(result)) expect(result.failure).toMatchObject({ reason: "malformed", toolCallId: "c1" })
  })
})
