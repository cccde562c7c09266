import { describe, expect, it } from "vitest"
import { runScenario } from "../src/scenario.js"

describe("guards-timeline example", () => {
  it("blocks the shell call and feeds the reason back as an error tool message", () => {
    const { final } = runScenario()
    const shell = [...final.context.messages].find((m) => m.role === "tool" && m.toolName === "shell")
    expect(shell).toMatchObject({ isError: true, content: "Blocked: shell is not allowed" })
  })

  it("stops at the steps guard after three steps", () => {
    const { final } = runScenario()
    expect(final.execution.steps.length).toBe(3)
    expect(final.execution.stopSignals.map((s) => s.source)).toEqual(["guard:steps_limit"])
    expect(final.execution.status).toBe("stopped")
  })

  it("records one event per hook per dispatch, guards first on BeforeStep", () => {
    const { events } = runScenario()
    const firstStep = events.filter((e) => e.trigger === "BeforeStep").slice(0, 4).map((e) => e.hook)
    expect(firstStep).toEqual(["guard:steps_limit", "guard:token_limit", "guard:time_limit", "log:audit"])
    expect(events.find((e) => e.hook === "policy:deny_shell" && e.outcome === "changed")).toBeDefined()
  })

  it("audits every trigger it fires on", () => {
    const { audit } = runScenario()
    expect(audit[0]).toBe("BeforeExecution")
    expect(audit).toContain("BeforeToolUse shell")
    expect(audit.at(-1)).toBe("AfterExecution")
  })
})
