/**
 * Bytes allocated per step by one A/B case on one tree: a deterministic figure beside
 * the timed A/B, for a loaded machine where times say little. Run with a young
 * generation large enough that no collection happens while it counts:
 *
 *   node --expose-gc --min-semi-space-size=64 --max-semi-space-size=64 --import tsx bench/src/ab/allocated.ts <tree> [case] [runs]
 *
 * A case is one of worker.ts's (the internal path) or facade.ts's ("facade K=0", "facade K=20", "stream K=0", "stream K=20").
 */
import { facadeCase, facadeCases, facadeRun } from "./facade.js"
import { caseRun, cases, load, steps } from "./worker.js"

const [tree, name = "pure K=0", runs = "100"] = process.argv.slice(2)
if (tree === undefined) throw new Error("usage: allocated.ts <tree> [case] [runs]")
const found = cases.find((c) => c.name === name)
const facade = facadeCase(name)
if (found === undefined && facade === undefined) {
  throw new Error(`no case ${name}: ${[...cases, ...facadeCases].map((c) => c.name).join(", ")}`)
}
const gc = (globalThis as { gc?: () => void }).gc
if (gc === undefined) throw new Error("run with --expose-gc")
const loaded = await load(tree)
const run = found !== undefined ? caseRun(loaded, found.K, found.effect) : facadeRun(loaded, (facade as (typeof facadeCases)[number]).K, facade?.stream)
for (let i = 0; i < 300; i++) await run()
const samples: Array<number> = []
for (let round = 0; round < 5; round++) {
  gc()
  const before = process.memoryUsage().heapUsed
  for (let i = 0; i < Number(runs); i++) await run()
  samples.push((process.memoryUsage().heapUsed - before) / Number(runs) / steps)
}
samples.sort((a, b) => a - b)
process.stdout.write(`${name}: ${Math.round(samples[2] as number)} bytes/step allocated (median of 5; min ${Math.round(samples[0] as number)})\n`)
