import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { AgentState, Guards, HookContext, InferenceResponse, Step, Usage, type Hook } from "@hookline/core"
import * as Arb from "./arbitraries.js"

// The guards' inputs only grow as a run goes on: more steps, more tokens, later clock.
const progress = (ctx: HookContext, steps: number, tokens: number, ms: number, finish: InferenceResponse.FinishReason) => {
  let state = ctx.state
  for (let i = 0; i < steps; i++) {
    state = AgentState.appendStep(
      state,
      Step.make({ index: AgentState.stepCount(state), startedAt: 0, usage: Usage.make(tokens, 0), response: InferenceResponse.make({ finishReason: finish }) }),
    )
  }
  return HookContext.make({ trigger: ctx.trigger, state, createdAt: ctx.createdAt + ms })
}

const guard: fc.Arbitrary<[string, Hook]> = fc.oneof(
  fc.nat(6).map((n): [string, Hook] => ["guard:steps_limit", Guards.stepsLimit(n)]),
  fc.nat(20_000).map((n): [string, Hook] => ["guard:token_limit", Guards.tokenLimit(n)]),
  fc.nat(10_000).map((n): [string, Hook] => ["guard:time_limit", Guards.timeLimit(n)]),
  fc.subarray([...InferenceResponse.finishReasons], { minLength: 1 }).map((r): [string, Hook] => ["guard:finish_reason", Guards.finishReason(r)]),
)

const fired = (ctx: HookContext, source: string) => ctx.state.execution.stopSignals.some((s) => s.source === source)

describe("Guards", () => {
  it("leave their input unchanged and return frozen data", () => {
    fc.assert(
      fc.property(guard, Arb.hookContext(), ([, g], ctx) => {
        const before = JSON.stringify(ctx)
        const out = g(ctx)
        expect(JSON.stringify(ctx)).toBe(before)
        expect(Arb.isDeepFrozen(out)).toBe(true)
        expect(out.trigger).toBe(ctx.trigger)
      }),
    )
  })

  it("are monotone: once fired, they stay fired as the run goes on", () => {
    fc.assert(
      fc.property(
        guard,
        Arb.hookContext("BeforeStep"),
        fc.nat(3),
        fc.nat(5_000),
        fc.nat(10_000),
        fc.constantFrom(...InferenceResponse.finishReasons),
        ([source, g], ctx, steps, tokens, ms, finish) => {
          const first = g(ctx)
          fc.pre(fired(first, source))
          expect(fired(g(progress(first, steps, tokens, ms, finish)), source)).toBe(true)
        },
      ),
    )
  })

  it("are deterministic", () => {
    fc.assert(
      fc.property(guard, Arb.hookContext(), ([, g], ctx) => {
        expect(g(ctx)).toEqual(g(ctx))
      }),
    )
  })
})
