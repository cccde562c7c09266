// End to end: both hooks in an agent, run with a scripted model and recorded.
import { AgentState, HookStack, Message } from "@hookline/core"
import { describe, expect, it } from "vitest"
import { HookLaws, TraceRecorder } from "@hookline/testing"
import { makeAgent, script } from "../src/agent.js"
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
    expect(final.execution.metadata["rate_limit:search"]).toBe(2)
    expect(final.metadata["rate_limit:search"]).toBeUndefined()

    // The limiter decided before the tool ran; the redactor saw every result after.
    expect(TraceRecorder.outcomes(recorder, "policy:rate_limit:search")).toEqual(["changed", "changed", "changed"])
    expect(TraceRecorder.outcomes(recorder, "privacy:redact_secrets")).toEqual(["changed", "changed", "unchanged"])
    TraceRecorder.expectRanBefore(recorder, "guard:steps_limit", "guard:token_limit", { trigger: "BeforeStep" })
  })

  it("counts per run: a second run of the same conversation searches again", async () => {
    const agent = makeAgent([...script(), ...script()])
    const first = await agent.run("What are our API keys?")
    const second = await agent.run(AgentState.appendMessage(first, Message.user("And now?")))
    const results = [...second.context.messages].filter((m) => m.role === "tool").map((m) => m.content.startsWith("Blocked"))
    // Run one: two searches, the third blocked; run two: the same, not blocked from its first call.
    expect(results).toEqual([false, false, true, false, false, true])
    expect(second.execution.metadata["rate_limit:search"]).toBe(2)
  })

  it("has a stack that obeys the laws as a whole", () => {
    const stack = makeAgent().loop.interceptor
    if (!HookStack.isHookStack(stack)) throw new Error("expected the builder's HookStack")
    const report = HookLaws.checkStack(stack as HookStack.HookStack, { arbitraries: { toolNames: ["search", "fetch"] } })
    expect(report.checked.map((c) => c.trigger)).toEqual(["BeforeStep", "BeforeToolUse", "AfterToolUse"])
    // Hundreds of generated runs per law: room for a slow, shared machine (about 3 s on a quiet one).
  }, 60_000)
})
