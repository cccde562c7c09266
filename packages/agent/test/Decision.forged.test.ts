import { AgentError, AgentState, Codecs, HookContext, HookTriggers, Json } from "@hookline/core"
import { ScriptedDriver } from "@hookline/testing"
import { Cause, Effect, Result } from "effect"
import * as t from "io-ts"
import { describe, expect, it } from "vitest"
import { AgentBuilder, AgentLoop, Decision, Driver, Tool, UseDriver, UseHook, UseTools } from "../src/index.js"

// A refund that a person approves: the run suspends on call "c1"; every hook run after
// the suspension (a checkpoint is a hook) is counted.
const setup = () => {
  const refunds: Array<unknown> = []
  const refund = Tool.make({
    name: "refund",
    parameters: t.type({ amount: t.number }),
    execute: (args) => (refunds.push(args), "refunded"),
  })
  const seen = { hooks: 0 }
  const approval = UseHook(
    (ctx) => ctx.toolCall?.name === "refund" ? HookContext.suspend(ctx, "a person approves refunds") : ctx,
    { triggers: "BeforeToolUse", name: "test:approval" },
  )
  const counter = UseHook((ctx) => (seen.hooks++, ctx), { triggers: HookTriggers.all, name: "test:count" })
  const driver = ScriptedDriver.make([
    ScriptedDriver.toolCalls([{ id: "c1", name: "refund", arguments: { amount: 5 } }]),
    ScriptedDriver.text("done"),
  ])
  const agent = AgentBuilder.make(UseDriver(driver), UseTools([refund]), approval, counter)
  return { agent, driver, refunds, seen }
}

const suspendedRun = async () => {
  const s = setup()
  const suspended = await s.agent.run("refund order A7")
  expect(suspended.execution.status).toBe("suspended")
  s.seen.hooks = 0
  return { ...s, suspended }
}

const deep = (levels: number): Json.JsonValue => {
  let v: Json.JsonValue = 1
  for (let i = 0; i < levels; i++) v = [v]
  return v
}

// What a JavaScript caller or a parsed HTTP body may send instead of a decision.
const forged: ReadonlyArray<readonly [string, unknown]> = [
  ["an unknown tag", { _tag: "Deny", toolCallId: "c1" }],
  ["a tag in the wrong case", { _tag: "approve", toolCallId: "c1" }],
  ["a tag in capitals", { _tag: "REJECT", toolCallId: "c1", message: "no" }],
  ["no tag", { toolCallId: "c1" }],
  ["a tag that is not a string", { _tag: 1, toolCallId: "c1" }],
  ["a Reject without a message", { _tag: "Reject", toolCallId: "c1" }],
  ["a Reject whose message is a number", { _tag: "Reject", toolCallId: "c1", message: 42 }],
  ["an Edit without arguments", { _tag: "Edit", toolCallId: "c1" }],
  ["an Edit whose arguments are not JSON", { _tag: "Edit", toolCallId: "c1", arguments: { amount: Number.NaN } }],
  ["an Edit whose arguments hold a function", { _tag: "Edit", toolCallId: "c1", arguments: { amount: () => 5 } }],
  ["an Approve without a call id", { _tag: "Approve" }],
  ["an Approve whose call id is a number", { _tag: "Approve", toolCallId: 1 }],
  ["null", null],
  ["a string", "Approve"],
  ["an array", ["Approve", "c1"]],
]

describe("Decision", () => {
  describe("validate (through agent.resume)", () => {
    it.each(forged)("refuses %s as DecisionInvalid (malformed), before anything runs or is written", async (_, decision) => {
      const { agent, refunds, seen, suspended, driver } = await suspendedRun()
      const requests = driver.requests.length
      const before = Codecs.stringifyState(suspended)
      await expect(agent.resume(suspended, [decision as Decision.Decision])).rejects.toMatchObject({ _tag: "DecisionInvalid", reason: "malformed" })
      expect(refunds).toEqual([])
      expect(seen.hooks).toBe(0)
      expect(driver.requests.length).toBe(requests)
      expect(Codecs.stringifyState(suspended)).toBe(before)
    })

    it("names the entry and the field that is wrong, and the call id when it has one", () => {
      const state = AgentState.make()
      const bad = Decision.validate(state, [Decision.approve("x"), { _tag: "Reject", toolCallId: "c1", message: 42 } as never])
      expect(Result.isFailure(bad) && bad.failure).toMatchObject({ reason: "malformed", toolCallId: "c1" })
      expect(Result.isFailure(bad) && bad.failure.message).toMatch(/^decisions\[1\] is not a decision: message: /)
      const tag = Decision.validate(state, [{ _tag: "Deny", toolCallId: "c1" } as never])
      expect(Result.isFailure(tag) && tag.failure.message).toContain('expected "Approve", "Edit" or "Reject", got "Deny"')
      const notAList = Decision.validate(state, { _tag: "Approve", toolCallId: "c1" } as never)
      expect(Result.isFailure(notAList) && notAList.failure).toMatchObject({ reason: "malformed", toolCallId: "" })
    })

    it("refuses a hostile value (a throwing getter, a Proxy whose traps throw) as malformed, never a throw", () => {
      const state = AgentState.make()
      const trap = () => {
        throw new Error("trap")
      }
      const proxy = new Proxy({}, { get: trap, has: trap, getPrototypeOf: trap, ownKeys: trap, getOwnPropertyDescriptor: trap })
      const getter = Object.defineProperty({ _tag: "Approve" }, "toolCallId", { enumerable: true, get: trap })
      const list = new Proxy([Decision.approve("c1")], { get: (target, key) => (key === "0" ? trap() : Reflect.get(target, key)) })
      for (const decisions of [[proxy], [getter], list]) {
        const checked = Decision.validate(state, decisions as never)
        expect(Result.isFailure(checked) && checked.failure).toMatchObject({ _tag: "DecisionInvalid", reason: "malformed" })
      }
    })

    it("refuses edited arguments 10,000 levels deep, or past Json.maxValues, as a model's are: no stack overflow, nothing runs", async () => {
      const { agent, refunds, seen, suspended } = await suspendedRun()
      const tooDeep = agent.resume(suspended, [Decision.edit("c1", { amount: deep(10_000) })])
      await expect(tooDeep).rejects.toMatchObject({ _tag: "DecisionInvalid", reason: "malformed", toolCallId: "c1" })
      await expect(tooDeep).rejects.toThrow(`at most ${Json.maxDepth} deep`)
      const wide = Array.from({ length: Json.maxValues }, (_, i) => i)
      const tooLarge = agent.resume(suspended, [Decision.edit("c1", { amount: 1, wide })])
      await expect(tooLarge).rejects.toMatchObject({ _tag: "DecisionInvalid", reason: "malformed" })
      await expect(tooLarge).rejects.toThrow(`more than ${Json.maxValues} JSON values`)
      // Within the bounds (the model's bounds too), an edit runs.
      const ok = await agent.resume(suspended, [Decision.edit("c1", { amount: 7, nested: deep(Json.maxDepth - 3) })])
      expect(ok.execution.status).toBe("completed")
      expect(refunds).toHaveLength(1)
      expect(seen.hooks).toBeGreaterThan(0)
    })

    it("takes a copy of the decision: extra fields are dropped, edited arguments changed later change nothing", async () => {
      const { agent, refunds, suspended } = await suspendedRun()
      const args = { amount: 9 }
      const sent = { _tag: "Edit", toolCallId: "c1", arguments: args, extra: "dropped" }
      const resumed = agent.resume(suspended, [sent as Decision.Decision])
      args.amount = 1_000_000
      const final = await resumed
      expect(final.execution.status).toBe("completed")
      expect(refunds).toEqual([{ amount: 9 }])
    })
  })

  describe("the engine's own door (RunOptions.decisions)", () => {
    const loopOf = (refunds: Array<unknown>) =>
      AgentLoop.make({
        tools: [Tool.make({ name: "refund", parameters: t.type({ amount: t.number }), execute: (args) => (refunds.push(args), "refunded") })],
      })

    it("takes no malformed decision: the call stays waiting, nothing runs, and the state it ends with loads", async () => {
      const { suspended } = await suspendedRun()
      const refunds: Array<unknown> = []
      for (const decision of forged.map(([, d]) => d)) {
        const decisions = new Map([["c1", decision as Decision.Decision]])
        const final = await Effect.runPromise(
          AgentLoop.run(loopOf(refunds), suspended, { decisions }).pipe(Effect.provideService(Driver.Driver, ScriptedDriver.make([]))),
        )
        expect(refunds).toEqual([])
        expect(final.execution.status).toBe("suspended")
        expect(final.execution.pendingCalls?.map((p) => [p.toolCall.id, p.decision])).toEqual([["c1", undefined]])
        expect(Codecs.stringifyState(Codecs.parseStateUnsafe(Codecs.stringifyState(final)))).toBe(Codecs.stringifyState(final))
      }
      // A decision filed under another call's id is not taken either.
      const misfiled = new Map([["c1", Decision.approve("c2")]])
      const final = await Effect.runPromise(
        AgentLoop.run(loopOf(refunds), suspended, { decisions: misfiled }).pipe(Effect.provideService(Driver.Driver, ScriptedDriver.make([]))),
      )
      expect(refunds).toEqual([])
      expect(final.execution.status).toBe("suspended")
    })

    it("refuses a state whose kept decision is not one (a state built by hand): DecodeFailed naming it, before anything runs", async () => {
      // The state a caller hands a run is checked where it enters (internal/inputState.ts):
      // a forged kept decision never reaches the loop, which would otherwise answer the
      // call with an error (it never approves it).
      const { suspended } = await suspendedRun()
      const refunds: Array<unknown> = []
      const pending = suspended.execution.pendingCalls ?? []
      for (const kept of [{ _tag: "Deny" }, { _tag: "Reject", message: 42 }, { _tag: "Edit" }, { _tag: "approve" }]) {
        const forgedState = AgentState.withPendingCalls(suspended, pending.map((p) => ({ ...p, decision: kept as never })))
        const driver = ScriptedDriver.make([ScriptedDriver.text("ok")])
        const exit = await Effect.runPromiseExit(AgentLoop.run(loopOf(refunds), forgedState, {}).pipe(Effect.provideService(Driver.Driver, driver)))
        expect(refunds).toEqual([])
        expect(driver.requests).toEqual([])
        const error = exit._tag === "Failure" ? Cause.squash(exit.cause) : undefined
        expect(error).toBeInstanceOf(AgentError.HooklineError)
        expect((error as AgentError.HooklineError).error).toMatchObject({ _tag: "DecodeFailed", path: expect.stringContaining("input.execution.pendingCalls[0].decision") })
      }
    })
  })
})
