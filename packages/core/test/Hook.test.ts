import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { AgentError, AgentState, Hook, HookContext, HookStack, Message } from "@hookline/core"

const state = AgentState.make({ id: "s", messages: [Message.user("hi")] })
const toolCtx = (name: string) =>
  HookContext.make({ trigger: "BeforeToolUse", state, createdAt: 10, toolCall: { id: "c1", name, arguments: {} } })
const tag = (key: string): Hook => (ctx) => HookContext.withMetadata(ctx, { [key]: true })

describe("Hook", () => {
  describe("identity", () => {
    it("returns its input", () => {
      const ctx = toolCtx("x")
      expect(Hook.identity(ctx)).toBe(ctx)
    })
  })

  describe("observe", () => {
    it("runs the side effect and returns the same context", () => {
      const seen: Array<string> = []
      const ctx = toolCtx("x")
      expect(Hook.observe((c) => seen.push(c.trigger))(ctx)).toBe(ctx)
      expect(seen).toEqual(["BeforeToolUse"])
    })
  })

  describe("sequence", () => {
    it("runs hooks left to right, each on the previous output", () => {
      const order: Array<string> = []
      const step = (n: string): Hook => (ctx) => {
        order.push(n)
        return tag(n)(ctx)
      }
      const out = Hook.sequence(step("a"), step("b"), step("c"))(toolCtx("x"))
      expect(order).toEqual(["a", "b", "c"])
      expect(out.metadata).toEqual({ a: true, b: true, c: true })
    })

    it("is the identity when empty", () => {
      const ctx = toolCtx("x")
      expect(Hook.sequence()(ctx)).toBe(ctx)
    })
  })

  describe("sequence of effectful hooks", () => {
    const run = (hook: Hook.AnyHook<unknown, never>, ctx: HookContext) =>
      Effect.runPromise(HookStack.intercept(HookStack.with(HookStack.empty, hook, { triggers: "BeforeToolUse", name: "seq" }), ctx))

    it("runs an Effect or Promise hook in order with the pure ones: the sequence is effectful", async () => {
      const order: Array<string> = []
      const step = (n: string): Hook => (ctx) => {
        order.push(n)
        return tag(n)(ctx)
      }
      const later = Hook.promise(async (ctx) => {
        await Promise.resolve()
        order.push("p")
        return tag("p")(ctx)
      })
      const viaEffect = Hook.effect((ctx) => Effect.sync(() => (order.push("e"), tag("e")(ctx))))
      const seq = Hook.sequence(step("a"), later, step("b"), viaEffect)
      expect(Hook.isEffectHook(seq)).toBe(true)
      const out = await run(seq, toolCtx("x"))
      expect(order).toEqual(["a", "p", "b", "e"])
      expect(out.metadata).toEqual({ a: true, p: true, b: true, e: true })
    })

    it("fails with the effectful hook's error, and a throw of a pure hook in it is a failure of the sequence", async () => {
      const failing = Hook.sequence(tag("a"), Hook.effect(() => Effect.fail("boom")))
      await expect(run(failing, toolCtx("x"))).rejects.toMatchObject({ _tag: "HookFailed", hook: "seq", message: expect.stringContaining("boom") })
      const throwing = Hook.sequence(Hook.promise(async (ctx) => ctx), () => {
        throw new Error("pure boom")
      })
      await expect(run(throwing, toolCtx("x"))).rejects.toMatchObject({ _tag: "HookFailed", message: expect.stringContaining("pure boom") })
    })

    it("refuses an async function given as a pure hook, naming its place and the fix", () => {
      const asyncHook = (async (ctx: HookContext) => ctx) as unknown as Hook
      let error: unknown
      try {
        Hook.sequence(tag("a"), asyncHook)
      } catch (e) {
        error = e
      }
      expect(error).toBeInstanceOf(AgentError.HooklineError)
      expect((error as AgentError.HooklineError).error).toMatchObject({
        _tag: "InvalidConfiguration",
        path: "hooks[1]",
        message: expect.stringContaining("Hook.promise"),
      })
      expect(() => Hook.sequence(tag("a"), 42 as unknown as Hook)).toThrow(expect.objectContaining({ error: expect.objectContaining({ path: "hooks[1]" }) }))
    })

    it("fails clearly when a pure hook returns a Promise before another hook, which never sees it", async () => {
      let rejected = 0
      const seen: Array<unknown> = []
      // Not an async function, so not caught when composing: found when it returns.
      const sneaky = ((ctx: HookContext) => Promise.reject(new Error("later")).finally(() => rejected++).then(() => ctx)) as unknown as Hook
      const next: Hook = (ctx) => (seen.push(ctx), ctx)
      const seq = Hook.sequence(sneaky, next)
      expect(() => seq(toolCtx("x"))).toThrow(/hooks\[0\] of Hook\.sequence returned a Promise.*Hook\.promise/)
      expect(seen).toEqual([])
      await expect(run(seq, toolCtx("x"))).rejects.toMatchObject({ _tag: "HookFailed", message: expect.stringContaining("hooks[0] of Hook.sequence returned a Promise") })
      expect(seen).toEqual([])
      // Its rejection is handled (an unhandled one would fail this file).
      await new Promise((resolve) => setTimeout(resolve, 0))
      expect(rejected).toBe(2)
    })
  })

  describe("when", () => {
    it("runs the hook only where the predicate holds", () => {
      const hook = Hook.when((ctx) => ctx.toolCall?.name === "a", tag("hit"))
      expect(hook(toolCtx("a")).metadata).toEqual({ hit: true })
      const other = toolCtx("b")
      expect(hook(other)).toBe(other)
    })

    it("keeps an effectful hook effectful", async () => {
      const hook = Hook.when(() => true, Hook.effect((ctx) => Effect.succeed(tag("e")(ctx))))
      expect(Hook.isEffectHook(hook)).toBe(true)
      const out = await Effect.runPromise(hook.run(toolCtx("a")))
      expect(out.metadata).toEqual({ e: true })
    })
  })

  describe("forTools", () => {
    it("runs the hook for the named tools only", () => {
      const hook = Hook.forTools(["shell", "rm"], (ctx) => HookContext.withToolExecutionBlocked(ctx, "no"))
      expect(hook(toolCtx("rm")).toolExecutionBlocked).toBe(true)
      expect(hook(toolCtx("ls")).toolExecutionBlocked).toBe(false)
    })

    it("passes contexts without a tool call through", () => {
      const hook = Hook.forTools(["shell"], tag("x"))
      const ctx = HookContext.make({ trigger: "BeforeStep", state, createdAt: 0 })
      expect(hook(ctx)).toBe(ctx)
    })
  })

  describe("promise", () => {
    it("lifts an async function into an effectful hook", async () => {
      const hook = Hook.promise(async (ctx) => tag("async")(ctx))
      const out = await Effect.runPromise(hook.run(toolCtx("a")))
      expect(out.metadata).toEqual({ async: true })
    })

    it("aborts the signal it gave the function when the effect is interrupted", async () => {
      let aborted = false
      const hook = Hook.promise((ctx, signal) =>
        new Promise((resolve) => {
          signal.addEventListener("abort", () => {
            aborted = true
          })
          setTimeout(() => resolve(ctx), 5_000)
        })
      )
      const exit = await Effect.runPromiseExit(hook.run(toolCtx("a")).pipe(Effect.timeout("10 millis")))
      expect(exit._tag).toBe("Failure")
      expect(aborted).toBe(true)
    })
  })

  describe("isHook", () => {
    it("accepts functions and effect hooks and rejects anything else", () => {
      expect(Hook.isHook(Hook.identity)).toBe(true)
      expect(Hook.isHook(Hook.effect((c) => Effect.succeed(c)))).toBe(true)
      expect(Hook.isHook({ run: () => 1 })).toBe(false)
      expect(Hook.isHook(HookStack.empty)).toBe(false)
    })
  })
})
