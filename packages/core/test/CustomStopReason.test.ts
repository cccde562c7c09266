import { describe, expect, it } from "vitest"
import { AgentError, AgentState, Codecs, Guards, HookContext, HookStack, HookTrigger, HookTriggers, StopReason, StopSignal } from "@hookline/core"

const ToolBudgetSpent = StopReason.custom({ name: "ToolBudgetSpent", priority: 550, kind: "hard" })
const Handoff = StopReason.custom({ name: "Handoff", priority: 150, kind: "soft" })

const configError = (f: () => unknown): AgentError.InvalidConfiguration => {
  try {
    f()
  } catch (error) {
    if (error instanceof AgentError.HooklineError && error.error._tag === "InvalidConfiguration") return error.error
    throw error
  }
  throw new Error("expected an InvalidConfiguration")
}

describe("StopReason.custom", () => {
  it("ranks by its declared priority among the built-in reasons, and keeps its kind", () => {
    const signals = [
      StopSignal.make(StopReason.StepsLimitReached, "steps", "guard:steps_limit"),
      StopSignal.make(ToolBudgetSpent, "budget", "guard:tool_budget"),
      StopSignal.make(StopReason.Completed, "done", "loop"),
    ]
    expect(StopSignal.highest(signals)?.reason).toBe("ToolBudgetSpent")
    expect(StopSignal.highest([...signals, StopSignal.make(StopReason.UserRequested, "abort", "loop")])?.reason).toBe("UserRequested")
    expect(StopSignal.isHard(signals[1]!)).toBe(true)
    expect(StopSignal.isHard(StopSignal.make(Handoff, "handoff", "policy:handoff"))).toBe(false)
    expect(StopSignal.highest([StopSignal.make(Handoff, "", "x"), StopSignal.make(StopReason.Completed, "", "loop")])?.reason).toBe("Handoff")
  })

  it("leaves the built-in reasons as they were: same names, same order, same kinds, no extra fields", () => {
    expect(StopReason.all).toEqual(["ErrorForbade", "StopRequested", "UserRequested", "StepsLimitReached", "TokenLimitReached", "TimeLimitReached", "FinishReasonReceived", "Completed"])
    expect(StopSignal.make(StopReason.Completed, "m", "s")).toEqual({ reason: "Completed", message: "m", source: "s" })
  })

  it("refuses a bad declaration, naming the option", () => {
    expect(configError(() => StopReason.custom({ name: "", priority: 1, kind: "hard" })).path).toBe("name")
    expect(configError(() => StopReason.custom({ name: "Completed", priority: 1, kind: "hard" })).message).toMatch(/built-in reason/)
    expect(configError(() => StopReason.custom({ name: "X", priority: Number.NaN, kind: "hard" })).path).toBe("priority")
    expect(configError(() => StopReason.custom({ name: "X", priority: 1, kind: "firm" as never })).path).toBe("kind")
    expect(configError(() => StopReason.custom({ name: "X", priority: 1, kind: "hard", rank: 2 } as never)).path).toBe("rank")
  })

  it("round-trips through the codecs with its priority and kind", () => {
    const signal = StopSignal.make(ToolBudgetSpent, "10 calls", "guard:tool_budget")
    const back = Codecs.decodeUnsafe(Codecs.StopSignal, JSON.parse(Codecs.toJson(Codecs.StopSignal, signal)))
    expect(back).toEqual(signal)
    expect(StopSignal.isHard(back)).toBe(true)
    const state = AgentState.withStopReason(AgentState.withStopSignal(AgentState.make({ id: "s" }), signal), "ToolBudgetSpent")
    const decoded = Codecs.decodeUnsafe(Codecs.AgentState, JSON.parse(Codecs.toJson(Codecs.AgentState, state)))
    expect(decoded.execution.stopSignals).toEqual([signal])
    expect(decoded.execution.stopReason).toBe("ToolBudgetSpent")
  })

  it("decodes no signal that claims a built-in reason's priority or kind, nor a custom one without them", () => {
    const path = (json: string) => {
      const r = Codecs.fromJson(Codecs.StopSignal, json)
      return r._tag === "Failure" ? r.failure.path : "decoded"
    }
    expect(path(`{"reason":"ErrorForbade","message":"","source":"","kind":"soft"}`)).toBe("kind")
    expect(path(`{"reason":"Completed","message":"","source":"","priority":9000}`)).toBe("priority")
    expect(path(`{"reason":"Budget","message":"","source":"","priority":5}`)).toBe("kind")
    expect(path(`{"reason":"Budget","message":"","source":""}`)).toBe("reason")
    expect(path(`{"reason":"Budget","message":"","source":"","priority":5,"kind":"hard"}`)).toBe("decoded")
  })

  it("reads a state encoded before stopReason and execution metadata existed", () => {
    const encoded = JSON.parse(Codecs.toJson(Codecs.AgentState, AgentState.make({ id: "old" })))
    delete encoded.execution.stopReason
    delete encoded.execution.metadata
    const decoded = Codecs.decodeUnsafe(Codecs.AgentState, encoded)
    expect(decoded.execution.metadata).toEqual({})
    expect(decoded.execution.stopReason).toBeUndefined()
  })
})

describe("Guards.make", () => {
  const budget = Guards.make({
    name: "guard:tool_budget",
    trigger: HookTrigger.BeforeStep,
    when: (ctx) => ctx.state.metadata["calls"] === 3,
    reason: ToolBudgetSpent,
    message: (ctx) => `spent ${String(ctx.state.metadata["calls"])} calls`,
  })
  const ctxWith = (calls: number, state = AgentState.make({ id: "g", metadata: { calls } })) =>
    HookContext.make({ trigger: "BeforeStep", state, createdAt: 0 })

  it("adds its signal when `when` holds, with its name as the source, and keeps it once fired", () => {
    expect(HookStack.run(budget, ctxWith(2)).state.execution.stopSignals).toEqual([])
    const fired = HookStack.run(budget, ctxWith(3))
    expect(fired.state.execution.stopSignals).toEqual([StopSignal.make(ToolBudgetSpent, "spent 3 calls", "guard:tool_budget")])
    // The condition no longer holds, the signal stays, and it is not added twice.
    const later = HookStack.run(budget, ctxWith(4, AgentState.withMetadata(fired.state, { calls: 4 })))
    expect(later.state.execution.stopSignals).toHaveLength(1)
  })

  it("registers with its name, trigger and priority (200 by default)", () => {
    expect(HookStack.explain(budget)).toEqual([{
      trigger: "BeforeStep",
      hooks: [{ name: "guard:tool_budget", priority: 200, onError: "fail", effectful: false, observer: false }],
    }])
    const after = Guards.make({ name: "guard:x", trigger: HookTriggers.of("AfterStep", "AfterToolUse"), when: () => true, reason: StopReason.StopRequested, priority: -5 })
    expect(HookStack.explain(after).map((e) => [e.trigger, e.hooks[0]?.priority])).toEqual([["AfterToolUse", -5], ["AfterStep", -5]])
  })

  it("validates its options like the other guards, naming the bad one", () => {
    const base = { name: "guard:x", trigger: HookTrigger.BeforeStep, when: () => true, reason: StopReason.StopRequested } as const
    expect(configError(() => Guards.make({ ...base, name: "" })).path).toBe("name")
    expect(configError(() => Guards.make({ ...base, trigger: "Sometimes" as never })).path).toBe("trigger")
    expect(configError(() => Guards.make({ ...base, when: true as never })).path).toBe("when")
    expect(configError(() => Guards.make({ ...base, reason: "Bored" as never })).path).toBe("reason")
    expect(configError(() => Guards.make({ ...base, priority: Infinity })).path).toBe("priority")
    expect(configError(() => Guards.make({ ...base, message: 3 as never })).path).toBe("message")
    expect(configError(() => Guards.make({ ...base, trigers: [] } as never)).path).toBe("trigers")
  })
})
