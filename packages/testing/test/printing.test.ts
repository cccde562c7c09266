// Counterexamples print readably: fast-check shows a context's AppendLogs as their
// items, not as the type's brand (issue 15: `Symbol.for(...)` stubs).
import fc from "fast-check"
import { inspect } from "node:util"
import { describe, expect, it } from "vitest"
import { AgentState, AppendLog, Message } from "@hookline/core"
import { Arbitraries } from "@hookline/testing"

describe("printing", () => {
  it("fast-check prints an AppendLog as its items", () => {
    const log = AppendLog.fromIterable([Message.user("hi"), Message.assistant("hello")])
    const text = fc.stringify({ messages: log })
    expect(text).toBe('{"messages":AppendLog.fromIterable([{"role":"user","content":"hi"},{"role":"assistant","content":"hello","toolCalls":[]}])}')
    expect(text).not.toContain("Symbol.for")
  })

  it("a failing property over generated contexts shows the messages in its counterexample", () => {
    const messages = [Message.user("the question")]
    const property = fc.property(
      Arbitraries.hookContext("BeforeStep").map((ctx) => ({ ...ctx, state: AgentState.make({ id: "s", messages }) })),
      () => false,
    )
    const report = fc.check(property, { numRuns: 1 })
    expect(report.failed).toBe(true)
    expect(fc.stringify(report.counterexample)).toContain('messages":AppendLog.fromIterable([{"role":"user","content":"the question"}])')
  })

  it("console.log prints an AppendLog as its length and items", () => {
    expect(inspect(AppendLog.fromIterable([1, 2]))).toBe("AppendLog(2) [ 1, 2 ]")
  })
})
