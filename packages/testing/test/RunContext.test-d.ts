import fc from "fast-check"
import { describe, expectTypeOf, it } from "vitest"
import { Hook as Hooks, HookContext, type Hook } from "@hookline/core"
import { Arbitraries, HookLaws } from "@hookline/testing"
import { callers, viewersNoShell, type Caller } from "./hooks.js"

const runContext = callers

describe("the kit is generic in the run context", () => {
  it("checks a Hook<C> with its run context's generator, no cast", () => {
    expectTypeOf(HookLaws.check(viewersNoShell, { triggers: "BeforeToolUse", arbitraries: { runContext } })).toEqualTypeOf<HookLaws.Report>()
    HookLaws.check(viewersNoShell, { arbitraries: { runContext, toolNames: ["shell"] }, idempotent: true, independentOf: [viewersNoShell] })
    HookLaws.immutable(viewersNoShell, { arbitraries: { runContext } })
    HookLaws.deterministic(viewersNoShell, { arbitraries: { runContext } })
    HookLaws.guardStaysFired(viewersNoShell, { arbitraries: { runContext }, source: "x" })
    HookLaws.commutes(viewersNoShell, viewersNoShell, { arbitraries: { runContext } })
    expectTypeOf(HookLaws.verify(HookLaws.laws.immutable, viewersNoShell, { arbitraries: { runContext } })).toEqualTypeOf<HookLaws.LawFailed | undefined>()
  })

  it("types an inline hook's context from the generator", () => {
    HookLaws.check((ctx) => {
      expectTypeOf(ctx.runContext).toEqualTypeOf<{ role: "admin" | "viewer" }>()
      return ctx
    }, { arbitraries: { runContext } })
  })

  it("checks a Hook<C> on contexts given as HookContext<C>", () => {
    const contexts = Arbitraries.hookContext("BeforeToolUse", { runContext })
    expectTypeOf(contexts).toEqualTypeOf<fc.Arbitrary<HookContext<{ role: "admin" | "viewer" }>>>()
    HookLaws.check(viewersNoShell, { contexts })
  })

  it("checks an effectful Hook<C> the same way", () => {
    const effectful = Hooks.promise(async (ctx: HookContext<Caller>) => viewersNoShell(ctx))
    expectTypeOf(HookLaws.checkEffect(effectful, { arbitraries: { runContext } })).toEqualTypeOf<Promise<HookLaws.Report>>()
  })

  it("keeps Hook (any run context) checkable without a generator", () => {
    const plain: Hook = (ctx) => ctx
    HookLaws.check(plain)
    HookLaws.check(plain, { triggers: "BeforeStep" })
    HookLaws.check(plain, { arbitraries: { runContext } })
    expectTypeOf(Arbitraries.hookContext("BeforeStep")).toEqualTypeOf<fc.Arbitrary<HookContext>>()
    expectTypeOf(Arbitraries.blockedHookContext(undefined, { runContext })).toEqualTypeOf<fc.Arbitrary<HookContext<{ role: "admin" | "viewer" }>>>()
  })

  it("rejects a Hook<C> checked without its run context's generator", () => {
    // @ts-expect-error the laws would call it with an absent or JSON run context
    HookLaws.check(viewersNoShell)
    // @ts-expect-error the same with other options
    HookLaws.check(viewersNoShell, { triggers: "BeforeToolUse", arbitraries: { toolNames: ["shell"] } })
    // @ts-expect-error each law function asks for it too
    HookLaws.immutable(viewersNoShell)
    // @ts-expect-error and checkEffect
    void HookLaws.checkEffect(Hooks.promise(async (ctx: HookContext<Caller>) => viewersNoShell(ctx)))
  })

  it("rejects a generator of another shape", () => {
    // @ts-expect-error a number is not a Caller
    HookLaws.check(viewersNoShell, { arbitraries: { runContext: fc.integer() } })
    // @ts-expect-error a role outside the union
    HookLaws.check(viewersNoShell, { arbitraries: { runContext: fc.record({ role: fc.constant("root") }) } })
    // @ts-expect-error contexts of another run context
    HookLaws.check(viewersNoShell, { contexts: Arbitraries.hookContext("BeforeToolUse", { runContext: fc.integer() }) })
    // @ts-expect-error a Hook<C> is not independent of a hook of another run context
    HookLaws.check(viewersNoShell, { arbitraries: { runContext }, independentOf: (ctx: HookContext<number>) => ctx })
  })
})
