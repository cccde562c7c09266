// Minimal reproductions of what the fuzzer (loop.fuzz.test.ts) found, one per cause,
// each failing before its fix.
import { Effect, Stream, pipe } from "effect"
import { describe, expect, it } from "vitest"
import { AgentError, Guards, Hook, HookContext, HookStack, HookTriggers, InferenceResponse, StopSignal, WrapHook, type AgentState } from "@hookline/core"
import { AgentLoop, Decision, Driver, Tool } from "@hookline/agent"
import * as t from "io-ts"
import { ScriptedDriver } from "@hookline/testing"
import { add } from "../support.js"
import { violations } from "./properties.js"
import { runScenario } from "./run.js"
import type { Scenario } from "./scenario.js"

const boom: Hook = () => {
  throw new Error("boom")
}

// A run that does not end on its own is aborted after this long, so the test ends.
const SAFETY_MS = 300

const runUntil = async (stack: HookStack, script: ReadonlyArray<ScriptedDriver.Turn>, options: ScriptedDriver.Options = {}) => {
  const safety = new AbortController()
  const timer = setTimeout(() => safety.abort(), SAFETY_MS)
  const driver = ScriptedDriver.make(script, options)
  const final = await Effect.runPromise(
    AgentLoop.run(AgentLoop.make({ interceptor: stack, tools: [add] }), "hi", { signal: safety.signal }).pipe(Effect.provide(driver.layer)),
  )
  clearTimeout(timer)
  return { final, endedOnItsOwn: !safety.signal.aborted }
}

const outcome = (final: AgentState) => ({
  status: final.execution.status,
  steps: final.execution.steps.length,
  reason: StopSignal.highest(final.execution.stopSignals)?.reason,
})

describe("AgentLoop (fuzzing regressions)", () => {
  describe("abort", () => {
    // Fixed in 76b7260. An abort that happens while the run is busy (the signal fires
    // inside a model call, a tool or a hook, synchronously) was lost when the rest of
    // the run needed no await: the body won the race against the signal.
    it("ends stopped with UserRequested when the signal aborts during a model call that then answers at once", async () => {
      const controller = new AbortController()
      const driver = Driver.make({
        generate: () =>
          Effect.sync(() => {
            controller.abort() // the user presses stop while the model answers
            return InferenceResponse.make({ text: "hi" })
          }),
      })
      const final = await Effect.runPromise(
        AgentLoop.run(AgentLoop.make(), "hello", { signal: controller.signal }).pipe(Effect.provide(Driver.layer(driver))),
      )
      expect(outcome(final)).toEqual({ status: "stopped", steps: 1, reason: "UserRequested" })
    })

    // Fixed: the same when the model call then fails: 76b7260 turns a finished ("done") body
    // into an abort when the signal fired (engine.ts, executeGen: `outcome === done &&
    // signal?.aborted`), but not a failed one. The error goes to OnError and the run
    // ends "failed" although the user aborted it before the error (docs/loop.md: an abort
    // the loop could not see "still counts ... the run ends stopped with UserRequested").
    it("ends stopped with UserRequested when the signal aborts during a model call that then fails", async () => {
      const controller = new AbortController()
      const driver = Driver.make({
        generate: () =>
          Effect.suspend(() => {
            controller.abort()
            return Effect.fail(AgentError.inferenceFailed("the model is down"))
          }),
      })
      const final = await Effect.runPromise(
        AgentLoop.run(AgentLoop.make(), "hello", { signal: controller.signal }).pipe(Effect.provide(Driver.layer(driver))),
      )
      expect(outcome(final)).toEqual({ status: "stopped", steps: 1, reason: "UserRequested" })
    })
  })

  describe("the steps guard", () => {
    // Fixed in 76b7260. A stop decided at BeforeStep (the steps guard fired) followed by
    // a failing OnStop hook recorded one more (empty) step: the stop check was part of
    // the step, so recordFailedStep() appended a step that never called the model.
    it("records no step beyond maxSteps when an OnStop hook fails after the guard stopped the run", async () => {
      const stack = pipe(
        Guards.useGuards({ maxSteps: 1 }),
        HookStack.with(boom, { triggers: "OnStop", name: "test:boom" }),
      )
      const { final } = await runUntil(stack, [ScriptedDriver.toolCalls([{ name: "add", arguments: { a: 1, b: 2 } }])])
      expect(outcome(final).steps).toBe(1)
    })

    // Fixed (a failed dispatch commits the state of the hooks before the failing one):
    // a BeforeStep dispatch that does not complete after the guard fired in it (a
    // later BeforeStep hook fails under 'fail', or the run is aborted while a later,
    // effectful BeforeStep hook waits) is not committed: the guard's signal is lost with
    // it, and the step it never let start is recorded as a failed step
    // (engine.ts stepGen sets `this.current` before the BeforeStep dispatch;
    // recordFailedStep() in bodyGen or finishGen appends it). 2 steps with maxSteps 1.
    it("records no step beyond maxSteps when a BeforeStep hook fails after the guard fired", async () => {
      const failLater: Hook = (ctx) => (ctx.state.execution.steps.length >= 1 ? boom(ctx) : ctx)
      const stack = pipe(
        Guards.useGuards({ maxSteps: 1 }),
        HookStack.with(failLater, { triggers: "BeforeStep", name: "test:fail_later" }),
      )
      const { final } = await runUntil(stack, [ScriptedDriver.toolCalls([{ name: "add", arguments: { a: 1, b: 2 } }])])
      expect(outcome(final).steps).toBe(1)
    })

    // Fixed: the abort case of the above.
    it("records no step beyond maxSteps when the run is aborted in a BeforeStep hook after the guard fired", async () => {
      const controller = new AbortController()
      const abortThenWait = Hook.effect((ctx: HookContext) =>
        ctx.state.execution.steps.length >= 1 ? Effect.andThen(Effect.sync(() => controller.abort()), Effect.never) : Effect.succeed(ctx)
      )
      const stack = pipe(
        Guards.useGuards({ maxSteps: 1 }),
        HookStack.with(abortThenWait, { triggers: "BeforeStep", name: "test:ask_human" }),
      )
      const driver = ScriptedDriver.make([ScriptedDriver.toolCalls([{ name: "add", arguments: { a: 1, b: 2 } }])])
      const final = await Effect.runPromise(
        AgentLoop.run(AgentLoop.make({ interceptor: stack, tools: [add] }), "hi", { signal: controller.signal }).pipe(Effect.provide(driver.layer)),
      )
      expect(outcome(final)).toEqual({ status: "stopped", steps: 1, reason: "UserRequested" })
    })

    // Fixed (the stop check runs after a handled error): and with an OnError hook that handles every error, a BeforeStep hook that
    // fails after the guard fired makes a run that never ends: each retry records another
    // failed step, and the guard's signal is lost with each failed dispatch. Thousands
    // of steps with maxSteps 1 until something aborts the run.
    it("ends a run whose BeforeStep hook fails after the guard fired and whose OnError hook handles everything", async () => {
      const failLater: Hook = (ctx) => (ctx.state.execution.steps.length >= 1 ? boom(ctx) : ctx)
      const stack = pipe(
        Guards.useGuards({ maxSteps: 1 }),
        HookStack.with(failLater, { triggers: "BeforeStep", name: "test:fail_later" }),
        HookStack.with(HookContext.markErrorsHandled, { triggers: "OnError", name: "test:retry" }),
      )
      const { final, endedOnItsOwn } = await runUntil(stack, [ScriptedDriver.toolCalls([{ name: "add", arguments: { a: 1, b: 2 } }])])
      expect({ endedOnItsOwn, steps: outcome(final).steps }).toEqual({ endedOnItsOwn: true, steps: 1 })
    })

    // Fixed in 76b7260. With an OnError hook that handles every error, a failing OnStop
    // hook made a run that never ended (the stop check failed, was handled, and ran again).
    it("ends a run whose OnStop hook always fails and whose OnError hook handles everything", async () => {
      const stack = pipe(
        Guards.useGuards({ maxSteps: 1 }),
        HookStack.with(boom, { triggers: "OnStop", name: "test:boom" }),
        HookStack.with(HookContext.markErrorsHandled, { triggers: "OnError", name: "test:retry" }),
      )
      const { final, endedOnItsOwn } = await runUntil(stack, [ScriptedDriver.toolCalls([{ name: "add", arguments: { a: 1, b: 2 } }])])
      expect({ endedOnItsOwn, steps: outcome(final).steps }).toEqual({ endedOnItsOwn: true, steps: 1 })
    })

    // Fixed in 76b7260. StopRequested ranks above the hard stops, and the stop check
    // asked only whether the *highest* signal was hard: a soft StopRequested next to
    // StepsLimitReached let an OnStop continuation override the limit, forever.
    it("never lets a continuation override the steps limit, whatever soft signal sits next to it", async () => {
      const askToStop: Hook = (ctx) =>
        ctx.state.execution.steps.length >= 1 ? HookContext.withStopSignal(ctx, StopSignal.make("StopRequested", "enough", "test:policy")) : ctx
      const stack = pipe(
        Guards.useGuards({ maxSteps: 1 }),
        HookStack.with(askToStop, { triggers: "BeforeStep", name: "test:policy" }),
        HookStack.with((ctx: HookContext) => HookContext.requestContinuation(ctx), { triggers: "OnStop", name: "test:continue" }),
      )
      const { final, endedOnItsOwn } = await runUntil(stack, [ScriptedDriver.text("done")], { repeatLast: true })
      const limited = final.execution.stopSignals.some((s) => s.reason === "StepsLimitReached")
      expect({ endedOnItsOwn, status: final.execution.status, steps: final.execution.steps.length, limited }).toEqual({
        endedOnItsOwn: true,
        status: "stopped",
        steps: 1,
        limited: true,
      })
    })
  })

  describe("the clock", () => {
    // Found by the fuzzer while the loop learned to read the clock less often (a step's
    // start reuses the last reading): the failed step's record and OnError read the
    // clock without keeping the reading, so the retried step's BeforeStep got a context
    // made before the OnError context.
    it("never gives a hook a context made before one an earlier hook saw, across a handled error", async () => {
      const seen: Array<string> = []
      const made: Array<number> = []
      const observe: Hook = (ctx) => {
        seen.push(ctx.trigger)
        made.push(ctx.createdAt)
        return ctx
      }
      let failures = 0
      const driver = Driver.make({
        generate: () =>
          failures++ === 0
            ? Effect.flatMap(Effect.sleep("5 millis"), () => Effect.fail(AgentError.inferenceFailed("the model is down")))
            : Effect.succeed(InferenceResponse.make({ text: "hi" })),
      })
      const stack = pipe(
        HookStack.empty,
        HookStack.with(observe, { triggers: HookTriggers.all, name: "test:observe", priority: 100 }),
        HookStack.with(HookContext.markErrorsHandled, { triggers: "OnError", name: "test:handle" }),
      )
      const final = await Effect.runPromise(
        AgentLoop.run(AgentLoop.make({ interceptor: stack }), "hello").pipe(Effect.provide(Driver.layer(driver))),
      )
      expect(final.execution.status).toBe("completed")
      expect(seen).toContain("OnError")
      expect(seen.lastIndexOf("BeforeStep")).toBeGreaterThan(seen.indexOf("OnError"))
      expect(made).toEqual([...made].sort((a, b) => a - b))
    })
  })

  // Issue 13: a call a hook suspended the run on, in a step that then failed or was
  // stopped. The run did not end suspended, so nobody can decide the call: it kept the
  // call in pendingCalls with no tool message (the model would read an unanswered call,
  // and a handled error went on to a model request with it).
  describe("suspension in a step that does not end suspended", () => {
    const suspend: Hook = (ctx) => (ctx.toolCall === undefined ? ctx : HookContext.suspend(ctx, "needs approval"))
    const unanswered = (final: AgentState) => {
      const messages = final.context.messages.toArray()
      const answered = new Set(messages.flatMap((m) => (m.role === "tool" ? [m.toolCallId] : [])))
      return messages.flatMap((m) => (m.role === "assistant" ? m.toolCalls.filter((c) => !answered.has(c.id)).map((c) => c.id) : []))
    }
    const script = [ScriptedDriver.toolCalls([{ name: "add", arguments: { a: 1, b: 2 } }]), ScriptedDriver.text("done")]
    const tool = HookTriggers.of("BeforeToolUse")

    it("cancels the call when a later BeforeToolUse hook fails the step", async () => {
      const stack = pipe(HookStack.empty, HookStack.with(suspend, { triggers: tool, priority: 1, name: "approval" }), HookStack.with(boom, { triggers: tool, name: "boom" }))
      const { final } = await runUntil(stack, script)
      expect(final.execution.status).toBe("failed")
      expect(final.execution.pendingCalls).toBeUndefined()
      expect(unanswered(final)).toEqual([])
    })

    it("cancels the call when OnError handles the failure, before the next model request", async () => {
      const handle: Hook = (ctx) => HookContext.markErrorsHandled(ctx)
      const requests: Array<ReadonlyArray<string>> = []
      const seen: Hook = (ctx) => (requests.push(unanswered(ctx.state)), ctx)
      const stack = pipe(
        HookStack.empty,
        HookStack.with(suspend, { triggers: tool, priority: 1, name: "approval" }),
        HookStack.with(boom, { triggers: tool, name: "boom" }),
        HookStack.with(handle, { triggers: HookTriggers.of("OnError"), name: "handle" }),
        HookStack.with(seen, { triggers: HookTriggers.of("BeforeInference"), name: "seen" }),
      )
      const { final } = await runUntil(stack, script)
      expect(requests).toEqual([[], []])
      expect(final.execution.status).toBe("completed")
      expect(unanswered(final)).toEqual([])
    })

    it("cancels the call when a hard stop ends the run", async () => {
      const stop: Hook = (ctx) => HookContext.withStopSignal(ctx, StopSignal.make("TokenLimitReached", "budget spent", "stopper"))
      const stack = pipe(HookStack.empty, HookStack.with(suspend, { triggers: tool, priority: 1, name: "approval" }), HookStack.with(stop, { triggers: tool, name: "stop" }))
      const { final } = await runUntil(stack, script)
      expect(final.execution.status).toBe("stopped")
      expect(final.execution.pendingCalls).toBeUndefined()
      expect(unanswered(final)).toEqual([])
    })

    it("still ends suspended, the call unanswered until decided, when nothing else happens", async () => {
      const stack = HookStack.with(HookStack.empty, suspend, { triggers: tool, name: "approval" })
      const { final } = await runUntil(stack, script)
      expect(final.execution.status).toBe("suspended")
      expect(final.execution.pendingCalls?.map((p) => p.toolCall.name)).toEqual(["add"])
      expect(unanswered(final)).toEqual(["call_1"])
    })
  })

  // Issue 13: a hook suspended the run on a call and another one answered it in the same
  // BeforeToolUse dispatch (a synthetic result, or a block). The answer was committed and
  // the call still waited: the run ended suspended on an answered call, and each resume
  // answered it again (a second tool message for one call).
  describe("a call suspended and answered in one dispatch", () => {
    const suspend: Hook = (ctx) => (ctx.toolCall === undefined ? ctx : HookContext.suspend(ctx, "needs approval"))
    const answer: Hook = (ctx) => (ctx.toolCall === undefined ? ctx : HookContext.withToolResult(ctx, "cached"))
    const block: Hook = (ctx) => (ctx.toolCall === undefined ? ctx : HookContext.withToolExecutionBlocked(ctx, "no"))
    const tool = HookTriggers.of("BeforeToolUse")
    const script = [ScriptedDriver.toolCalls([{ name: "add", arguments: { a: 1, b: 2 } }]), ScriptedDriver.text("done")]
    for (const [name, other] of [["answered", answer], ["blocked", block]] as const) {
      it(`does not wait on a call ${name} after it was suspended`, async () => {
        const stack = pipe(HookStack.empty, HookStack.with(suspend, { triggers: tool, priority: 1, name: "approval" }), HookStack.with(other, { triggers: tool, name }))
        const { final } = await runUntil(stack, script)
        expect(final.execution.pendingCalls).toBeUndefined()
        expect(final.execution.status).toBe("completed")
        expect(final.context.messages.toArray().filter((m) => m.role === "tool").length).toBe(1)
      })
    }
  })

  // Issue 13: a step suspended on one call while another of its calls aborted the run
  // (a tool that fires the signal): the run ends stopped, not suspended, but the step
  // was forgotten, so the call that ran was in no step record.
  it("records the step of a suspended call when an abort then stops the run", async () => {
    const controller = new AbortController()
    const quit = Tool.make({ name: "quit", parameters: t.type({}), execute: () => (controller.abort(), "quitting") })
    const suspend: Hook = (ctx) => (ctx.toolCall?.name === "add" ? HookContext.suspend(ctx, "needs approval") : ctx)
    const stack = HookStack.with(HookStack.empty, suspend, { triggers: HookTriggers.of("BeforeToolUse"), name: "approval" })
    const driver = ScriptedDriver.make([
      ScriptedDriver.toolCalls([{ name: "add", arguments: { a: 1, b: 2 } }, { name: "quit", arguments: {} }], { usage: { inputTokens: 5, outputTokens: 2 } }),
    ])
    const final = await Effect.runPromise(
      AgentLoop.run(AgentLoop.make({ interceptor: stack, tools: [add, quit] }), "hi", { signal: controller.signal }).pipe(Effect.provide(driver.layer)),
    )
    expect(final.execution.status).toBe("stopped")
    expect(final.execution.pendingCalls).toBeUndefined()
    expect(final.execution.steps.toArray().flatMap((s) => s.toolExecutions.map((e) => [e.toolCall.name, e.status]))).toEqual([["quit", "success"]])
    // The model call is counted once: in the step's record (not also as a suspended step's).
    expect(final.execution.usage).toEqual(final.execution.steps.at(0)?.usage)
    expect(final.execution.usage.inputTokens).toBeGreaterThan(0)
  })

  // Issues 13 and 16: the step a resume finishes ran its decided calls under the
  // WrapToolUse hooks, but its record dropped their attempts.
  it("records the tool attempts of the step a resume finishes", async () => {
    const suspend: Hook = (ctx) => (ctx.toolCall === undefined ? ctx : HookContext.suspend(ctx, "needs approval"))
    const stack = HookStack.withWrap(
      HookStack.with(HookStack.empty, suspend, { triggers: HookTriggers.of("BeforeToolUse"), name: "approval" }),
      WrapHook.toolUse((ctx, next) => next(ctx)),
      { name: "pass" },
    )
    const loop = AgentLoop.make({ interceptor: stack, tools: [add] })
    const driver = ScriptedDriver.make([ScriptedDriver.toolCalls([{ name: "add", arguments: { a: 1, b: 2 } }]), ScriptedDriver.text("done")])
    const suspended = await Effect.runPromise(AgentLoop.run(loop, "hi").pipe(Effect.provide(driver.layer)))
    expect(suspended.execution.status).toBe("suspended")
    const decisions = new Map([["call_1", Decision.approve("call_1")]])
    const final = await Effect.runPromise(AgentLoop.run(loop, suspended, { decisions }).pipe(Effect.provide(driver.layer)))
    expect(final.execution.status).toBe("completed")
    expect(final.execution.steps.at(0)?.toolAttempts?.map((a) => [a.toolCallId, a.error])).toEqual([["call_1", undefined]])
  })

  // Issue 16: a live stream got the text of a model call that did not count and no
  // TextReset: a wrap hook that asked again after an answer (the text of both answers
  // ran together), or failed after one (the text stayed though the step recorded none).
  describe("TextReset for an answer a wrap hook did not keep", () => {
    const streamed = async (wrap: WrapHook.InferenceWrap<unknown>) => {
      const loop = AgentLoop.make({ interceptor: HookStack.withWrap(HookStack.empty, wrap, { name: "wrap" }), textDeltas: "live" })
      const driver = ScriptedDriver.make([ScriptedDriver.text("first"), ScriptedDriver.text("second")])
      const events = await Effect.runPromise(Stream.runCollect(AgentLoop.stream(loop, "hi")).pipe(Effect.provide(driver.layer)))
      return Array.from(events).flatMap((e) => (e._tag === "TextDelta" ? [e.text] : e._tag === "TextReset" ? ["(reset)"] : []))
    }
    it("resets before the text of a second answer", async () => {
      expect(await streamed(WrapHook.inference((ctx, next) => Effect.flatMap(next(ctx), () => next(ctx))))).toEqual(["first", "(reset)", "second"])
    })
    it("resets when the wrap hook fails after an answer", async () => {
      expect(await streamed(WrapHook.inference((ctx, next) => Effect.andThen(next(ctx), Effect.fail(new Error("no")))))).toEqual(["first", "(reset)"])
    })
  })
  describe("the fuzzer's virtual clock", () => {
    // Seed -1524380559 (40,000 scenarios, about one CI run in ten at 10,000): echo awaits a
    // real macrotask while sleepy sleeps on the virtual clock, in one concurrent step. The
    // clock woke sleepy before echo's continuation had run in the plain run (echo ended at
    // 5 ms) but not when streamed (0 ms), so run and stream saw different contexts. The
    // clock now waits for the real work in flight to settle (run.ts, settleTurns).
    it("gives a tool awaiting a macrotask next to a sleeping one the same end, run and streamed", async () => {
      expect(violations(await runScenario(echoNextToSleepy as Scenario))).toEqual([])
    })
  })
  describe("a model call asked for after the run was interrupted", () => {
    // Seed 1999448819 (CI, after issue 22's merges): a Promise wrap hook's retry called
    // `next` after the run was interrupted from outside (no abort signal), and the model
    // was called once more after AfterExecution, with no attempt in any step. Once the
    // steps are interrupted (outside interruption, abort, time limit), no new model call or
    // tool starts, whatever a wrap hook asks.
    it("starts no model call once the run's steps are interrupted", async () => {
      expect(violations(await runScenario(retryAfterInterrupt as Scenario))).toEqual([])
    })
  })
  describe("a Promise wrap hook that calls next after the abort", () => {
    // Seed 1762795881 (found on the reasoning branch, on main's engine too): concurrent
    // tools; the Effect wrap of one call fails the run after its `next`, which aborts the
    // other call's Promise wrap mid-retry. A Promise cannot be stopped, so that hook's
    // retry calls `next` once more after the abort; the engine refuses it (no tool runs),
    // but the fuzzer counted it among the contexts the hooks saw, and whether it came
    // before the recording ended depends on the promise jobs left when the run returns:
    // the plain run and the stream differed. A next after the abort is now recorded as late
    // and left out of the comparison; that it runs nothing is checked by the trace.
    it("gives run and stream the same contexts", async () => {
      expect(violations(await runScenario(nextAfterAbort as Scenario))).toEqual([])
    })
  })
  describe("an Effect hook answering at once after a hook that waited", () => {
    // Seed 1466064484 (branch hooksync, when the fuzzer gained hooks that answer with an
    // Exit): the signal aborts inside such a hook, after a Promise hook of the same OnStop
    // dispatch waited. The dispatch read the Exit at once and ran on, but the abort had
    // interrupted the fiber, so the result of a dispatch whose hooks all ran was never
    // committed (a continuation's message lost). Once a hook waited, the rest of the
    // dispatch goes through the runtime as before: the interruption stops it at that hook.
    it("stops the dispatch at the hook the abort came in", async () => {
      expect(violations(await runScenario(atOnceAfterAWait as Scenario))).toEqual([])
    })
  })
})

// The scenario as the fuzzer printed it ("scenario as data").
const nextAfterAbort: unknown = {"hooks":[{"name":"fuzz:observer","triggers":"all","priority":-300,"onError":"fail","lift":"pure","wait":{"_tag":"None"},"behaviour":{"_tag":"Pass"},"fromStep":0}],"wraps":[{"name":"w1:nextthenthrow","point":"WrapToolUse","priority":-300,"onError":"fail","lift":"effect","behaviour":{"_tag":"NextThenThrow"}},{"name":"w2:retry","point":"WrapToolUse","priority":-300,"onError":"fail","lift":"promise","behaviour":{"_tag":"Retry","times":3,"backoffMs":0}}],"guards":{"maxSteps":1,"maxTokens":null,"maxExecutionTime":null,"finishReasons":null},"script":[{"_tag":"ToolCalls","calls":[{"_tag":"Deep","tool":"add"},{"_tag":"Valid","tool":"add"}],"text":"","usage":{"inputTokens":0,"outputTokens":0}}],"toolConcurrency":"concurrent","mode":"run","interceptor":"stack","textDeltas":"auto","input":"question","twin":true,"resume":{"plans":[],"encode":false,"probe":"none","forged":"unknownTag"},"guardsAt":0}

// The scenario as the fuzzer printed it ("scenario as data").
const echoNextToSleepy: unknown = ({
    "hooks": [
      {
        "name": "fuzz:observer",
        "triggers": [
          "AfterExecution"
        ],
        "priority": -300,
        "onError": "fail",
        "lift": "pure",
        "wait": {
          "_tag": "None"
        },
        "behaviour": {
          "_tag": "Pass"
        },
        "fromStep": 0
      },
      {
        "name": "h1:block",
        "triggers": [
          "BeforeToolUse"
        ],
        "priority": -300,
        "onError": "skip",
        "lift": "asyncPure",
        "wait": {
          "_tag": "None"
        },
        "behaviour": {
          "_tag": "Block"
        },
        "fromStep": 0
      },
      {
        "name": "h2:continue",
        "triggers": [
          "BeforeToolUse"
        ],
        "priority": -300,
        "onError": "fail",
        "lift": "pure",
        "wait": {
          "_tag": "None"
        },
        "behaviour": {
          "_tag": "Continue"
        },
        "fromStep": 0
      },
      {
        "name": "h3:pass",
        "triggers": [
          "BeforeStep"
        ],
        "priority": -300,
        "onError": "fail",
        "lift": "pure",
        "wait": {
          "_tag": "None"
        },
        "behaviour": {
          "_tag": "Pass"
        },
        "fromStep": 0
      },
      {
        "name": "h4:permission",
        "triggers": "all",
        "priority": -300,
        "onError": "fail",
        "lift": "effect",
        "wait": {
          "_tag": "Yield"
        },
        "behaviour": {
          "_tag": "Permission",
          "impl": "Permission",
          "decision": "deny",
          "timeoutMs": 50
        },
        "fromStep": 1
      }
    ],
    "wraps": [],
    "guards": {
      "maxSteps": 1,
      "maxTokens": null,
      "maxExecutionTime": null,
      "finishReasons": null
    },
    "script": [
      {
        "_tag": "ToolCalls",
        "calls": [
          {
            "_tag": "Valid",
            "tool": "echo"
          },
          {
            "_tag": "Valid",
            "tool": "sleepy"
          }
        ],
        "text": "",
        "usage": {
          "inputTokens": 0,
          "outputTokens": 0
        }
      },
      {
        "_tag": "Delay",
        "ms": 1,
        "turn": {
          "_tag": "Text",
          "text": "done",
          "chunked": false,
          "finishReason": "stop",
          "usage": {
            "inputTokens": 0,
            "outputTokens": 0
          }
        }
      }
    ],
    "toolConcurrency": "concurrent",
    "mode": "run",
    "interceptor": "stack",
    "textDeltas": "auto",
    "input": "question",
    "twin": true,
    "resume": {
      "plans": [],
      "encode": false,
      "probe": "none"
    },
    "guardsAt": 0
  })

// The scenario as the fuzzer printed it ("scenario as data").
const retryAfterInterrupt: unknown = {
  "hooks": [
    {
      "name": "fuzz:observer",
      "triggers": [
        "AfterExecution"
      ],
      "priority": -300,
      "onError": "fail",
      "lift": "pure",
      "wait": {
        "_tag": "None"
      },
      "behaviour": {
        "_tag": "Pass"
      },
      "fromStep": 0
    },
    {
      "name": "h1:shortcircuit",
      "triggers": [
        "AfterExecution"
      ],
      "priority": -300,
      "onError": "fail",
      "lift": "pure",
      "wait": {
        "_tag": "None"
      },
      "behaviour": {
        "_tag": "ShortCircuit",
        "toolCall": false
      },
      "fromStep": 0
    },
    {
      "name": "h2:annotate",
      "triggers": [
        "OnError"
      ],
      "priority": -300,
      "onError": "fail",
      "lift": "pure",
      "wait": {
        "_tag": "None"
      },
      "behaviour": {
        "_tag": "Annotate",
        "how": "context"
      },
      "fromStep": 0
    },
    {
      "name": "h3:stop",
      "triggers": [
        "AfterStep"
      ],
      "priority": -300,
      "onError": "fail",
      "lift": "pure",
      "wait": {
        "_tag": "None"
      },
      "behaviour": {
        "_tag": "Stop",
        "reason": "FinishReasonReceived"
      },
      "fromStep": 0
    },
    {
      "name": "h4:pass",
      "triggers": [
        "OnError"
      ],
      "priority": -300,
      "onError": "fail",
      "lift": "pure",
      "wait": {
        "_tag": "None"
      },
      "behaviour": {
        "_tag": "Pass"
      },
      "fromStep": 0
    }
  ],
  "wraps": [
    {
      "name": "w1:timeout",
      "point": "WrapInference",
      "priority": -300,
      "onError": "fail",
      "lift": "effect",
      "behaviour": {
        "_tag": "Timeout",
        "ms": 7
      }
    },
    {
      "name": "w2:retry",
      "point": "WrapInference",
      "priority": 0,
      "onError": "fail",
      "lift": "promise",
      "behaviour": {
        "_tag": "Retry",
        "times": 1,
        "backoffMs": 0
      }
    },
    {
      "name": "w3:retry",
      "point": "WrapToolUse",
      "priority": -300,
      "onError": "fail",
      "lift": "effect",
      "behaviour": {
        "_tag": "Retry",
        "times": 1,
        "backoffMs": 0
      }
    }
  ],
  "guards": {
    "maxSteps": 1,
    "maxTokens": null,
    "maxExecutionTime": null,
    "finishReasons": null
  },
  "script": [
    {
      "_tag": "Failure"
    }
  ],
  "toolConcurrency": "sequential",
  "mode": "stream",
  "interceptor": "stack",
  "textDeltas": "auto",
  "abort": {
    "at": 4,
    "via": "interrupt",
    "timing": "now"
  },
  "input": "question",
  "twin": false,
  "resume": {
    "plans": [],
    "encode": false,
    "probe": "none",
    "forged": "unknownTag"
  },
  "guardsAt": 0
}

// The scenario as the fuzzer printed it, less the hooks and wrap that played no part.
const atOnceAfterAWait: unknown = {"hooks":[{"name":"h1:continue","triggers":["OnStop"],"priority":-300,"onError":"fail","lift":"promise","wait":{"_tag":"None"},"behaviour":{"_tag":"Continue","message":"and now?"},"fromStep":0},{"name":"fuzz:observer","triggers":["BeforeExecution","OnStop","AfterExecution"],"priority":-300,"onError":"fail","lift":"effect","wait":{"_tag":"AtOnce"},"behaviour":{"_tag":"Pass"},"fromStep":0},{"name":"h2:block","triggers":"all","priority":-300,"onError":"fail","lift":"pure","wait":{"_tag":"None"},"behaviour":{"_tag":"Block"},"fromStep":0},{"name":"h5:stop","triggers":["BeforeStep"],"priority":-300,"onError":"fail","lift":"pure","wait":{"_tag":"None"},"behaviour":{"_tag":"Stop","reason":"StopRequested"},"fromStep":0}],"wraps":[],"guards":{"maxSteps":1,"maxTokens":null,"maxExecutionTime":null,"finishReasons":null},"script":[{"_tag":"Garbage","kind":"numberReasoning"}],"toolConcurrency":"sequential","mode":"iterate","interceptor":"stack","textDeltas":"auto","abort":{"at":3,"via":"signal","timing":"now"},"input":"question","twin":false,"resume":{"plans":[],"encode":false,"probe":"none","forged":"unknownTag"},"guardsAt":0}
