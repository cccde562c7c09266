// Run-level checks of the core's reliability fixes (issue 12, items 1, 4, 5, 8, 11):
// through a real agent run, every run ends (AfterExecution exactly once), with the
// status the hooks' error policy gives, and never with a rejection.
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { AgentState, Codecs, HookContext, HookStack, HookTriggers, Message, Truncation, type Hook, type HookTrigger } from "@hookline/core"
import { AgentLoop } from "@hookline/agent"
import { Rejections, ScriptedDriver } from "@hookline/testing"
import { unansweredCalls } from "./fuzz/properties.js"
import { add, on, runWith, stackOf, trail } from "./support.js"

// Every unhandled rejection while a test runs: the watcher makes the test that caused
// one fail (vitest reports it too, but against no test in particular).
let watcher: Rejections.Watcher
beforeEach(() => void (watcher = Rejections.watch()))
afterEach(() => watcher.stop())

const { proxy: revoked, revoke } = Proxy.revocable({}, {})
revoke()
const trap = () => {
  throw new Error("trap")
}
const hostile = new Proxy({}, { get: trap, has: trap, getPrototypeOf: trap, ownKeys: trap, getOwnPropertyDescriptor: trap })

const script = () => [ScriptedDriver.toolCalls([{ name: "add", arguments: { a: 2, b: 2 } }]), ScriptedDriver.text("4")]

// One bad hook on `trigger` under `onError`, with a trail on every trigger.
const runWithBadHook = async (hook: Hook, trigger: HookTrigger, onError: "fail" | "skip") => {
  const t = trail()
  const stack = HookStack.with(stackOf([t.hook, t.options]), hook, { triggers: trigger, name: "bad", onError })
  const { final } = await runWith(AgentLoop.make({ interceptor: stack, tools: [add] }), script())
  await watcher.settled()
  return { final, seen: t.seen }
}

const badHooks: ReadonlyArray<readonly [string, Hook]> = [
  ["an async function (item 1)", (async () => {
    throw new Error("async boom")
  }) as unknown as Hook],
  ["messages as a plain array (item 4)", (ctx) =>
    ({ ...ctx, state: { ...ctx.state, context: { ...ctx.state.context, messages: [...ctx.state.context.messages] } } }) as unknown as HookContext],
  ["state: null (item 4)", (ctx) => ({ ...ctx, state: null }) as unknown as HookContext],
  ["Object.create(ctx) (item 4)", (ctx) => Object.create(ctx) as HookContext],
  ["a throw of a revoked Proxy (item 5)", () => {
    throw revoked
  }],
  ["a throw of a Proxy whose traps throw (item 5)", () => {
    throw hostile
  }],
  ["a 5 MB message (item 9)", () => {
    throw new Error("m".repeat(5_000_000))
  }],
]

describe("a run with a bad pure hook", () => {
  describe.each(["BeforeStep", "BeforeToolUse", "AfterToolUse", "AfterStep"] as const)("on %s", (trigger) => {
    it.each(badHooks)("ends failed under 'fail' for %s, AfterExecution once, no rejection, bounded", async (_, hook) => {
      const { final, seen } = await runWithBadHook(hook, trigger, "fail")
      expect(final.execution.status).toBe("failed")
      expect(seen.filter((s) => s === "AfterExecution")).toHaveLength(1)
      expect(final.execution.errors.some((e) => e._tag === "HookFailed" && e.hook === "bad")).toBe(true)
      expect(JSON.stringify(final).length).toBeLessThan(4 * Truncation.defaultMaxLength)
      expect(watcher.rejections).toEqual([])
    })

    it.each(badHooks)("completes under 'skip' for %s, AfterExecution once, no rejection", async (_, hook) => {
      const { final, seen } = await runWithBadHook(hook, trigger, "skip")
      expect(final.execution.status).toBe("completed")
      expect(seen.filter((s) => s === "AfterExecution")).toHaveLength(1)
      expect(final.context.messages.length).toBe(4)
      expect(watcher.rejections).toEqual([])
    })
  })
})

describe("a later hook that hand-builds another block (item 8)", () => {
  it("cannot change the reason the model reads", async () => {
    const deny: Hook = (ctx) => HookContext.withToolExecutionBlocked(ctx, "payments are disabled")
    const glitch: Hook = (ctx) =>
      ({ ...ctx, toolExecution: { ...ctx.toolExecution!, reason: "temporary glitch, call it again" } }) as HookContext
    const { final } = await runWith(
      AgentLoop.make({
        interceptor: stackOf([deny, on("BeforeToolUse", "deny", 10)], [glitch, on("BeforeToolUse", "glitch")], [glitch, on("AfterToolUse", "glitch")]),
        tools: [add],
      }),
      script(),
    )
    const toolMessage = [...final.context.messages].find((m) => m.role === "tool")
    expect(toolMessage?.content).toBe("Blocked: payments are disabled")
    expect(final.execution.status).toBe("completed")
  })
})

describe("AfterExecution hooks under 'fail' (item 11)", () => {
  it("all run, like finally: a failing telemetry hook does not skip the persistence hook; each failure is recorded", async () => {
    const saved: Array<AgentState> = []
    const telemetry: Hook = () => {
      throw new Error("telemetry down")
    }
    const persist: Hook = (ctx) => {
      saved.push(ctx.state)
      return ctx
    }
    const audit: Hook = () => {
      throw new Error("audit down")
    }
    const { final } = await runWith(
      AgentLoop.make({
        interceptor: stackOf(
          [telemetry, on("AfterExecution", "telemetry", 20)],
          [persist, on("AfterExecution", "persist", 10)],
          [audit, on("AfterExecution", "audit", 0)],
        ),
        tools: [add],
      }),
      script(),
    )
    expect(saved).toHaveLength(1)
    expect(final.execution.status).toBe("completed")
    expect(final.execution.errors.map((e) => e._tag === "HookFailed" && e.hook)).toEqual(["telemetry", "audit"])
  })

  it("keeps the state edits of the hooks that ran after a failing one", async () => {
    const fail: Hook = () => {
      throw new Error("x")
    }
    const mark: Hook = (ctx) => HookContext.updateState(ctx, (d) => void (d.metadata["persisted"] = true))
    const { final } = await runWith(
      AgentLoop.make({ interceptor: stackOf([fail, on("AfterExecution", "fail", 1)], [mark, { triggers: HookTriggers.of("AfterExecution"), name: "mark" }]) }),
      [ScriptedDriver.text("hi")],
    )
    expect(final.metadata).toEqual({ persisted: true })
  })
})

describe("a hook that puts a message between tool calls and their results", () => {
  const interject: Hook = (ctx) => HookContext.withState(ctx, AgentState.appendMessage(ctx.state, Message.user("by the way")))

  it.each(["BeforeToolUse", "AfterToolUse"] as const)("fails the run at %s with HookFailed naming the hook and the index; the history stays whole", async (trigger) => {
    const { final, seen } = await runWithBadHook(interject, trigger, "fail")
    expect(final.execution.status).toBe("failed")
    expect(final.execution.errors[0]).toMatchObject({
      _tag: "HookFailed",
      hook: "bad",
      trigger,
      message: expect.stringContaining("state.context.messages[2]: a user message comes between the tool calls of the assistant message at state.context.messages[1]"),
    })
    expect(seen.filter((t) => t === "AfterExecution")).toHaveLength(1)
    // The call still has its one answer, right after the assistant message.
    const messages = final.context.messages.toArray()
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "tool"])
    expect(unansweredCalls(messages)).toEqual([])
    expect(messages.some((m) => m.role === "user" && m.content === "by the way")).toBe(false)
    expect(watcher.rejections).toEqual([])
  })

  it("goes on under 'skip' as if the hook had returned its input, and the model never reads a split history", async () => {
    const t = trail()
    const stack = HookStack.with(stackOf([t.hook, t.options]), interject, { triggers: HookTriggers.of("BeforeToolUse", "AfterToolUse"), name: "bad", onError: "skip" })
    const { final, driver } = await runWith(AgentLoop.make({ interceptor: stack, tools: [add] }), script())
    expect(final.execution.status).toBe("completed")
    for (const request of driver.requests) expect(unansweredCalls(request.messages.toArray())).toEqual([])
    expect(final.context.messages.toArray().map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"])
  })

  it("may add the message once every call is answered (AfterStep)", async () => {
    const { final } = await runWithBadHook(interject, "AfterStep", "fail")
    expect(final.execution.status).toBe("completed")
    expect(final.context.messages.toArray().map((m) => m.role)).toEqual(["user", "assistant", "tool", "user", "assistant", "user"])
  })
})

describe("a hook that suspends a call with forged data (issue 22)", () => {
  const cyclic: Record<string, unknown> = { a: 1 }
  cyclic["self"] = cyclic
  const forged: ReadonlyArray<readonly [string, Hook, string]> = [
    ["a cyclic payload", (ctx) => HookContext.suspend(ctx, "approve", cyclic as never), "state.execution.pendingCalls[0].payload"],
    ["a payload with NaN", (ctx) => HookContext.suspend(ctx, "approve", { amount: Number.NaN }), "state.execution.pendingCalls[0].payload.amount"],
    ["a reason that is not a string", (ctx) => HookContext.suspend(ctx, 42 as never), "state.execution.pendingCalls[0].reason"],
  ]

  it.each(forged)("refuses %s: HookFailed naming the hook and the field; the run ends normally, nothing waits, and its state loads", async (_, hook, field) => {
    const { final, seen } = await runWithBadHook(hook, "BeforeToolUse", "fail")
    expect(final.execution.status).toBe("failed")
    expect(final.execution.errors[0]).toMatchObject({ _tag: "HookFailed", hook: "bad", trigger: "BeforeToolUse", message: expect.stringContaining(field) })
    expect(final.execution.pendingCalls).toBeUndefined()
    expect(seen.filter((t) => t === "AfterExecution")).toHaveLength(1)
    expect(unansweredCalls(final.context.messages.toArray())).toEqual([])
    expect(Codecs.stringifyState(Codecs.parseStateUnsafe(Codecs.stringifyState(final)))).toBe(Codecs.stringifyState(final))
    expect(watcher.rejections).toEqual([])
  })

  it.each(forged)("passes over %s under 'skip': the call runs as if the hook were absent", async (_, hook) => {
    const { final } = await runWithBadHook(hook, "BeforeToolUse", "skip")
    expect(final.execution.status).toBe("completed")
    expect(final.context.messages.toArray().map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"])
  })
})
