// The verdicts of the comparison on fabricated results: no system runs here.
import { describe, expect, it } from "vitest"
import { verdicts } from "../src/compare/report.js"
import type * as Result from "../src/compare/Result.js"
import type { Workload } from "../src/compare/System.js"

const w1 = (K: number): Workload => ({ name: "W1", steps: 50, K, H: 0, concurrency: 1, asyncModel: false })
const w2 = (H: number): Workload => ({ name: "W2", steps: 10, K: 5, H, concurrency: 1, asyncModel: false })

/** A result of `usPerStep` µs per step (the median). */
const ran = (module: string, workload: Workload, usPerStep: number): Result.Runs => ({
  kind: "runs",
  module,
  workload,
  system: module,
  version: "1",
  hookPoints: [],
  firingsPerRun: 1,
  validated: 30,
  runs: 30,
  usPerRun: { p10: usPerStep * workload.steps, p50: usPerStep * workload.steps, p90: usPerStep * workload.steps },
})

const plan = [w1(0), w1(20), w2(10), w2(1_000), w2(10_000)]

/** The three agent frameworks on `w`, the AI SDK the fastest. */
const frameworks = (w: Workload, ai: number) => [ran("ai", w, ai), ran("langchain", w, 5_000), ran("openaiAgents", w, 900)]

describe("verdicts", () => {
  it("meets the targets when hookline is within them", () => {
    const results = [
      ran("hookline", w1(0), 2), ...frameworks(w1(0), 60),
      ran("hookline", w1(20), 2.2), ...frameworks(w1(20), 60),
      ran("hookline", w2(10), 4), ran("hookline", w2(1_000), 4.2), ran("hookline", w2(10_000), 5.9),
    ]
    const lines = verdicts(results, plan)
    expect(lines).toHaveLength(5)
    for (const line of lines) expect(line).toMatch(/: met$/)
    expect(lines).toContain("hookline W2 flatness H=10 to 10,000: 1.48x (target ≤ 1.5x): met")
  })

  it("misses each target hookline is outside of, and names the fastest framework", () => {
    const results = [
      ran("hookline", w1(0), 3.5), ...frameworks(w1(0), 60),
      ran("hookline", w1(20), 16), ...frameworks(w1(20), 60),
      ran("hookline", w2(10), 4), ran("hookline", w2(10_000), 6.4),
    ]
    const lines = verdicts(results, plan)
    expect(lines).toEqual([
      "hookline W1 K=0: 3.50 µs/step (target 3): missed",
      "hookline W1 K=20: 16.0 µs/step (target 15): missed",
      "hookline vs fastest agent framework at K=0 (ai, 60.0 µs/step): 17.1x (target ≥ 25x): missed",
      "hookline vs fastest agent framework at K=20 (ai, 60.0 µs/step): 3.8x (target ≥ 25x): missed",
      "hookline W2 flatness H=10 to 10,000: 1.60x (target ≤ 1.5x): missed",
    ])
  })

  it("gives the user path's verdicts when the facade ran", () => {
    const results = [
      ran("hookline", w1(0), 2), ran("hooklineFacade", w1(0), 4.5), ...frameworks(w1(0), 60),
      ran("hookline", w1(20), 2.2), ran("hooklineFacade", w1(20), 8.5), ...frameworks(w1(20), 60),
    ]
    const lines = verdicts(results, [w1(0), w1(20)])
    expect(lines).toContain("hookline (facade) W1 K=0: 4.50 µs/step (target 5): met")
    expect(lines).toContain("hookline (facade) W1 K=20: 8.50 µs/step (target 8): missed")
    expect(verdicts(results.filter((r) => r.module !== "hooklineFacade"), [w1(0), w1(20)]).join("\n")).not.toContain("facade")
  })

  it("gives the streamed/facade ratio at each K when the streamed path ran", () => {
    const results = [
      ran("hooklineFacade", w1(0), 4), ran("hooklineStream", w1(0), 5),
      ran("hooklineFacade", w1(20), 8), ran("hooklineStream", w1(20), 16),
    ]
    const lines = verdicts(results, [w1(0), w1(20)])
    expect(lines).toContain("hookline streamed vs facade W1 K=0: 1.25x (target ≤ 1.5x): met")
    expect(lines).toContain("hookline streamed vs facade W1 K=20: 2.00x (target ≤ 1.5x): missed")
    expect(verdicts(results.filter((r) => r.module !== "hooklineStream"), [w1(0), w1(20)]).join("\n")).not.toContain("streamed")
  })

  it("says which frameworks failed and were not counted", () => {
    const lines = verdicts([ran("hookline", w1(0), 2), ran("ai", w1(0), 60)], [w1(0)])
    expect(lines).toContain("hookline vs fastest agent framework at K=0 (ai, 60.0 µs/step): 30.0x (target ≥ 25x): met (2 framework(s) failed: not counted)")
  })

  it("says what was not measured instead of a verdict", () => {
    const lines = verdicts([ran("ai", w1(0), 60)], [w1(0), w2(10), w2(10_000)])
    expect(lines).toEqual([
      "hookline W1 K=0: not measured (target 3 µs/step)",
      "hookline W1 K=20: not measured (target 15 µs/step)",
      "hookline vs fastest agent framework at K=0: not measured (hookline has no result)",
      "hookline W2 flatness H=10 to 10,000: not measured (target ≤ 1.5x)",
    ])
  })
})
