// A custom interceptor (`AgentLoop.make({ interceptor })` with `intercept` and maybe
// `interceptSync`) is user code: what it returns is untrusted, as a hook's return is.
// The loop gives it the check a stack gives each hook's return (docs/ordering.md "What
// a hook may return"): a bad return fails the dispatch with HookFailed naming what was
// wrong (hook "interceptor"), the run ends normally (AfterExecution once, status
// failed), and a valid but unfrozen return is frozen through before anything keeps it.
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { AgentState, Codecs, HookContext, HookStack, HookTriggers, Message, Truncation, type AgentError, type HookTrigger, type Interceptor } from "@hookline/core"
import { AgentLoop } from "@hookline/agent"
import { ScriptedDriver } from "@hookline/testing"
import { unansweredCalls } from "./fuzz/properties.js"
import { add, runWith, unfrozenPath } from "./support.js"

const script = () => [ScriptedDriver.toolCalls([{ name: "add", arguments: { a: 2, b: 2 } }]), ScriptedDriver.text("4")]

type Forge = (ctx: HookContext) => unknown

// An interceptor that returns `forge(ctx)` at `trigger` and every other context as it is,
// on its synchronous path or on its Effect path; it records the triggers it saw.
const forging = (trigger: HookTrigger, forge: Forge, path: "sync" | "effect") => {
  const seen: Array<HookTrigger> = []
  const states: Array<AgentState> = []
  const answer = (ctx: HookContext): HookContext => {
    seen.push(ctx.trigger)
    states.push(ctx.state)
    return (ctx.trigger === trigger ? forge(ctx) : ctx) as HookContext
  }
  const interceptor: Interceptor = path === "sync"
    ? { intercept: (ctx) => Effect.succeed(ctx), interceptSync: answer }
    : { intercept: (ctx) => Effect.sync(() => answer(ctx)) }
  return { interceptor, seen, states }
}

const run = async (trigger: HookTrigger, forge: Forge, path: "sync" | "effect") => {
  const f = forging(trigger, forge, path)
  const { final } = await runWith(AgentLoop.make({ interceptor: f.interceptor, tools: [add] }), script())
  return { final, seen: f.seen, states: f.states }
}

const otherRun = AgentState.make({ id: "another-run", messages: [Message.user("hi")] })

const bad: ReadonlyArray<readonly [string, Forge, string]> = [
  ["a number", () => 42, "returned something that is not a HookContext"],
  ["null", () => null, "returned something that is not a HookContext"],
  ["state: null", (ctx) => ({ ...ctx, state: null }), "at state: expected an AgentState, got null"],
  ["messages as a plain array", (ctx) => ({ ...ctx, state: { ...ctx.state, context: { ...ctx.state.context, messages: ctx.state.context.messages.toArray() } } }), "at state.context.messages: expected an AppendLog"],
  ["a context of another trigger", (ctx) => HookContext.make({ trigger: ctx.trigger === "AfterStep" ? "BeforeStep" : "AfterStep", state: ctx.state, createdAt: ctx.createdAt }), "changed the trigger"],
  ["a context of another run", (ctx) => HookContext.withState(ctx, otherRun), "at state.id: a hook cannot change the run's id"],
  ["metadata that is not JSON", (ctx) => ({ ...ctx, state: { ...ctx.state, metadata: { when: new Date(0) } } }), "at state.metadata.when"],
  ["Object.create(ctx)", (ctx) => Object.create(ctx), "not a plain object"],
]

describe("a custom interceptor's return", () => {
  describe.each(["sync", "effect"] as const)("on the %s path", (path) => {
    describe.each(["BeforeStep", "AfterToolUse", "AfterStep"] as const)("at %s", (trigger) => {
      it.each(bad)("refuses %s: HookFailed naming it, the run ends failed, AfterExecution once, nothing forged kept", async (_, forge, expected) => {
        const { final, seen } = await run(trigger, forge, path)
        expect(final.execution.status).toBe("failed")
        const error = final.execution.errors[0] as AgentError.HookFailed
        expect(error).toMatchObject({ _tag: "HookFailed", hook: "interceptor", trigger })
        expect(error.message).toContain(expected)
        expect(seen.filter((t) => t === "AfterExecution")).toHaveLength(1)
        expect(final.id).not.toBe("another-run")
        expect(unansweredCalls(final.context.messages.toArray())).toEqual([])
        expect(unfrozenPath(final)).toBeUndefined()
        // The state loads back as it is (nothing a store could not keep).
        expect(Codecs.stringifyState(Codecs.parseStateUnsafe(Codecs.stringifyState(final)))).toBe(Codecs.stringifyState(final))
      })
    })

    it("freezes a valid return built by hand, and a frozen shell over mutable parts, before the loop, the next dispatch or the result keeps it", async () => {
      const forges: ReadonlyArray<Forge> = [
        (ctx) => ({ ...ctx, state: { ...ctx.state, metadata: { tags: ["a"] } } }),
        (ctx) => Object.freeze({ ...ctx, state: Object.freeze({ ...ctx.state, metadata: { tags: ["a"] } }) }),
      ]
      for (const forge of forges) {
        const { final, states } = await run("BeforeStep", forge, path)
        expect(final.execution.status).toBe("completed")
        expect(final.metadata).toEqual({ tags: ["a"] })
        for (const state of states) expect(unfrozenPath(state)).toBeUndefined()
        expect(unfrozenPath(final)).toBeUndefined()
      }
    })

    it("keeps a valid change as a hook's (a stop signal, a message at AfterStep)", async () => {
      const { final } = await run("AfterStep", (ctx) => HookContext.withState(ctx, AgentState.appendMessage(ctx.state, Message.user("noted"))), path)
      expect(final.execution.status).toBe("completed")
      expect(final.context.messages.toArray().filter((m) => m.role === "user" && m.content === "noted")).toHaveLength(2)
    })
  })

  it.each(["sync", "effect"] as const)("commits no state a failing interceptor reached from a context it forged (%s)", async (path) => {
    // A stack's failure carries the context its failing hook was given, whose state the
    // loop commits (the hooks before it persist): here one the interceptor forged.
    const failing = HookStack.with(HookStack.empty, () => {
      throw new Error("boom")
    }, { triggers: HookTriggers.all, name: "boom" })
    const forged = (ctx: HookContext): HookContext => ({ ...ctx, state: { ...otherRun, metadata: { forged: [1] } } })
    const interceptor: Interceptor = path === "sync"
      ? { intercept: (ctx) => Effect.succeed(ctx), interceptSync: (ctx, env) => (ctx.trigger === "BeforeStep" ? failing.interceptSync(forged(ctx), env) : ctx) }
      : { intercept: (ctx) => (ctx.trigger === "BeforeStep" ? failing.intercept(forged(ctx)) : Effect.succeed(ctx)) }
    const { final } = await runWith(AgentLoop.make({ interceptor }), [ScriptedDriver.text("hi")])
    expect(final.execution.status).toBe("failed")
    expect(final.execution.errors[0]).toMatchObject({ _tag: "HookFailed", hook: "boom" })
    expect(final.id).not.toBe("another-run")
    expect(final.metadata).toEqual({})
    expect(unfrozenPath(final)).toBeUndefined()
  })
})

// An interceptor that throws (interceptSync), or whose Effect dies or fails with
// something that is not a HookFailed, is user code failing, as a hook that throws: the
// dispatch fails with HookFailed (hook "interceptor") naming what was thrown, bounded;
// the run ends normally.
describe("a custom interceptor that throws, dies or fails with something else", () => {
  const huge = "x".repeat(Truncation.defaultMaxLength * 2)
  const thrown: ReadonlyArray<readonly [string, unknown, string]> = [
    ["an Error", new Error("boom"), "boom"],
    ["a string", "plain string", "plain string"],
    ["undefined", undefined, "undefined"],
    ["a huge string", huge, "xxxx"],
    ["a malformed HookFailed record", { _tag: "HookFailed", hook: 1, message: "forged" }, "forged"],
  ]
  type Way = "interceptSync throws" | "intercept throws" | "its Effect dies" | "its Effect fails"
  const ways: ReadonlyArray<Way> = ["interceptSync throws", "intercept throws", "its Effect dies", "its Effect fails"]
  const throwing = (trigger: HookTrigger, way: Way, value: unknown) => {
    const seen: Array<HookTrigger> = []
    const at = (ctx: HookContext): boolean => {
      seen.push(ctx.trigger)
      return ctx.trigger === trigger
    }
    const interceptor: Interceptor = way === "interceptSync throws"
      ? { intercept: (ctx) => Effect.succeed(ctx), interceptSync: (ctx) => {
        if (at(ctx)) throw value
        return ctx
      } }
      : { intercept: (ctx) => {
        if (!at(ctx)) return Effect.succeed(ctx)
        if (way === "intercept throws") throw value
        return way === "its Effect dies" ? Effect.die(value) : (Effect.fail(value) as never)
      } }
    return { interceptor, seen }
  }

  describe.each(ways)("%s", (way) => {
    describe.each(["BeforeStep", "AfterToolUse", "AfterStep"] as const)("at %s", (trigger) => {
      it.each(thrown)("with %s: HookFailed naming it, bounded, the run ends failed, AfterExecution once, nothing committed lost", async (_, value, expected) => {
        const { interceptor, seen } = throwing(trigger, way, value)
        const { final } = await runWith(AgentLoop.make({ interceptor, tools: [add] }), script())
        expect(final.execution.status).toBe("failed")
        const error = final.execution.errors[0] as AgentError.HookFailed
        expect(error).toMatchObject({ _tag: "HookFailed", hook: "interceptor", trigger })
        expect(error.message).toContain(`hook "interceptor" failed on ${trigger}`)
        expect(error.message).toContain(expected)
        // Cut at the limit, with its marker (…[truncated: N characters, limit L]).
        expect(error.message.length).toBeLessThanOrEqual(Truncation.defaultMaxLength + 80)
        expect(seen.filter((t) => t === "AfterExecution")).toHaveLength(1)
        // The tool's answer, committed before AfterStep, stays.
        if (trigger === "AfterStep") expect(final.context.messages.toArray().some((m) => m.role === "tool")).toBe(true)
        expect(unansweredCalls(final.context.messages.toArray())).toEqual([])
        expect(unfrozenPath(final)).toBeUndefined()
        expect(Codecs.stringifyState(Codecs.parseStateUnsafe(Codecs.stringifyState(final)))).toBe(Codecs.stringifyState(final))
      })
    })
  })
})

it("keeps a well-formed HookFailed a custom interceptor fails with, bounded and rebuilt (no getter kept)", async () => {
  let reads = 0
  const record = {
    _tag: "HookFailed",
    hook: "mine",
    trigger: "BeforeStep",
    get message() {
      reads++
      return "y".repeat(Truncation.defaultMaxLength * 2)
    },
  }
  const interceptor: Interceptor = { intercept: (ctx) => (ctx.trigger === "BeforeStep" ? Effect.fail(record as never) : Effect.succeed(ctx)) }
  const { final } = await runWith(AgentLoop.make({ interceptor }), [ScriptedDriver.text("hi")])
  expect(final.execution.status).toBe("failed")
  const error = final.execution.errors[0] as AgentError.HookFailed
  expect(error).toMatchObject({ _tag: "HookFailed", hook: "mine", trigger: "BeforeStep" })
  expect(error.message.length).toBeLessThanOrEqual(Truncation.defaultMaxLength + 80)
  expect(Object.getOwnPropertyDescriptor(error, "message")?.get).toBeUndefined()
  expect(reads).toBe(1)
})

const notEffects: ReadonlyArray<readonly [string, () => unknown]> = [["undefined", () => undefined], ["a rejected Promise", () => Promise.reject(new Error("async"))]]
it.each(notEffects)("fails the dispatch when intercept returns %s, not an Effect", async (_, value) => {
  const interceptor: Interceptor = { intercept: (ctx) => (ctx.trigger === "BeforeStep" ? (value() as never) : Effect.succeed(ctx)) }
  const { final } = await runWith(AgentLoop.make({ interceptor }), [ScriptedDriver.text("hi")])
  expect(final.execution.status).toBe("failed")
  expect(final.execution.errors[0]).toMatchObject({ _tag: "HookFailed", hook: "interceptor", trigger: "BeforeStep" })
})
