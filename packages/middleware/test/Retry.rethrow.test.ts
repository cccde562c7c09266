// A fallback written with Promises rethrows what `Driver.toPromise` threw; the 429 it
// carries must still reach UseModelRetry as a 429, so the call is retried.
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { AgentError, InferenceResponse } from "@hookline/core"
import { AgentBuilder, Driver, UseDriver } from "@hookline/agent"
import { UseModelRetry } from "@hookline/middleware"

describe("UseModelRetry through a Promise driver that rethrows", () => {
  it("retries a 429 that toPromise threw and the driver rethrew", async () => {
    let calls = 0
    const provider = Driver.toPromise(Driver.make({
      generate: () => {
        calls++
        return calls === 1
          ? Effect.fail(AgentError.inferenceFailed("rate limited", { status: 429 }))
          : Effect.succeed(InferenceResponse.make({ text: "ok" }))
      },
    }))
    const rethrowing = Driver.fromPromise({
      generate: (request, options) => provider.generate(request, options).catch((thrown: unknown) => Promise.reject(thrown)),
    })
    const final = await AgentBuilder.make(
      UseDriver(rethrowing),
      UseModelRetry({ maxAttempts: 2, initialDelayMs: 0, jitter: 0 }),
    ).run("hi")
    expect(final.execution.errors).toEqual([])
    expect(final.execution.status).toBe("completed")
    expect(calls).toBe(2)
  })
})
