// The records a run leaves, as pure functions (run/records.ts, issue 23): settling the
// calls a run leaves unanswered, and the record a failed step leaves. The fuzzer issues
// named in the code (13: an unanswered or forever-waiting call; 16: text of an attempt
// that does not count) are pinned here as pure cases where the decision is pure.
import { AgentError, AgentState, Message, Step, ToolCall, ToolExecution, Usage } from "@hookline/core"
import { describe, expect, it } from "vitest"
import * as Records from "../../src/run/records.js"
import type { OpenStep } from "../../src/run/types.js"

const a = ToolCall.make({ id: "a", name: "search", arguments: {} })
const b = ToolCall.make({ id: "b", name: "fetch", arguments: {} })
const c = ToolCall.make({ id: "c", name: "write", arguments: {} })

const asked = (calls: ReadonlyArray<ToolCall>): AgentState =>
  AgentState.appendMessage(AgentState.make({ id: "run", messages: [Message.user("go")] }), Message.assistant("", calls))

const toolIds = (state: AgentState): ReadonlyArray<string> =>
  state.context.messages.toArray().flatMap((m) => (m.role === "tool" ? [m.toolCallId] : []))

describe("Records.settle", () => {
  it("keeps the same state when the last message asked for no call", () => {
    const state = AgentState.make({ id: "run", messages: [Message.user("go"), Message.assistant("done")] })
    const settled = Records.settle(state, [], "why", false)
    expect(settled.state).toBe(state)
    expect(settled.recorded).toEqual([])
  })

  it("gives every call exactly one answer: what ran as it ran, the rest cancelled", () => {
    const ran = ToolExecution.success(b, "fetched", 1, 2)
    const settled = Records.settle(asked([a, b, c]), [ran], "the run was aborted before it ran", false)
    expect(toolIds(settled.state)).toEqual(["a", "b", "c"])
    expect(settled.recorded).toEqual([ran])
    const messages = settled.state.context.messages.toArray()
    expect(messages.filter((m) => m.role === "tool" && m.toolCallId !== "b").every((m) => m.role === "tool" && m.content.includes("the run was aborted before it ran"))).toBe(true)
  })

  it("does not answer a call twice", () => {
    const state = AgentState.appendMessage(asked([a, b]), ToolExecution.toMessage(ToolExecution.success(a, "found", 1, 2)))
    const settled = Records.settle(state, [], "why", false)
    expect(toolIds(settled.state)).toEqual(["a", "b"])
  })

  it("records a failed or blocked execution's error as it commits it", () => {
    const failure = ToolExecution.failure(a, AgentError.toolFailed("a", "search", "boom"), 1, 2)
    const settled = Records.settle(asked([a]), [failure], "why", false)
    expect(settled.state.execution.errors.map((e) => e._tag)).toEqual(["ToolFailed"])
  })

  it("adds what a recorded call spent (the host's report) to its execution and to the run's usage", () => {
    const spent = Usage.make(3, 4)
    const settled = Records.settle(asked([a]), [ToolExecution.success(a, "ok", 1, 2)], "why", false, (id) => (id === "a" ? spent : undefined))
    expect(ToolExecution.usageOf(settled.recorded[0] as ToolExecution)).toEqual(spent)
    expect(settled.state.execution.usage).toEqual(Usage.add(Usage.empty, spent))
  })

  // Issue 13: a failed or stopped step cancels a waiting call, or nobody could ever
  // decide it and the model would read an unanswered call; only a run that ends
  // suspended keeps it waiting.
  it("issue 13: cancels a waiting call unless the run ends suspended", () => {
    const waiting = AgentState.suspendCall(asked([a, b]), a, "needs approval")
    const ended = Records.settle(waiting, [], "the run ended before it ran", false)
    expect(toolIds(ended.state)).toEqual(["a", "b"])
    expect(ended.state.execution.pendingCalls).toBeUndefined()
    const kept = Records.settle(waiting, [], "the run ended before it ran", true)
    expect(toolIds(kept.state)).toEqual(["b"])
    expect(kept.state.execution.pendingCalls?.map((p) => p.toolCall.id)).toEqual(["a"])
  })
})

const open = (over: Partial<OpenStep> = {}): OpenStep => ({ startedAt: 10, response: undefined, executions: [], attempts: undefined, toolAttempts: undefined, ...over })

describe("Records.failedStep", () => {
  const base = { open: true, resumed: false, suspendedStep: false, inBeforeStep: false, aborting: false, stopSignals: false, stepsLimitReached: false }
  it.each([
    { name: "no step open: no record", facts: { ...base, open: false }, ends: "None" },
    { name: "a step that failed past BeforeStep: its record", facts: base, ends: "Record" },
    { name: "a resumed step with its open record: closed", facts: { ...base, resumed: true, suspendedStep: true }, ends: "CloseOpen" },
    { name: "a resumed step without an open record: a new record", facts: { ...base, resumed: true }, ends: "Record" },
    { name: "BeforeStep failed with nothing decided: a record (retries count)", facts: { ...base, inBeforeStep: true }, ends: "Record" },
    { name: "BeforeStep cut short by an abort: never started", facts: { ...base, inBeforeStep: true, aborting: true }, ends: "None" },
    { name: "BeforeStep failed after a stop was decided: never started", facts: { ...base, inBeforeStep: true, stopSignals: true }, ends: "None" },
    { name: "BeforeStep failed past the steps limit: never started", facts: { ...base, inBeforeStep: true, stepsLimitReached: true }, ends: "None" },
    { name: "an abort past BeforeStep still records the step", facts: { ...base, aborting: true, stopSignals: true }, ends: "Record" },
  ] as const)("$name", ({ facts, ends }) => expect(Records.failedStep(facts)).toBe(ends))
})

describe("Records.appendFailed", () => {
  it("appends the step as far as it went, ended by an error", () => {
    const ran = ToolExecution.success(a, "ok", 11, 12)
    const state = Records.appendFailed(AgentState.make({ id: "run" }), open({ executions: [ran] }), 0, 20, 20)
    const [step] = state.execution.steps.toArray() as [Step.Step]
    expect(step).toMatchObject({ index: 0, startedAt: 10, completedAt: 20, finishReason: "error" })
    expect(step.toolExecutions).toEqual([ran])
  })
})

describe("Records.closeOpenStep", () => {
  it("keeps the state when no step was left open", () => {
    const state = AgentState.make({ id: "run" })
    expect(Records.closeOpenStep(state, undefined, 0, 5)).toBe(state)
  })
  // Issue 13: a suspended step that does not end suspended is recorded with what ran,
  // and its usage, counted when it suspended, is not counted again.
  it("issue 13: closes the open step with what ran, in the model's order, its usage counted once", () => {
    const spent = Usage.make(5, 5)
    const response = { text: "", toolCalls: [a, b], usage: spent, finishReason: "tool_calls" } as never
    let state = AgentState.make({ id: "run" })
    state = AgentState.withExecution(state, { ...state.execution, usage: spent })
    state = AgentState.withSuspendedStep(state, Step.make({ index: 0, startedAt: 1, response, usage: spent, completedAt: 2 }))
    const rb = ToolExecution.success(b, "b", 3, 4)
    const ra = ToolExecution.success(a, "a", 5, 6)
    const closed = Records.closeOpenStep(state, open({ executions: [rb, ra] }), 0, 9)
    expect(closed.execution.suspendedStep).toBeUndefined()
    expect(closed.execution.usage).toEqual(spent)
    const [step] = closed.execution.steps.toArray() as [Step.Step]
    expect(step.toolExecutions.map((e) => e.toolCall.id)).toEqual(["a", "b"])
    expect(step).toMatchObject({ finishReason: "error", completedAt: 9 })
  })
})

describe("Records.inCallOrder", () => {
  it("orders executions as the model asked, unknown calls last", () => {
    const response = { toolCalls: [a, b, c] } as never
    const es = [c, a, ToolCall.make({ id: "x", name: "x", arguments: {} }), b].map((call) => ToolExecution.success(call, null, 0))
    expect(Records.inCallOrder(es, response).map((e) => e.toolCall.id)).toEqual(["a", "b", "c", "x"])
    expect(Records.inCallOrder(es, undefined)).toBe(es)
  })
})

describe("Records.rerecord", () => {
  it("replaces the record of the raised errors when untouched, else keeps the hooks' record", () => {
    const e1 = AgentError.inferenceFailed("one")
    const e2 = AgentError.inferenceFailed("two")
    const recorded = AgentState.addError(AgentState.make({ id: "run" }), e1)
    expect(Records.rerecord(recorded, [e1], [e2]).execution.errors).toEqual([e2])
    const scrubbed = AgentState.make({ id: "run" })
    expect(Records.rerecord(scrubbed, [e1], [e2])).toBe(scrubbed)
  })
})
