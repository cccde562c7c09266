import { Effect } from "effect"
import { describe, expectTypeOf, it } from "vitest"
import { Hook, type HookContext } from "@hookline/core"

class Missing {
  readonly _tag = "Missing"
}
class Service {
  readonly _tag = "Service"
}

declare const pure: Hook.Hook
declare const ctx: HookContext
declare const needing: Hook.EffectHook<never, Service>

describe("Hook.sequence", () => {
  it("is a pure hook when every hook is pure", () => {
    expectTypeOf(Hook.sequence(pure, pure)).toEqualTypeOf<Hook.Hook<unknown>>()
    expectTypeOf(Hook.sequence()).toEqualTypeOf<Hook.Hook<unknown>>()
  })

  it("is an effectful hook with the errors and services of its effectful hooks", () => {
    const failing = Hook.effect((c: HookContext) => Effect.fail(new Missing()).pipe(Effect.as(c)))
    const seq = Hook.sequence(pure, failing, needing, Hook.promise(async (c) => c))
    expectTypeOf(seq).toExtend<Hook.EffectHook<unknown, Service>>()
    expectTypeOf(seq.run(ctx)).toEqualTypeOf<Effect.Effect<HookContext, unknown, Service>>()
    const typed = Hook.sequence(pure, failing)
    expectTypeOf(typed.run(ctx)).toEqualTypeOf<Effect.Effect<HookContext, Missing, never>>()
  })

  it("refuses an async function as a pure hook", () => {
    // @ts-expect-error: a function returning a Promise is not a Hook; lift it with Hook.promise
    Hook.sequence(pure, async (c: HookContext) => c)
  })
})
