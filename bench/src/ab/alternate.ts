/**
 * Two built trees' facade path (facade.ts, the compare's hooklineFacade) in one process,
 * alternated in short blocks, A B, B A, …: a drift of a shared machine (another
 * process's burst, a core taken away for a while) falls on both sides of a round, which
 * separate processes (fixed.ts) cannot promise on a loaded 2-core machine.
 *
 *   node --import tsx bench/src/ab/alternate.ts <tree A> <tree B> [K=0] [rounds=30] [stream]
 *
 * Each tree loads its own dist and dependencies; both warm up, then each round times a
 * block of 200 runs per side. Prints the medians of the rounds' per-run medians (wall
 * µs per step) and the median of the rounds' ratios B/A with its interquartile range.
 * Read it beside fixed.ts and ab.ts, not instead of them: one JIT holds both trees.
 */
import { facadeRun } from "./facade.js"
import { load, median, steps } from "./worker.js"

const [a, b, k = "0", rounds = "30", stream] = process.argv.slice(2)
if (a === undefined || b === undefined) throw new Error("usage: alternate.ts <tree A> <tree B> [K] [rounds] [stream]")
const K = Number(k)
const runA = facadeRun(await load(a), K, stream === "stream")
const runB = facadeRun(await load(b), K, stream === "stream")

/** `n` runs, µs per step each. */
const block = async (run: () => Promise<number>, n: number): Promise<Array<number>> => {
  const out: Array<number> = []
  for (let i = 0; i < n; i++) {
    const start = performance.now()
    await run()
    out.push(((performance.now() - start) * 1000) / steps)
  }
  return out
}

for (let i = 0; i < 6; i++) {
  await block(runA, 300)
  await block(runB, 300)
}
const medA: Array<number> = []
const medB: Array<number> = []
const ratios: Array<number> = []
for (let r = 0; r < Number(rounds); r++) {
  // Half the rounds start with B: neither side always runs right after the other's block.
  const first = r % 2 === 0 ? await block(runA, 200) : undefined
  const y = median(await block(runB, 200))
  const x = median(first ?? (await block(runA, 200)))
  medA.push(x)
  medB.push(y)
  ratios.push(y / x)
}
const sorted = [...ratios].sort((p, q) => p - q)
const at = (f: number): number => sorted[Math.floor((sorted.length - 1) * f)] as number
process.stdout.write(
  `facade K=${K}${stream === "stream" ? " streamed" : ""}: A ${median(medA).toFixed(2)} µs/step, B ${median(medB).toFixed(2)}, ` +
    `B/A ${median(ratios).toFixed(3)} (p25–p75 ${at(0.25).toFixed(3)}–${at(0.75).toFixed(3)}) over ${rounds} rounds\n`,
)
process.exit(0)
