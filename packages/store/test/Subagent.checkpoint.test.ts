import { AgentBuilder, Decision, Tool, UseDriver, UseHook, UseTools } from "@hookline/agent"
import { HookContext, Usage } from "@hookline/core"
import { ScriptedDriver } from "@hookline/testing"
import * as t from "io-ts"
import { describe, expect, it } from "vitest"
import { MemoryStore, RunStore } from "../src/index.js"
import { UseCheckpoints } from "../src/Checkpointing.js"
import { dyingAfter } from "./support/dyingStore.js"

// A subagent's approval suspends its parent; the parent is checkpointed, and a new
// agent (another process, in effect) resumes it by id with the child's decision.
describe("UseCheckpoints with a subagent that waits for approval", () => {
  it("stores the suspended parent with the child's state in it; resumed by id, the child finishes and so does the parent", async () => {
    const store = MemoryStore.make()
    const refunds: Array<number> = []
    const answer = (request: { readonly messages: { last: () => { readonly role: string } | undefined } }) =>
      request.messages.last()?.role === "tool"
        ? ScriptedDriver.text("refunded 9")
        : ScriptedDriver.toolCalls([{ id: "child-1", name: "refund", arguments: { amount: 9 } }])
    const delegate = (request: { readonly messages: { last: () => { readonly role: string } | undefined } }) =>
      request.messages.last()?.role === "tool"
        ? ScriptedDriver.text("done")
        : ScriptedDriver.toolCalls([{ id: "parent-1", name: "refunds", arguments: { prompt: "refund 9" } }])
    const make = () => {
      const refund = Tool.make({ name: "refund", parameters: t.type({ amount: t.number }), execute: ({ amount }) => (refunds.push(amount), "ok") })
      const child = AgentBuilder.make(
        // Answers from the history, as a model does: a process that resumes has a fresh driver.
        UseDriver(ScriptedDriver.make([ScriptedDriver.respond(answer), ScriptedDriver.respond(answer)])),
        UseTools([refund]),
        UseHook((ctx) => ctx.toolCall?.name === "refund" ? HookContext.suspend(ctx, "approve") : ctx, { triggers: "BeforeToolUse", name: "test:approval" }),
      )
      return AgentBuilder.make(
        UseDriver(ScriptedDriver.make([ScriptedDriver.respond(delegate), ScriptedDriver.respond(delegate)])),
        UseTools([Tool.fromAgent(child, { name: "refunds" })]),
        UseCheckpoints(store),
      )
    }
    const suspended = await make().run("refund me")
    expect(suspended.execution.status).toBe("suspended")
    expect((await RunStore.load(store, suspended.id))?.state).toEqual(suspended)
    // A new parent and a new child, as in another process.
    const fresh = make()
    const final = await fresh.resume(suspended.id, [Decision.approve("parent-1/child-1")])
    expect(final.execution.status).toBe("completed")
    expect(refunds).toEqual([9])
    expect(final.context.messages.toArray().find((m) => m.role === "tool")?.content).toBe("refunded 9")
    expect(final.context.messages.last()?.content).toBe("done")
    expect((await RunStore.load(store, suspended.id))?.state.execution.status).toBe("completed")
  })
})

describe("UseCheckpoints with a subagent whose result the journal replays", () => {
  it("counts what the child spent once, whether its result was replayed from the journal or not", async () => {
    const researched: Array<string> = []
    const make = (store: RunStore.RunStore) => {
      const child = AgentBuilder.make(
        UseDriver(ScriptedDriver.make([ScriptedDriver.text("the answer is 42")], { usage: { inputTokens: 400, outputTokens: 100 } })),
        UseHook((ctx) => (researched.push(ctx.state.id), ctx), { triggers: "BeforeExecution", name: "test:count" }),
      )
      const delegate = (request: { readonly messages: { last: () => { readonly role: string } | undefined } }) =>
        request.messages.last()?.role === "tool"
          ? ScriptedDriver.text("done")
          : ScriptedDriver.toolCalls([{ id: "parent-1", name: "research", arguments: { prompt: "find it" } }])
      return AgentBuilder.make(
        UseDriver(ScriptedDriver.make([ScriptedDriver.respond(delegate)], { repeatLast: true, usage: { inputTokens: 10, outputTokens: 5 } })),
        UseTools([Tool.fromAgent(child, { name: "research" })]),
        UseCheckpoints(store),
      )
    }
    const reference = await make(MemoryStore.make()).run("research")
    expect(reference.execution.usage).toEqual(Usage.make(420, 110))
    let replayed = 0
    for (let budget = 0; ; budget++) {
      const store = MemoryStore.make()
      researched.length = 0
      const cut = await make(dyingAfter(store, budget)).run("research")
      if (cut.execution.status === "completed") break
      if ((await RunStore.load(store, cut.id)) === undefined) continue
      const before = researched.length
      const final = await make(store).resume(cut.id)
      if (researched.length === before && before > 0) replayed++
      expect(final.execution.status).toBe("completed")
      expect(final.execution.usage, `cut after ${budget} store operations`).toEqual(reference.execution.usage)
    }
    // Some cuts fell after the child's result was journaled: the resume replayed it.
    expect(replayed).toBeGreaterThan(0)
  })
})

// A child's side effect after a cut at every store operation: the parent's call runs its
// child again unless its result was journaled, and the child's run id is derived from the
// parent's run id and call id, so its tool sees the same idempotency key every time.
describe("UseCheckpoints with a subagent whose tool has a side effect, cut at every store operation", () => {
  type Charge = { readonly runId: string; readonly key: string }
  const lastIsTool = (request: { readonly messages: { last: () => { readonly role: string } | undefined } }) =>
    request.messages.last()?.role === "tool"
  const make = (store: RunStore.RunStore, charges: Array<Charge>, approve: boolean) => {
    // Per-conversation ids (`call_1`) in parent and child, as a fresh driver numbers them.
    const charge = Tool.make({ name: "charge", parameters: t.type({}), execute: (_, c) => (charges.push({ runId: c.state.id, key: c.idempotencyKey }), "charged") })
    const child = AgentBuilder.make(
      UseDriver(ScriptedDriver.make([ScriptedDriver.respond((r) => lastIsTool(r) ? ScriptedDriver.text("charged 9") : ScriptedDriver.toolCalls([{ name: "charge", arguments: {} }]))], { repeatLast: true })),
      UseTools([charge]),
      ...(approve ? [UseHook((ctx) => ctx.toolCall?.name === "charge" ? HookContext.suspend(ctx, "approve") : ctx, { triggers: "BeforeToolUse", name: "test:approval" })] : []),
    )
    return AgentBuilder.make(
      UseDriver(ScriptedDriver.make([ScriptedDriver.respond((r) => lastIsTool(r) ? ScriptedDriver.text("done") : ScriptedDriver.toolCalls([{ name: "billing", arguments: { prompt: "charge 9" } }]))], { repeatLast: true })),
      UseTools([Tool.fromAgent(child, { name: "billing" })]),
      UseCheckpoints(store),
    )
  }

  it("runs the child's side effect with one idempotency key, whether the cut made the call run again or not", async () => {
    let ranTwice = 0
    for (let budget = 0; ; budget++) {
      const store = MemoryStore.make()
      const charges: Array<Charge> = []
      const cut = await make(dyingAfter(store, budget), charges, false).run("charge me")
      if (cut.execution.status === "completed") break
      if ((await RunStore.load(store, cut.id)) === undefined) continue
      const final = await make(store, charges, false).resume(cut.id)
      expect(final.execution.status).toBe("completed")
      expect(charges.length, `cut after ${budget} store operations`).toBeGreaterThan(0)
      for (const c of charges) expect(c, `cut after ${budget} store operations`).toEqual({ runId: `${cut.id}/call_1`, key: `${cut.id}/call_1:call_1` })
      if (charges.length > 1) ranTwice++
    }
    // Some cuts fell between the child's side effect and the parent's journal write.
    expect(ranTwice).toBeGreaterThan(0)
  })

  it("resumes an approved child under the same run id after a cut of the resume at every store operation", async () => {
    for (let budget = 0; ; budget++) {
      const store = MemoryStore.make()
      const charges: Array<Charge> = []
      const suspended = await make(store, charges, true).run("charge me")
      expect(suspended.execution.status).toBe("suspended")
      const child = `${suspended.id}/call_1`
      expect(suspended.execution.pendingCalls?.[0]?.payload).toMatchObject({ runId: child, pendingCalls: [{ toolCall: { id: "call_1/call_1" } }] })
      // A store that dies while loading the run rejects the resume: nothing ran.
      const cut = await make(dyingAfter(store, budget), charges, true).resume(suspended.id, [Decision.approve("call_1/call_1")]).catch(() => undefined)
      if (cut?.execution.status === "completed") break
      // The approval that resumes a child is not kept: after the cut a person approves again.
      let final = await make(store, charges, true).resume(suspended.id)
      if (final.execution.status === "suspended") final = await make(store, charges, true).resume(suspended.id, [Decision.approve("call_1/call_1")])
      expect(final.execution.status, `cut after ${budget} store operations`).toBe("completed")
      for (const c of charges) expect(c, `cut after ${budget} store operations`).toEqual({ runId: child, key: `${child}:call_1` })
    }
  })
})
