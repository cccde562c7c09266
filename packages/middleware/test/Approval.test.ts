import { AgentBuilder, Decision, Tool, UseDriver, UseHook, UseTools, type AgentEvent } from "@hookline/agent"
import { Codecs, HookContext, HookTriggers, type AgentState } from "@hookline/core"
import { ScriptedDriver } from "@hookline/testing"
import { Effect } from "effect"
import * as t from "io-ts"
import { describe, expect, it } from "vitest"
import { Approval, UseApproval } from "../src/index.js"

interface Ran {
  readonly refunds: Array<number>
  readonly lookups: Array<string>
}

// One step with a refund (needs approval above 100) and a lookup, then a final answer
// that quotes what the model read back.
const agentOf = (ran: Ran, extra: ReadonlyArray<AgentBuilder.Capability> = []) =>
  AgentBuilder.make(
    // Answers from the conversation, so a new agent (a new process) goes on the same way.
    UseDriver(ScriptedDriver.make([
      ScriptedDriver.respond((request) =>
        request.messages.toArray().some((m) => m.role === "tool")
          ? ScriptedDriver.text(`done after ${request.messages.length} messages`)
          : ScriptedDriver.toolCalls([
            { id: "refund-1", name: "refund", arguments: { amount: 500 } },
            { id: "lookup-1", name: "lookup", arguments: { order: "A7" } },
            { id: "refund-2", name: "refund", arguments: { amount: 50 } },
          ])
      ),
    ], { repeatLast: true })),
    UseTools([
      Tool.make({ name: "refund", parameters: t.type({ amount: t.number }), execute: ({ amount }) => (ran.refunds.push(amount), `refunded ${amount}`) }),
      Tool.make({ name: "lookup", parameters: t.type({ order: t.string }), execute: ({ order }) => (ran.lookups.push(order), `order ${order}`) }),
    ]),
    UseApproval({ when: (call) => call.name === "refund" && (call.arguments as { amount: number }).amount > 100, reason: "refund above 100" }),
    ...extra,
  )

const toolMessages = (state: AgentState) =>
  state.context.messages.toArray().flatMap((m) => (m.role === "tool" ? [`${m.toolCallId}: ${m.content}`] : []))

const roundTrip = (state: AgentState): AgentState => Codecs.decodeUnsafe(Codecs.AgentState, JSON.parse(Codecs.toJson(Codecs.AgentState, state)))

describe("Approval", () => {
  it("suspends the run on a call that needs approval; the step's other calls run", async () => {
    const ran: Ran = { refunds: [], lookups: [] }
    const state = await agentOf(ran).run("refund order A7")
    expect(state.execution.status).toBe("suspended")
    expect(state.execution.pendingCalls).toEqual([
      { toolCall: { id: "refund-1", name: "refund", arguments: { amount: 500 } }, reason: "refund above 100", payload: { amount: 500 } },
    ])
    expect(ran).toEqual({ refunds: [50], lookups: ["A7"] })
    expect(toolMessages(state)).toEqual(["lookup-1: order A7", "refund-2: refunded 50"])
    expect(state.execution.steps.length).toBe(0)
  })

  it("emits Suspended before RunEnded in a stream", async () => {
    const events: Array<AgentEvent> = []
    for await (const event of agentOf({ refunds: [], lookups: [] }).stream("refund")) events.push(event)
    const tags = events.map((e) => e._tag)
    expect(tags.slice(-2)).toEqual(["Suspended", "RunEnded"])
    const suspended = events.at(-2) as Extract<AgentEvent, { _tag: "Suspended" }>
    expect(suspended.pendingCalls.map((p) => p.toolCall.id)).toEqual(["refund-1"])
  })

  it("goes on from an encoded state with each decision kind", async () => {
    const cases = [
      { decision: Decision.approve("refund-1"), refunds: [50, 500], result: "refund-1: refunded 500" },
      { decision: Decision.edit("refund-1", { amount: 90 }), refunds: [50, 90], result: "refund-1: refunded 90" },
      { decision: Decision.reject("refund-1", "too much, offer 100"), refunds: [50], result: "too much, offer 100" },
    ]
    for (const c of cases) {
      const ran: Ran = { refunds: [], lookups: [] }
      const suspended = roundTrip(await agentOf(ran).run("refund order A7"))
      // A new agent, as a new process would make.
      const final = await agentOf(ran).resume(suspended, [c.decision])
      expect(final.execution.status).toBe("completed")
      expect(final.execution.pendingCalls).toBeUndefined()
      expect(ran.refunds).toEqual(c.refunds)
      expect(ran.lookups).toEqual(["A7"])
      expect(toolMessages(final).find((m) => m.startsWith("refund-1"))).toContain(c.result)
      expect(final.context.messages.last()?.content).toBe("done after 5 messages")
      expect(final.execution.steps.length).toBe(2)
    }
  })

  it("stays suspended on the calls still waiting after partial decisions", async () => {
    const ran: Ran = { refunds: [], lookups: [] }
    const agent = agentOf(ran, [])
    const two = AgentBuilder.make(
      UseDriver(ScriptedDriver.make([
        ScriptedDriver.toolCalls([{ id: "a", name: "refund", arguments: { amount: 200 } }, { id: "b", name: "refund", arguments: { amount: 300 } }]),
        ScriptedDriver.text("ok"),
      ])),
      UseTools([Tool.make({ name: "refund", parameters: t.type({ amount: t.number }), execute: ({ amount }) => (ran.refunds.push(amount), "ok") })]),
      UseApproval({ tools: ["refund"] }),
    )
    const suspended = await two.run("two refunds")
    expect(suspended.execution.pendingCalls?.map((p) => p.toolCall.id)).toEqual(["a", "b"])
    const half = await two.resume(suspended, [Decision.approve("b")])
    expect(half.execution.status).toBe("suspended")
    expect(half.execution.pendingCalls?.map((p) => p.toolCall.id)).toEqual(["a"])
    expect(ran.refunds).toEqual([300])
    // The same decision again is a repeat, a no-op (issue 26); a different one is refused.
    expect(await two.resume(half, { decisions: [Decision.approve("b")] })).toBe(half)
    const again = await two.resume(half, { decisions: [Decision.reject("b", "no")] }).catch((e: unknown) => e)
    expect(again).toMatchObject({ _tag: "DecisionInvalid", reason: "decided", toolCallId: "b" })
    const final = await two.resume(half, [Decision.reject("a", "no")])
    expect(final.execution.status).toBe("completed")
    expect(ran.refunds).toEqual([300])
    expect(agent).toBeDefined()
  })

  it("records every call of a suspended-then-resumed step in its step record, in call order", async () => {
    const ran: Ran = { refunds: [], lookups: [] }
    const suspended = roundTrip(await agentOf(ran).run("refund order A7"))
    // The open step, as far as it went, travels with the encoded state.
    const open = suspended.execution.suspendedStep
    expect(open?.response?.toolCalls.map((c) => c.id)).toEqual(["refund-1", "lookup-1", "refund-2"])
    expect(open?.toolExecutions.map((e) => e.toolCall.id)).toEqual(["lookup-1", "refund-2"])
    const final = await agentOf(ran).resume(suspended, [Decision.approve("refund-1")])
    expect(final.execution.suspendedStep).toBeUndefined()
    const [step] = final.execution.steps.toArray()
    expect(step?.index).toBe(0)
    expect(step?.startedAt).toBe(open?.startedAt)
    expect(step?.response).toEqual(open?.response)
    expect(step?.toolExecutions.map((e) => [e.toolCall.id, e.status, e.status === "success" ? e.output : undefined])).toEqual([
      ["refund-1", "success", "refunded 500"],
      ["lookup-1", "success", "order A7"],
      ["refund-2", "success", "refunded 50"],
    ])
  })

  it("keeps the calls run before each partial decision in the step record", async () => {
    const ran: Ran = { refunds: [], lookups: [] }
    const agent = AgentBuilder.make(
      UseDriver(ScriptedDriver.make([
        ScriptedDriver.toolCalls([
          { id: "a", name: "refund", arguments: { amount: 200 } },
          { id: "b", name: "refund", arguments: { amount: 300 } },
          { id: "c", name: "refund", arguments: { amount: 5 } },
        ]),
        ScriptedDriver.text("ok"),
      ])),
      UseTools([Tool.make({ name: "refund", parameters: t.type({ amount: t.number }), execute: ({ amount }) => (ran.refunds.push(amount), "ok") })]),
      UseApproval({ when: (call) => (call.arguments as { amount: number }).amount > 100 }),
    )
    const suspended = await agent.run("three refunds")
    expect(suspended.execution.suspendedStep?.toolExecutions.map((e) => e.toolCall.id)).toEqual(["c"])
    const half = roundTrip(await agent.resume(suspended, [Decision.approve("b")]))
    expect(half.execution.status).toBe("suspended")
    expect(half.execution.steps.length).toBe(0)
    expect(half.execution.suspendedStep?.toolExecutions.map((e) => e.toolCall.id)).toEqual(["b", "c"])
    const final = await agent.resume(half, [Decision.reject("a", "no")])
    expect(final.execution.status).toBe("completed")
    expect(final.execution.steps.at(0)?.toolExecutions.map((e) => [e.toolCall.id, e.status])).toEqual([["a", "blocked"], ["b", "success"], ["c", "success"]])
    expect(ran.refunds).toEqual([5, 300])
  })

  it("refuses a decision for an unknown call and two decisions for one call", async () => {
    const agent = agentOf({ refunds: [], lookups: [] })
    const suspended = await agent.run("refund")
    await expect(agent.resume(suspended, [Decision.approve("nope")])).rejects.toMatchObject({ _tag: "DecisionInvalid", reason: "unknown" })
    const exit = await Effect.runPromiseExit(agent.resumeEffect(suspended, [Decision.approve("refund-1"), Decision.reject("refund-1", "x")]))
    expect(exit).toMatchObject({ _tag: "Failure" })
    await expect(agent.resume(suspended, [Decision.approve("refund-1"), Decision.approve("refund-1")])).rejects.toMatchObject({
      _tag: "DecisionInvalid",
      reason: "repeated",
    })
    // With no decision the suspended run is given back as it is.
    expect(await agent.resume(suspended)).toBe(suspended)
  })

  it("keeps a call a permission hook blocked blocked (fail-closed), not suspended", async () => {
    const ran: Ran = { refunds: [], lookups: [] }
    const deny = (ctx: HookContext) => ctx.toolCall?.id === "refund-1" ? HookContext.withToolExecutionBlocked(ctx, "refunds are off") : ctx
    const state = await agentOf(ran, [UseHook(deny, { triggers: HookTriggers.beforeToolUse, priority: 100, name: "policy:deny" })]).run("refund")
    expect(state.execution.status).toBe("completed")
    expect(state.execution.pendingCalls).toBeUndefined()
    expect(toolMessages(state).find((m) => m.startsWith("refund-1"))).toContain("refunds are off")
    expect(ran.refunds).toEqual([50])
  })

  it("refuses options that name no call", () => {
    expect(() => Approval.make({})).toThrow("expected tools or when")
  })
})
