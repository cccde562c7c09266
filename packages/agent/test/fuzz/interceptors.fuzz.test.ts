// Custom interceptors returning bad values (interceptors.ts), generated: the run ends
// normally with the typed error, and nothing mutable leaks.
//
//   FUZZ_INTERCEPTOR_RUNS=5000 npx vitest run packages/agent/test/fuzz/interceptors.fuzz.test.ts   more cases (default 300)
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { env } from "./env.js"
import { interceptorCase, interceptorViolations, runInterceptorCase } from "./interceptors.js"

const runs = Number(env("FUZZ_INTERCEPTOR_RUNS") ?? 300)
const seed = env("FUZZ_SEED") === undefined ? undefined : Number(env("FUZZ_SEED"))

describe("custom interceptors returning bad values (fuzz)", () => {
  it(`end every run normally with the typed error, and leak nothing mutable, over ${runs} cases`, async () => {
    await fc.assert(
      fc.asyncProperty(interceptorCase, async (c) => {
        const recording = await runInterceptorCase(c)
        expect(interceptorViolations(c, recording)).toEqual([])
      }),
      { numRuns: runs, seed },
    )
  }, 300_000)
})
