import { Effect } from "effect"
import { pipe } from "effect/Function"
import { describe, expect, it } from "vitest"
import { AgentState, Hook, HookContext, HookExecuted, HookStack, Message, StopSignal, type HookTrigger } from "@hookline/core"

const state = AgentState.make({ id: "run-1", messages: [Message.user("hi")] })
const stepCtx = HookContext.make({ trigger: "BeforeStep", state, createdAt: 100 })
const toolCtx = HookContext.make({ trigger: "BeforeToolUse", state, createdAt: 100, toolCall: { id: "c1", name: "shell", arguments: {} } })
const on = (trigger: HookTrigger, name: string, priority = 0) => ({ triggers: trigger, name, priority })
const stop: Hook = (ctx) => HookContext.withStopSignal(ctx, StopSignal.make("StopRequested", "enough", "test:stop"))
const block: Hook = (ctx) => HookContext.withToolExecutionBlocked(ctx, "policy")

describe("HookExecuted", () => {
  describe("make", () => {
    it("takes the fields it took before; the new ones are absent", () => {
      const event = HookExecuted.make({ trigger: "BeforeStep", hook: "h", startedAt: 1, durationMs: 2, outcome: "unchanged" })
      expect(event).toMatchObject({ _tag: "HookExecuted", trigger: "BeforeStep", hook: "h", startedAt: 1, durationMs: 2, outcome: "unchanged" })
      expect([event.runId, event.toolCallId, event.effect]).toEqual([undefined, undefined, undefined])
      expect(Object.isFrozen(event)).toBe(true)
    })

    it("keeps the run id, the tool call id and the effect it is given", () => {
      const event = HookExecuted.make({
        trigger: "BeforeToolUse",
        hook: "h",
        startedAt: 1,
        durationMs: 0,
        outcome: "changed",
        runId: "r",
        toolCallId: "c",
        effect: "blocked",
      })
      expect([event.runId, event.toolCallId, event.effect]).toEqual(["r", "c", "blocked"])
    })
  })

  describe("dispatch", () => {
    it("names the run of every event and the tool call of a tool trigger's", () => {
      const { sink, events } = HookExecuted.collect()
      HookStack.run(HookStack.with(HookStack.empty, Hook.identity, on("BeforeStep", "idle")), stepCtx, { sink })
      HookStack.run(HookStack.with(HookStack.empty, Hook.identity, on("BeforeToolUse", "idle")), toolCtx, { sink })
      expect(events.map((e) => [e.runId, e.toolCallId])).toEqual([["run-1", undefined], ["run-1", "c1"]])
    })

    it("says which hook blocked the call and which raised a stop signal; the outcome stays changed", () => {
      const { sink, events } = HookExecuted.collect()
      const stack = pipe(
        HookStack.empty,
        HookStack.with(Hook.identity, on("BeforeToolUse", "idle", 4)),
        HookStack.with(stop, on("BeforeToolUse", "stopper", 3)),
        HookStack.with(block, on("BeforeToolUse", "blocker", 2)),
        HookStack.with(block, on("BeforeToolUse", "again", 1)),
      )
      HookStack.run(stack, toolCtx, { sink })
      expect(events.map((e) => [e.hook, e.outcome, e.effect])).toEqual([
        ["idle", "unchanged", undefined],
        ["stopper", "changed", "stopped"],
        ["blocker", "changed", "blocked"],
        // The call was blocked already: this hook did nothing more.
        ["again", "unchanged", undefined],
      ])
    })

    it("leaves the effect out for a hook that failed", () => {
      const { sink, events } = HookExecuted.collect()
      const stack = HookStack.with(HookStack.empty, () => {
        throw new Error("x")
      }, { triggers: "BeforeToolUse", name: "bad", onError: "skip" })
      HookStack.run(stack, toolCtx, { sink })
      expect(events.map((e) => [e.outcome, e.effect, e.toolCallId])).toEqual([["skipped", undefined, "c1"]])
    })

    it("says the same of an effectful hook (intercept)", async () => {
      const { sink, events } = HookExecuted.collect()
      const stack = pipe(
        HookStack.empty,
        HookStack.with(Hook.effect((ctx: HookContext.HookContext) => Effect.succeed(block(ctx))), on("BeforeToolUse", "blocker", 2)),
        HookStack.with(Hook.effect((ctx: HookContext.HookContext) => Effect.succeed(stop(ctx))), on("BeforeToolUse", "stopper", 1)),
      )
      await Effect.runPromise(HookStack.intercept(stack, toolCtx).pipe(Effect.provideService(HookExecuted.CurrentEventSink, sink)))
      expect(events.map((e) => [e.hook, e.effect, e.runId, e.toolCallId])).toEqual([
        ["blocker", "blocked", "run-1", "c1"],
        ["stopper", "stopped", "run-1", "c1"],
      ])
    })
  })
})
