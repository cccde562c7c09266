// End to end: both hooks in an agent, run with a scripted model and recorded.
import { HookStack } from "@hookline/core"
import { describe, expect, it } from "vitest"
import { HookLaws, TraceRecorder } from "@hookline/testing"
import { makeAgent } from "../src/agent.js"
import { containsSecret } from "../src/redaction.js"

describe("an agent with the redaction hook and the rate limiter", () => {
  it("blocks the third search and shows the model no secret", async () => {
    const recorder = await TraceRecorder.run(makeAgent(), "What are our API keys?")
    const final = recorder.final!
    expect(final.execution.status).toBe("completed")
    const tools = [...final.context.messages].filter((m) => m.role === "tool")
    expect(tools.map((m) => m.content)).toEqual([
      '{"hits":["staging: the staging key is [redacted]"],"total":1}',
      '{"hits":["prod: the staging key is [redacted]"],"total":1}',
      "Blocked: rate limit: at most 2 call(s) of search per run",
    ])
    expect([...final.context.messages].some((m) => containsSecret(m.content))).toBe(false)
    expect(final.metadata["rate_limit:search"]).toBe(2)

    // The limiter decided before the tool ran; the redactor saw every result after.
    expect(TraceRecorder.outcomes(recorder, "policy:rate_limit:search")).toEqual(["changed", "changed", "changed"])
    expect(TraceRecorder.outcomes(recorder, "privacy:redact_secrets")).toEqual(["changed", "changed", "unchanged"])
    TraceRecorder.expectRanBefore(recorder, "guard:steps_limit", "guard:token_limit", { trigger: "BeforeStep" })
  })

  it("has a stack that obeys the laws as a whole", () => {
    const stack = makeAgent().loop.interceptor
    if (!HookStack.isHookStack(stack)) throw new Error("expected the builder's HookStack")
    const report = HookLaws.checkStack(stack as HookStack.HookStack, { arbitraries: { toolNames: ["search", "fetch"] } })
    expect(report.checked.map((c) => c.trigger)).toEqual(["BeforeStep", "BeforeToolUse", "AfterToolUse"])
  })
})
