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

