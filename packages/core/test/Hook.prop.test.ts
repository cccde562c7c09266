import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { AgentState, Hook, HookContext, Message, StopSignal } from "@hookline/core"
import * as Arb from "./arbitraries.js"

// A family of pure hooks, so that laws can be checked on random ones.
const pureHook: fc.Arbitrary<Hook> = fc.oneof(
  fc.constant(Hook.identity),
  fc.string({ maxLength: 3 }).map((k): Hook => (ctx) => HookContext.withMetadata(ctx, { [`k${k}`]: ctx.state.context.messages.length })),
  fc.string({ maxLength: 3 }).map((t): Hook => (ctx) => HookContext.withState(ctx, AgentState.appendMessage(ctx.state, Message.user(t)))),
  fc.constant<Hook>((ctx) => HookContext.withStopSignal(ctx, StopSignal.make("StopRequested", "stop", "prop"))),
  fc.constant<Hook>((ctx) => HookContext.withToolExecutionBlocked(ctx, "blocked")),
  fc.constant<Hook>((ctx) => HookContext.withToolResult(ctx, "synthetic")),
)

// Hooks are compared by what they do: same output on the same input.
const sameOn = (ctx: HookContext, f: Hook, g: Hook) => expect(g(ctx)).toEqual(f(ctx))

describe("Hook", () => {
  describe("Monoid", () => {
    it("composes associatively", () => {
      fc.assert(
        fc.property(Arb.hookContext(), pureHook, pureHook, pureHook, (ctx, f, g, h) => {
          const { concat } = Hook.Monoid
          sameOn(ctx, concat(concat(f, g), h), concat(f, concat(g, h)))
        }),
      )
    })

    it("has the identity as its unit on both sides", () => {
      fc.assert(
        fc.property(Arb.hookContext(), pureHook, (ctx, f) => {
          const { concat, empty } = Hook.Monoid
          sameOn(ctx, f, concat(empty, f))
          sameOn(ctx, f, concat(f, empty))
        }),
      )
    })

    it("makes sequence equal to a fold of concat", () => {
      fc.assert(
        fc.property(Arb.hookContext(), fc.array(pureHook, { maxLength: 5 }), (ctx, hooks) => {
          sameOn(ctx, hooks.reduce(Hook.Monoid.concat, Hook.Monoid.empty), Hook.sequence(...hooks))
        }),
      )
    })
  })
})
