// Lost-lease refusals (leases.ts): a store that refuses a run's commits because its lease
// is held, lost or taken, or another owner moved its head mid-run; on stores that end a
// run in one statement (a final answer's step held for the end) and stores that do not;
// with writes that take virtual time, so strikes fall while a step's checkpoint is in flight.
//
//   FUZZ_LEASE_RUNS=2000 npx vitest run packages/agent/test/fuzz/leases.fuzz.test.ts    more cases (default 200)
//   FUZZ_SEED=… FUZZ_PATH=… npx vitest run packages/agent/test/fuzz/leases.fuzz.test.ts   replays a failure
import fc from "fast-check"
import { describe, it } from "vitest"
import { env } from "./env.js"
import { describeLeaseCase, leaseCase, leaseViolations, runLeaseCase } from "./leases.js"

const runs = Number(env("FUZZ_LEASE_RUNS") ?? 200)
const seed = env("FUZZ_SEED") === undefined ? undefined : Number(env("FUZZ_SEED"))
const path = env("FUZZ_PATH")

describe("UseCheckpoints under lost leases (model-based fuzzing)", () => {
  it(`ends every run normally, loses nothing acknowledged and runs no journaled call twice, over ${runs} cases`, async () => {
    const details = await fc.check(
      fc.asyncProperty(leaseCase, async (c) => {
        const recording = await runLeaseCase(c)
        const found = leaseViolations(recording)
        if (found.length > 0) throw new Error(`${found.join("\n")}\n\n${describeLeaseCase(recording)}`)
      }),
      { numRuns: path === undefined ? runs : 1, seed, path, verbose: 0 },
    )
    if (details.failed) {
      const error = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance)
      throw new Error(
        `a lease case broke a property (seed ${details.seed}, path ${details.counterexamplePath}):\n${error}\n\nreplay with:\n  FUZZ_SEED=${details.seed} FUZZ_PATH="${details.counterexamplePath}" npx vitest run packages/agent/test/fuzz/leases.fuzz.test.ts`,
      )
    }
    console.log(`lease fuzz: ${details.numRuns} cases (seed ${details.seed})`)
  }, 60_000 + runs * 50)
})
