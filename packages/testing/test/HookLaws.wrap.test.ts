import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { HookContext, InferenceResponse, WrapHook } from "@hookline/core"
import { HookLaws } from "@hookline/testing"

// Pure apart from next: calls again after a failure, at most 3 times.
const retry = WrapHook.inference<never>((ctx, next) => {
  const attempt = (n: number): ReturnType<typeof next> => Effect.catch(next(ctx), (e) => (n < 3 ? attempt(n + 1) : Effect.fail(e)))
  return attempt(1)
})

const lawFailure = (f: () => void): HookLaws.LawFailed => {
  try {
    f()
  } catch (error) {
    if (error instanceof HookLaws.LawFailed) return error
    throw error
  }
  throw new Error("expected a LawFailed")
}

describe("HookLaws", () => {
  describe("checkWrap", () => {
    it("passes wrap hooks that are pure apart from next: retry, answer itself, edit the context", () => {
      HookLaws.checkWrap(retry, { numRuns: 50 })
      HookLaws.checkWrap(WrapHook.inference<never>(() => Effect.succeed(InferenceResponse.make({ text: "cached" }))), { numRuns: 20 })
      HookLaws.checkWrap(
        WrapHook.toolUse<never>((ctx, next) => next(HookContext.withMetadata(ctx, { wrapped: true }))),
        { numRuns: 20 },
      )
    })

    it("fails a wrap hook whose answers differ from run to run", () => {
      let n = 0
      const counting = WrapHook.inference<never>((ctx, next) => (n++ % 2 === 0 ? next(ctx) : Effect.flatMap(next(ctx), () => next(ctx))))
      const failure = lawFailure(() => HookLaws.checkWrap(counting, { name: "counting", numRuns: 20 }))
      expect(failure.law).toBe("wrapPure")
      expect(failure.message).toMatch(/HookLaws.wrapPure failed for "counting" on WrapInference/)
    })

    it("fails a wrap hook that passes next a context of another trigger", () => {
      const wrong = WrapHook.inference<never>((ctx, next) => next({ ...ctx, trigger: "AfterInference" }))
      expect(lawFailure(() => HookLaws.checkWrap(wrong, { numRuns: 10 })).reason).toMatch(/not a BeforeInference context/)
    })

    it("fails a wrap hook that waits on the clock", () => {
      const sleepy = WrapHook.inference<never>((ctx, next) => Effect.andThen(Effect.sleep(10), next(ctx)))
      expect(lawFailure(() => HookLaws.checkWrap(sleepy, { numRuns: 5 })).reason).toMatch(/waited/)
    })
  })
})
