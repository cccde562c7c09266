// Issue 22, class F: what the journal gives back on a resume (a tool result, a model
// answer) is marked replayed, so hooks and observers tell it from a call that ran: an
// audit log that skips replayed results counts each real execution once.
import { AgentBuilder, Tool, UseDriver, UseGuards, UseHook, UseTools } from "@hookline/agent"
import { Hook, HookTriggers, InferenceResponse, ToolExecution } from "@hookline/core"
import { ScriptedDriver } from "@hookline/testing"
import * as t from "io-ts"
import { describe, expect, it } from "vitest"
import { MemoryStore, RunStore } from "../src/index.js"
import { UseCheckpoints } from "../src/Checkpointing.js"
import { dyingAfter } from "./support/dyingStore.js"

// Two calls of `charge` per step for three steps, then an answer; call ids are random,
// as a real model's are.
const model = () =>
  ScriptedDriver.make([
    ScriptedDriver.respond((request) => {
      const step = request.messages.toArray().filter((m) => m.role === "assistant").length
      if (step >= 3) return ScriptedDriver.text("done")
      return ScriptedDriver.toolCalls([0, 1].map((j) => ({ id: crypto.randomUUID(), name: "charge", arguments: { amount: step * 10 + j } })))
    }),
  ], { repeatLast: true })

interface Audit {
  /** Tool calls the audit log counted as executed (not replayed). */
  readonly executed: Array<string>
  /** Tool calls AfterToolUse saw replayed. */
  readonly replayed: Array<string>
  /** Model answers AfterInference saw from the model, and replayed. */
  answers: number
  replayedAnswers: number
}

// The audit log of docs/durability.md: a replayed result ran before the crash, and was counted then.
const auditHook = (audit: Audit) =>
  Hook.observe((ctx) => {
    if (ctx.trigger === "AfterToolUse" && ctx.toolExecution !== undefined) {
      ;(ToolExecution.isReplayed(ctx.toolExecution) ? audit.replayed : audit.executed).push(ctx.toolExecution.toolCall.id)
    }
    if (ctx.trigger === "AfterInference" && ctx.response !== undefined) {
      if (InferenceResponse.isReplayed(ctx.response)) audit.replayedAnswers++
      else audit.answers++
    }
  })

const agentOf = (store: RunStore.RunStore, charged: Array<string>, audit: Audit, driver: ScriptedDriver) =>
  AgentBuilder.make(
    UseDriver(driver),
    UseTools([Tool.make({ name: "charge", parameters: t.type({ amount: t.number }), execute: ({ amount }, c) => (charged.push(c.toolCall.id), { charged: amount }) })]),
    UseGuards({ maxSteps: 10 }),
    UseCheckpoints(store),
    UseHook(auditHook(audit), { triggers: HookTriggers.of("AfterToolUse", "AfterInference"), name: "test:audit" }),
  )

describe("UseCheckpoints: replayed results", () => {
  it("marks what the journal gives back: an audit log that skips replayed results counts each tool run and model call once", async () => {
    let replayedTools = 0
    let replayedAnswers = 0
    for (let budget = 0; ; budget++) {
      const store = MemoryStore.make()
      const charged: Array<string> = []
      const audit: Audit = { executed: [], replayed: [], answers: 0, replayedAnswers: 0 }
      const first = model()
      const cut = await agentOf(dyingAfter(store, budget), charged, audit, first).run("charge me")
      if (cut.execution.status === "completed") break
      if ((await RunStore.load(store, cut.id)) === undefined) continue
      const second = model()
      const final = await agentOf(store, charged, audit, second).resume(cut.id)
      expect(final.execution.status).toBe("completed")
      // Each execution counted once, where it ran; each model call once, where it was made.
      expect([...audit.executed].sort()).toEqual([...charged].sort())
      expect(audit.answers).toBe(first.requests.length + second.requests.length)
      // The step records carry the mark, as AfterToolUse saw it, and it survives the store.
      const steps = final.execution.steps.toArray()
      const marked = steps.flatMap((s) => s.toolExecutions.filter(ToolExecution.isReplayed).map((e) => e.toolCall.id))
      expect(marked.sort()).toEqual([...audit.replayed].sort())
      expect(steps.filter((s) => s.response !== undefined && InferenceResponse.isReplayed(s.response)).length).toBe(audit.replayedAnswers)
      expect((await RunStore.load(store, cut.id))?.state).toEqual(final)
      replayedTools += audit.replayed.length
      replayedAnswers += audit.replayedAnswers
    }
    // Some cuts fell after a journal write: their resumes replayed it.
    expect(replayedTools).toBeGreaterThan(0)
    expect(replayedAnswers).toBeGreaterThan(0)
  })
})
