// A driver that rethrows what `Driver.toPromise` threw (a fallback written with
// Promises) keeps the error it was given: `inferenceFailed` unwraps the HooklineError
// before it takes any tagged object as an AgentError, so status, retryable and
// Retry-After survive the round trip, whatever their values.
import fc from "fast-check"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { AgentError, InferenceRequest, Message } from "@hookline/core"
import { Driver } from "@hookline/agent"

const request = InferenceRequest.make({ messages: [Message.user("hi")] })

const inferenceFailure = fc
  .record({
    message: fc.string({ maxLength: 40 }),
    status: fc.option(fc.integer({ min: 400, max: 599 }), { nil: undefined }),
    retryable: fc.boolean(),
    retryAfterMs: fc.option(fc.nat(120_000), { nil: undefined }),
  })
  .map(({ message, ...options }) => AgentError.inferenceFailed(message, options))

describe("Driver.inferenceFailed", () => {
  it("unwraps the HooklineError that toPromise throws, keeping every field", () => {
    fc.assert(
      fc.property(inferenceFailure, (error) => {
        expect(Driver.inferenceFailed(new AgentError.HooklineError(error))).toEqual(error)
      }),
    )
  })

  it("keeps the error through a driver that rethrows what toPromise threw", async () => {
    await fc.assert(
      fc.asyncProperty(inferenceFailure, async (error) => {
        const inner = Driver.toPromise(Driver.make({ generate: () => Effect.fail(error) }))
        const rethrowing = Driver.fromPromise({
          generate: (req, options) => inner.generate(req, options).catch((thrown: unknown) => Promise.reject(thrown)),
        })
        const failed = await Effect.runPromise(Effect.flip(rethrowing.generate(request, { signal: new AbortController().signal })))
        expect(failed).toEqual(error)
      }),
      { numRuns: 50 },
    )
  })
})
