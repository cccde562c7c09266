import { Arbitraries } from "@hookline/testing"
import { Effect, Exit, Stream } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { isEffect } from "../src/internal/isEffect.js"

// Effects of every kind the run meets: primitives, exits, compositions, a generator's,
// a service key, a tagged error (errors are yieldable Effects).
const effects = fc.oneof(
  fc.anything().map((a) => Effect.succeed(a)),
  fc.anything().map((e) => Effect.fail(e)),
  fc.anything().map((a) => Exit.succeed(a)),
  fc.anything().map((a) => Effect.map(Effect.sync(() => a), (x) => [x])),
  fc.constant(Effect.gen(function*() {
    return yield* Effect.succeed(1)
  })),
  fc.constant(Effect.callback<number>((resume) => resume(Effect.succeed(1)))),
  fc.constant(Effect.never),
  fc.constant(Effect.void),
  fc.constant(Stream.runCollect(Stream.make(1))),
)

describe("isEffect", () => {
  it("agrees with Effect.isEffect on Effects and on the run's plain values", () => {
    fc.assert(fc.property(fc.oneof(effects, Arbitraries.hookContext(), fc.object(), fc.array(fc.anything())), (u) => {
      expect(isEffect(u as object)).toBe(Effect.isEffect(u))
    }))
  })
})
