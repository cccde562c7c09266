// The step a resume finishes: when it ends in an error (a hook fails, the run is
// aborted), its record is closed as any failed step's and the open-step record
// (`execution.suspendedStep`) is gone; the step's model call counts once.
import { AgentState, HookContext, Usage, type Hook } from "@hookline/core"
import { ScriptedDriver } from "@hookline/testing"
import * as t from "io-ts"
import { describe, expect, it } from "vitest"
import { AgentBuilder, Decision, Tool, UseDriver, UseHook, UseLoopOptions, UseTools } from "../src/index.js"
import { withSafety } from "./support.js"

const usage = { inputTokens: 10, outputTokens: 4 }

// A step with `pay` (waits for approval) and `look` (runs at once), then a final answer.
const agentOf = (options: {
  readonly pay?: (args: unknown, context: Tool.ToolContext) => unknown
  readonly hooks?: ReadonlyArray<AgentBuilder.Capability>
} = {}) =>
  AgentBuilder.make(
    UseDriver(ScriptedDriver.make([
      ScriptedDriver.toolCalls([{ id: "c1", name: "pay", arguments: {} }, { id: "c2", name: "look", arguments: {} }]),
      ScriptedDriver.text("paid"),
    ], { usage })),
    UseTools([
      Tool.make({ name: "pay", parameters: t.type({}), execute: options.pay ?? (() => "paid") }),
      Tool.make({ name: "look", parameters: t.type({}), execute: () => "seen" }),
    ]),
    UseHook((ctx) => ctx.toolCall?.name === "pay" ? HookContext.suspend(ctx, "approve") : ctx, { triggers: "BeforeToolUse", name: "test:approval" }),
    ...(options.hooks ?? []),
  )

/** The failed step's record, and what the state says about the open step and the usage. */
const closed = (final: AgentState) => {
  const steps = final.execution.steps.toArray()
  const sum = steps.reduce((u, s) => Usage.add(u, s.usage), Usage.empty)
  return {
    status: final.execution.status,
    suspendedStep: final.execution.suspendedStep,
    pendingCalls: final.execution.pendingCalls,
    steps: steps.map((s) => ({ index: s.index, finishReason: s.finishReason, calls: s.toolExecutions.map((e) => e.toolCall.id), usage: s.usage })),
    usageIsTheSteps: Usage.make(final.execution.usage.inputTokens, final.execution.usage.outputTokens).inputTokens === sum.inputTokens
      && final.execution.usage.outputTokens === sum.outputTokens,
  }
}

const failedStep = (calls: ReadonlyArray<string>) => ({
  suspendedStep: undefined,
  pendingCalls: undefined,
  steps: [{ index: 0, finishReason: "error", calls, usage: Usage.make(10, 4) }],
  usageIsTheSteps: true,
})

// A hook that throws on the contexts `on` picks, once `arm` is called (the run that
// suspends goes through it unharmed; the resume fails).
const failsOnceArmed = (on: (ctx: HookContext) => boolean) => {
  let armed = false
  const hook: Hook = (ctx) => {
    if (armed && on(ctx)) throw new Error("boom")
    return ctx
  }
  return { hook, arm: () => void (armed = true) }
}

describe("a resumed step that ends in an error", () => {
  it("closes the open step's record when an AfterToolUse hook fails on the decided call", async () => {
    const boom = failsOnceArmed((ctx) => ctx.toolCall?.id === "c1")
    const agent = agentOf({ hooks: [UseHook(boom.hook, { triggers: "AfterToolUse", name: "test:boom" })] })
    const suspended = await agent.run("pay")
    expect(suspended.execution.suspendedStep).toBeDefined()
    boom.arm()
    const final = await agent.resume(suspended, [Decision.approve("c1")])
    expect(closed(final)).toEqual({ status: "failed", ...failedStep(["c1", "c2"]) })
    // The call ran: its result is in the history once.
    expect(final.context.messages.toArray().filter((m) => m.role === "tool" && m.toolCallId === "c1")).toHaveLength(1)
  })

  it("records a failed step from the resume on in a state suspended before the open step was kept", async () => {
    const boom = failsOnceArmed((ctx) => ctx.toolCall?.id === "c1")
    const agent = agentOf({ hooks: [UseHook(boom.hook, { triggers: "AfterToolUse", name: "test:boom" })] })
    const suspended = AgentState.withSuspendedStep(await agent.run("pay"), undefined)
    boom.arm()
    const final = await agent.resume(suspended, [Decision.approve("c1")])
    expect(final.execution.status).toBe("failed")
    expect(final.execution.steps.toArray().map((s) => [s.index, s.finishReason, s.toolExecutions.map((e) => e.toolCall.id)])).toEqual([[0, "error", ["c1"]]])
  })

  it("closes it when the run is aborted while the decided tool runs", async () => {
    const controller = new AbortController()
    let resuming = false
    const agent = agentOf({
      pay: (_args, context) =>
        resuming
          ? new Promise<string>((resolve) => {
            context.signal.addEventListener("abort", () => resolve("too late"))
            controller.abort()
          })
          : "paid",
    })
    const suspended = await agent.run("pay")
    resuming = true
    const final = await agent.resume(suspended, [Decision.approve("c1")], { signal: controller.signal })
    expect(closed(final)).toEqual({ status: "stopped", ...failedStep(["c2"]) })
    // The call cut short is answered with a cancellation marker, as in any step an abort ends.
    expect(final.context.messages.last()).toMatchObject({ role: "tool", toolCallId: "c1", content: "Cancelled: the run was aborted before it ran" })
    expect(final.execution.stopReason).toBe("UserRequested")
  })

  it("closes it when a BeforeExecution hook fails on resume, and answers the waiting call", async () => {
    const boom = failsOnceArmed(() => true)
    const agent = agentOf({ hooks: [UseHook(boom.hook, { triggers: "BeforeExecution", name: "test:boom" })] })
    const suspended = await agent.run("pay")
    boom.arm()
    const final = await agent.resume(suspended, [Decision.approve("c1")])
    expect(closed(final)).toEqual({ status: "failed", ...failedStep(["c2"]) })
    expect(final.context.messages.toArray().filter((m) => m.role === "tool").map((m) => m.role === "tool" && m.toolCallId)).toEqual(["c2", "c1"])
  })

  it("closes it when a rejected call's AfterToolUse hook fails", async () => {
    const boom = failsOnceArmed((ctx) => ctx.toolCall?.id === "c1")
    const agent = agentOf({ hooks: [UseHook(boom.hook, { triggers: "AfterToolUse", name: "test:boom" })] })
    const suspended = await agent.run("pay")
    boom.arm()
    const final = await agent.resume(suspended, [Decision.reject("c1", "no")])
    expect(closed(final)).toEqual({ status: "failed", ...failedStep(["c2"]) })
  })

  it("closes it and goes on when an OnError hook handles the failure", async () => {
    const boom = failsOnceArmed((ctx) => ctx.toolCall?.id === "c1")
    const agent = agentOf({
      hooks: [
        UseHook(boom.hook, { triggers: "AfterToolUse", name: "test:boom" }),
        UseHook(HookContext.markErrorsHandled, { triggers: "OnError", name: "test:handled" }),
      ],
    })
    const suspended = await agent.run("pay")
    boom.arm()
    const final = await agent.resume(suspended, [Decision.approve("c1")])
    expect(closed(final)).toEqual({
      status: "completed",
      suspendedStep: undefined,
      pendingCalls: undefined,
      steps: [
        { index: 0, finishReason: "error", calls: ["c1", "c2"], usage: Usage.make(10, 4) },
        { index: 1, finishReason: "stop", calls: [], usage: Usage.make(10, 4) },
      ],
      usageIsTheSteps: true,
    })
  })

  it("keeps the open step when the resume ends suspended again, and ends it once when decided", async () => {
    const agent = AgentBuilder.make(
      UseDriver(ScriptedDriver.make([
        ScriptedDriver.toolCalls([{ id: "c1", name: "pay", arguments: {} }, { id: "c2", name: "pay", arguments: {} }]),
        ScriptedDriver.text("paid"),
      ], { usage })),
      UseTools([Tool.make({ name: "pay", parameters: t.type({}), execute: () => "paid" })]),
      UseHook((ctx) => ctx.toolCall !== undefined ? HookContext.suspend(ctx, "approve") : ctx, { triggers: "BeforeToolUse", name: "test:approval" }),
    )
    const half = await agent.resume(await agent.run("pay"), [Decision.approve("c1")])
    expect(half.execution.status).toBe("suspended")
    expect(half.execution.suspendedStep?.toolExecutions.map((e) => e.toolCall.id)).toEqual(["c1"])
    const final = await agent.resume(half, [Decision.approve("c2")])
    expect(final.execution.status).toBe("completed")
    expect(final.execution.suspendedStep).toBeUndefined()
    expect(final.execution.steps.toArray().map((s) => s.toolExecutions.map((e) => e.toolCall.id))).toEqual([["c1", "c2"], []])
  })
})

// Each tool resolves only once all `n` have started; an abort (the test's safety net, so
// a regression fails rather than hangs) resolves it "alone".
const latch = (n: number) => {
  let started = 0
  let open!: () => void
  const all = new Promise<void>((resolve) => (open = resolve))
  return (name: string, signal: AbortSignal): Promise<string> => {
    if (++started === n) open()
    return new Promise<string>((resolve) => {
      void all.then(() => resolve(`${name} with the others`))
      signal.addEventListener("abort", () => resolve(`${name} alone`))
    })
  }
}


// A model that asks for three payments at once, each suspended for approval, and the
// trail of BeforeToolUse and AfterToolUse hooks the resume goes through.
const threePayments = (
  execute: (context: Tool.ToolContext) => unknown,
  ...more: ReadonlyArray<AgentBuilder.Capability>
) => {
  const seen: Array<string> = []
  const agent = AgentBuilder.make(
    UseDriver(ScriptedDriver.make([
      ScriptedDriver.toolCalls([
        { id: "c1", name: "pay", arguments: {} },
        { id: "c2", name: "pay", arguments: {} },
        { id: "c3", name: "pay", arguments: {} },
      ]),
      ScriptedDriver.text("paid"),
    ])),
    UseTools([Tool.make({ name: "pay", parameters: t.type({}), execute: (_args, context) => execute(context) })]),
    ...more,
    UseHook((ctx) => ctx.toolCall !== undefined ? HookContext.suspend(ctx, "approve") : ctx, { triggers: "BeforeToolUse", name: "test:approval", priority: 10 }),
    UseHook((ctx) => (seen.push(`${ctx.trigger} ${ctx.toolCall?.id}`), ctx), { triggers: ["BeforeToolUse", "AfterToolUse"], name: "test:trail" }),
  )
  return { agent, seen }
}

describe("a resumed step's decided calls", () => {
  it("run together under concurrent tools, committed in the model's order", async () => {
    const meet = latch(2)
    const { agent, seen } = threePayments((context) => meet(context.toolCall.id, context.signal), UseLoopOptions({ toolConcurrency: "concurrent" }))
    const suspended = await agent.run("pay")
    seen.length = 0
    // Decided in another order than the model's.
    const final = await withSafety((signal) =>
      agent.resume(suspended, [Decision.approve("c3"), Decision.reject("c2", "no"), Decision.approve("c1")], { signal })
    )
    expect(final.execution.status).toBe("completed")
    const results = final.context.messages.toArray().flatMap((m) => (m.role === "tool" ? [`${m.toolCallId}: ${m.content}`] : []))
    expect(results).toEqual(["c1: c1 with the others", "c2: Blocked: no", "c3: c3 with the others"])
    expect(final.execution.steps.toArray()[0]?.toolExecutions.map((e) => e.toolCall.id)).toEqual(["c1", "c2", "c3"])
    // As in a normal step: every BeforeToolUse, then the tools, then AfterToolUse in the model's order.
    expect(seen).toEqual(["BeforeToolUse c1", "BeforeToolUse c3", "AfterToolUse c1", "AfterToolUse c2", "AfterToolUse c3"])
  }, 30_000)
})

describe("a resumed step's decided calls, sequential", () => {
  it("run one after the other in the model's order, whatever the order of the decisions", async () => {
    const ran: Array<string> = []
    const { agent, seen } = threePayments((context) => (ran.push(context.toolCall.id), "paid"))
    const suspended = await agent.run("pay")
    seen.length = 0
    const final = await agent.resume(suspended, [Decision.approve("c3"), Decision.reject("c2", "no"), Decision.edit("c1", {})])
    expect(final.execution.status).toBe("completed")
    expect(ran).toEqual(["c1", "c3"])
    expect(seen).toEqual(["BeforeToolUse c1", "AfterToolUse c1", "AfterToolUse c2", "BeforeToolUse c3", "AfterToolUse c3"])
  })
})
