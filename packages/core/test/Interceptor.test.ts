import { Effect } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { AgentState, HookContext, HookStack, Interceptor, PassThroughInterceptor } from "@hookline/core"
import * as Arb from "./arbitraries.js"

const ctx = HookContext.make({ trigger: "BeforeStep", state: AgentState.make({ id: "s" }), createdAt: 0 })

describe("Interceptor", () => {
  describe("PassThroughInterceptor", () => {
    it("returns every context as the same reference", async () => {
      await fc.assert(
        fc.asyncProperty(Arb.hookContext(), async (c) => {
          expect(await Effect.runPromise(PassThroughInterceptor.intercept(c))).toBe(c)
          expect(PassThroughInterceptor.interceptSync?.(c)).toBe(c)
        }),
        { numRuns: 50 },
      )
    })
  })

  describe("fromStack", () => {
    it("intercepts with the stack's hooks", async () => {
      const stack = HookStack.with(HookStack.empty, (c) => HookContext.withMetadata(c, { seen: true }), { triggers: "BeforeStep", name: "m" })
      const out = await Effect.runPromise(Interceptor.fromStack(stack).intercept(ctx))
      expect(out.metadata).toEqual({ seen: true })
    })
  })

  describe("make", () => {
    it("wraps a user's own interception", async () => {
      const custom = Interceptor.make((c) => Effect.succeed(HookContext.withMetadata(c, { custom: 1 })))
      expect((await Effect.runPromise(Interceptor.run(custom, ctx))).metadata).toEqual({ custom: 1 })
    })
  })

  describe("run", () => {
    it("takes the synchronous path when the interceptor offers one", async () => {
      let effectPath = 0
      const interceptor: Interceptor = {
        intercept: (c) => Effect.sync(() => (effectPath++, c)),
        interceptSync: (c) => HookContext.withMetadata(c, { sync: true }),
      }
      expect((await Effect.runPromise(Interceptor.run(interceptor, ctx))).metadata).toEqual({ sync: true })
      expect(effectPath).toBe(0)
    })

    it("falls back to intercept when the synchronous path declines", async () => {
      const interceptor: Interceptor = {
        intercept: (c) => Effect.succeed(HookContext.withMetadata(c, { effect: true })),
        interceptSync: () => undefined,
      }
      expect((await Effect.runPromise(Interceptor.run(interceptor, ctx))).metadata).toEqual({ effect: true })
    })

    it("turns a HookFailed thrown by the synchronous path into a typed failure", async () => {
      const stack = HookStack.with(HookStack.empty, () => {
        throw new Error("x")
      }, { triggers: "BeforeStep", name: "bad" })
      const error = await Effect.runPromise(Effect.flip(Interceptor.run(stack, ctx)))
      expect(error).toMatchObject({ _tag: "HookFailed", hook: "bad", trigger: "BeforeStep" })
    })
  })
})
