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

    // A custom interceptor is user code: `run` answers as the loop does (run/dispatch.ts),
    // whatever it throws, dies with or returns is `HookFailed{ hook: "interceptor" }`.
    describe("answers a custom interceptor's failure as the loop does", () => {
      const failing: ReadonlyArray<readonly [string, Interceptor]> = [
        ["interceptSync throws an Error", { intercept: Effect.succeed, interceptSync: () => {
          throw new Error("sync boom")
        } }],
        ["interceptSync throws a string", { intercept: Effect.succeed, interceptSync: () => {
          throw "sync string"
        } }],
        ["intercept throws", { intercept: () => {
          throw new Error("intercept boom")
        } }],
        ["intercept dies", { intercept: () => Effect.die(new Error("died")) }],
        ["intercept fails with an Error", { intercept: () => Effect.fail(new Error("failed") as never) }],
        ["intercept returns no Effect", { intercept: () => Promise.resolve(ctx) as never }],
        ["intercept returns something that is not a context", { intercept: () => Effect.succeed({ trigger: "BeforeStep" } as never) }],
        ["interceptSync returns another run's context", { intercept: Effect.succeed, interceptSync: (c) => HookContext.withState(c, AgentState.make({ id: "other" })) }],
      ]
      it.each(failing)("%s", async (_, interceptor) => {
        const exit = await Effect.runPromiseExit(Interceptor.run(interceptor, ctx))
        expect(exit._tag).toBe("Failure")
        const error = await Effect.runPromise(Effect.flip(Interceptor.run(interceptor, ctx)))
        expect(error).toMatchObject({ _tag: "HookFailed", hook: "interceptor", trigger: "BeforeStep" })
        expect(Object.isFrozen(error)).toBe(true)
      })

      it("keeps a HookFailed the interceptor raises, and an interruption", async () => {
        const raised = { intercept: () => Effect.fail({ _tag: "HookFailed", hook: "mine", trigger: "BeforeStep", message: "m" } as const) }
        expect(await Effect.runPromise(Effect.flip(Interceptor.run(raised, ctx)))).toMatchObject({ hook: "mine", message: "m" })
        const interrupted = await Effect.runPromiseExit(Interceptor.run({ intercept: () => Effect.interrupt }, ctx))
        expect(interrupted._tag).toBe("Failure")
      })

      it("lets a valid return through, frozen", async () => {
        const custom: Interceptor = { intercept: (c) => Effect.succeed({ ...c, metadata: { n: [1] } } as HookContext) }
        const out = await Effect.runPromise(Interceptor.run(custom, ctx))
        expect(out.metadata).toEqual({ n: [1] })
        expect(Object.isFrozen(out.metadata["n"])).toBe(true)
      })
    })
  })
})
