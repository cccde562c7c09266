// `agent.resumeStream`: a run suspended in one process is approved and streamed in
// another (two agents on one store), with a live stream's event kinds and order.
import { AgentBuilder, Decision, Tool, UseDriver, UseGuards, UseHook, UseTools, type AgentEvent } from "@hookline/agent"
import { HookContext, HookTriggers } from "@hookline/core"
import { ScriptedDriver } from "@hookline/testing"
import * as t from "io-ts"
import { describe, expect, it } from "vitest"
import { MemoryStore, RunStore } from "../src/index.js"
import { UseCheckpoints } from "../src/Checkpointing.js"

// Two calls of `charge` per step for three steps, then an answer.
const model = () =>
  ScriptedDriver.make([
    ScriptedDriver.respond((request) => {
      const step = request.messages.toArray().filter((m) => m.role === "assistant").length
      if (step >= 3) return ScriptedDriver.text(`charged ${step * 2} times`)
      return ScriptedDriver.toolCalls([0, 1].map((j) => ({ id: `c${step}${j}`, name: "charge", arguments: { amount: step * 10 + j } })))
    }),
  ], { repeatLast: true })

const setup = (withApproval: boolean) => {
  const store = MemoryStore.make()
  const charged: Array<number> = []
  const charge = Tool.make({
    name: "charge",
    parameters: t.type({ amount: t.number }),
    execute: ({ amount }) => {
      charged.push(amount)
      return { charged: amount }
    },
  })
  // Suspends the call of amount 1.
  const approval = UseHook(
    (ctx) => ctx.toolCall !== undefined && (ctx.toolCall.arguments as { amount: number }).amount === 1 ? HookContext.suspend(ctx, "check") : ctx,
    { triggers: HookTriggers.beforeToolUse, name: "test:approval" },
  )
  const agent = () =>
    withApproval
      ? AgentBuilder.make(UseDriver(model()), UseTools([charge]), UseGuards({ maxSteps: 10 }), approval, UseCheckpoints(store))
      : AgentBuilder.make(UseDriver(model()), UseTools([charge]), UseGuards({ maxSteps: 10 }), UseCheckpoints(store))
  return { store, charged, agent }
}

const collect = async (events: AsyncIterable<AgentEvent>): Promise<Array<AgentEvent>> => {
  const out: Array<AgentEvent> = []
  for await (const event of events) out.push(event)
  return out
}

// The kinds, with the call a tool event names; hook events are left out (the approval
// hook runs in one scenario only).
const kinds = (events: ReadonlyArray<AgentEvent>) =>
  events.filter((e) => e._tag !== "HookExecuted").map((e) =>
    e._tag === "ToolResult" ? `ToolResult ${e.execution.toolCall.id}` : e._tag === "ToolCallRequested" ? `ToolCallRequested ${e.toolCall.id}` : e._tag
  )

describe("Agent", () => {
  describe("resumeStream", () => {
    it("streams an approved run in another process with a live stream's events from the resume point on", async () => {
      const live = kinds(await collect(setup(false).agent().stream("charge me")))
      const { store, charged, agent } = setup(true)
      const first = await collect(agent().stream("charge me"))
      const suspended = first[first.length - 1]
      expect(suspended?._tag).toBe("RunEnded")
      const runId = suspended?._tag === "RunEnded" ? suspended.state.id : ""
      expect(charged).toEqual([0])

      const resumed = await collect(agent().resumeStream(runId, { decisions: [Decision.approve("c01")] }))
      expect(resumed[0]?._tag).toBe("RunStarted")
      expect(resumed[0]?._tag === "RunStarted" && resumed[0].state.id).toBe(runId)
      // Each stream opens as a live one does (RunStarted, then TextChecked). The suspended
      // process streamed the live run up to the suspension; the resumed one streams the
      // rest: together, the live stream's kinds and order.
      const header = live.slice(0, 2)
      expect(header).toEqual(["RunStarted", "TextChecked"])
      expect(kinds(resumed).slice(0, 2)).toEqual(header)
      const before = kinds(first).slice(0, kinds(first).indexOf("Suspended"))
      expect([...before, ...kinds(resumed).slice(2)]).toEqual(live)
      expect(charged).toEqual([0, 1, 10, 11, 20, 21])
      const ended = resumed[resumed.length - 1]
      expect(ended?._tag === "RunEnded" && ended.state.execution.status).toBe("completed")
      expect((await RunStore.load(store, runId))?.state).toEqual(ended?._tag === "RunEnded" ? ended.state : undefined)
    })

    it("rejects the first next() with the error resume rejects with", async () => {
      const { agent } = setup(true)
      const suspended = await agent().run("charge me")
      const missing = await collect(agent().resumeStream("no-such-run")).then(() => undefined, (e: unknown) => e)
      const missingResume = await agent().resume("no-such-run").then(() => undefined, (e: unknown) => e)
      expect(missing).toMatchObject({ _tag: "RunNotFound", runId: "no-such-run" })
      expect(missing).toEqual(missingResume)
      const unknownCall = await collect(agent().resumeStream(suspended.id, { decisions: [Decision.approve("nope")] })).then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(unknownCall).toMatchObject({ _tag: "DecisionInvalid", toolCallId: "nope", reason: "unknown" })
      const iterator = agent().resumeStream(suspended.id, { decisions: [{ _tag: "Approve" } as unknown as Decision.Decision] })[Symbol.asyncIterator]()
      const first = await iterator.next().then(() => undefined, (e: unknown) => e)
      expect(first).toMatchObject({ _tag: "DecisionInvalid", reason: "malformed" })
    })

    it("aborts the resumed run when the consumer breaks out", async () => {
      const { store, charged, agent } = setup(true)
      const suspended = await agent().run("charge me")
      const seen: Array<string> = []
      for await (const event of agent().resumeStream(suspended.id, { decisions: [Decision.approve("c01")] })) {
        seen.push(event._tag)
        if (event._tag === "RunStarted") break
      }
      expect(seen).toEqual(["RunStarted"])
      expect(charged).toEqual([0])
      const stored = (await RunStore.load(store, suspended.id))?.state
      expect(stored?.execution.status).toBe("stopped")
    })

    it("yields the run's current state once when there is nothing to run", async () => {
      const { agent } = setup(true)
      const suspended = await agent().run("charge me")
      const waiting = await collect(agent().resumeStream(suspended.id))
      expect(waiting.map((e) => e._tag)).toEqual(["RunEnded"])
      expect(waiting[0]?._tag === "RunEnded" && waiting[0].state).toEqual(suspended)
    })
  })
})
