import { Usage } from "@hookline/core"
import { describe, expect, it } from "vitest"
import { refunded, scripts } from "../src/agents.js"
import { runSession } from "../src/session.js"

describe("subagents example", () => {
  it("streams the subagents' events nested, suspends on the refund, and finishes after the approval", async () => {
    const drivers = scripts()
    const { lines, suspended, final } = await runSession(drivers)
    expect(suspended.execution.pendingCalls?.map((p) => p.toolCall.name)).toEqual(["refunds"])
    expect(lines).toContain("[ask-orders] calls order_status({\"order\":\"A7\"})")
    expect(lines).toContain("[ask-refunds] suspended on refund")
    expect(lines).toContain("suspended on refunds")
    expect(lines.some((l) => l.startsWith("[ask-orders] run started (child of "))).toBe(true)
    expect(lines.at(-1)).toBe("run completed: Order A7 arrived damaged; your refund of 120 is done.")
    // The person decided on the refunds agent's call by its path from the support agent's call.
    expect(lines).toContain("a person approves refund (ask-refunds/refund-1), asked by refunds")
    // The refunds agent's run id is derived from the support run's id and its call: the
    // refund's idempotency key is the same each time that call runs it (after a crash too).
    expect(refunded).toEqual([{ order: "A7", amount: 120, key: `${final.id}/ask-refunds:refund-1` }])
    expect(final.context.messages.toArray().filter((m) => m.role === "tool").map((m) => m.content)).toEqual([
      "A7 was delivered damaged (120).",
      "Refunded 120 for A7.",
    ])
    // Every model's tokens count, once, in the support agent's run: its own three calls,
    // the orders agent's two, the refunds agent's two (one before the suspension, one after).
    expect(final.execution.usage).toEqual(Usage.make(3 * 50 + 2 * 30 + 2 * 20, 3 * 10 + 2 * 8 + 2 * 5))
    // The support agent's step records hold its own three model calls (the step that
    // suspended too, ended on resume); the subagents' tokens are in the run's usage only.
    expect(final.execution.steps.toArray().reduce((u, s) => Usage.add(u, s.usage), Usage.empty)).toEqual(Usage.make(3 * 50, 3 * 10))
    expect(drivers.refunds.requests).toHaveLength(2)
  })
})
