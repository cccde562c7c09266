// The rate limiter, property-tested with @hookline/testing: the hook laws (it is
// deterministic but, as a counter, not idempotent), then its promise: the first `max`
// calls of the tool pass and every later one is blocked.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { HookContext, ToolCall, type AgentState } from "@hookline/core"
import { Arbitraries, HookLaws } from "@hookline/testing"
import { callsOf, rateLimit, rateLimitOptions, reasonFor } from "../src/rateLimit.js"

const limit = { tool: "search", max: 2 }
const arbitraries = { toolNames: ["search", "fetch"] }

// Runs the limiter on one BeforeToolUse context per call, carrying the state along
// as the loop does (tool hooks' state changes persist).
const runCalls = (state: AgentState, names: ReadonlyArray<string>, max: number) => {
  const hook = rateLimit({ tool: "search", max })
  return names.reduce(
    (acc, name, i) => {
      const ctx = HookContext.make({
        trigger: "BeforeToolUse",
        state: acc.state,
        createdAt: i,
        toolCall: ToolCall.make({ id: `call_${i}`, name, arguments: { q: "x" } }),
      })
      const out = hook(ctx)
      return { state: out.state, blocked: [...acc.blocked, out.toolExecutionBlocked] }
    },
    { state, blocked: [] as ReadonlyArray<boolean> },
  )
}

describe("rateLimit", () => {
  it("obeys the hook laws, and is independent of a limiter of another tool", () => {
    HookLaws.check(rateLimit(limit), {
      ...rateLimitOptions(limit),
      arbitraries,
      independentOf: [rateLimit({ tool: "fetch", max: 1 })],
    })
  })

  it("is not idempotent: it counts every call it sees", () => {
    const failure = HookLaws.verify(HookLaws.laws.idempotent, rateLimit(limit), { ...rateLimitOptions(limit), arbitraries })
    expect(failure?.message).toMatch(/^HookLaws\.idempotent failed for "policy:rate_limit:search" on BeforeToolUse/)
  })

  it("lets the first max calls through and blocks every later one", () => {
    fc.assert(
      fc.property(
        Arbitraries.agentState(),
        fc.array(fc.constantFrom("search", "fetch"), { maxLength: 12 }),
        fc.nat(4),
        (state, names, max) => {
          const { state: final, blocked } = runCalls(state, names, max)
          let searches = 0
          names.forEach((name, i) => {
            if (name === "search") searches++
            expect(blocked[i]).toBe(name === "search" && searches > max)
          })
          expect(callsOf(final, "search")).toBe(Math.min(searches, max))
        },
      ),
    )
  })

  it("blocks the call past the limit with a reason the model reads", () => {
    const { state } = runCalls(fc.sample(Arbitraries.agentState(), 1)[0]!, ["search", "search"], 2)
    const ctx = HookContext.make({ trigger: "BeforeToolUse", state, createdAt: 0, toolCall: ToolCall.make({ id: "c", name: "search" }) })
    const out = rateLimit(limit)(ctx)
    expect(out.toolExecution).toMatchObject({ status: "blocked", reason: reasonFor(limit) })
  })
})
