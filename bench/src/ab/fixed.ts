/**
 * A fixed amount of one A/B case's work on one tree, for CPU profiles at equal work:
 *
 *   node --import tsx bench/src/ab/fixed.ts <tree> [case] [runs] [profile.cpuprofile]
 *
 * A case is one of worker.ts's (the internal path) or facade.ts's ("facade K=0",
 * "facade K=20", "stream K=0", "stream K=20": the compare systems hooklineFacade's and
 * hooklineStream's user path). It warms up, then runs
 * the case `runs` times, printing CPU µs per step; with a path, the V8 profiler records
 * only the timed runs (not the loading), so the profiles of two trees compare function
 * by function, which a timed bench cannot (selfTime.ts lists a profile's top functions).
 */
import { writeFileSync } from "node:fs"
import { Session } from "node:inspector/promises"
import { facadeCase, facadeCases, facadeRun } from "./facade.js"
import { caseRun, cases, load, steps } from "./worker.js"

const [tree, name = "pure K=0", runs = "2000", out] = process.argv.slice(2)
if (tree === undefined) throw new Error("usage: fixed.ts <tree> [case] [runs] [profile.cpuprofile]")
const found = cases.find((c) => c.name === name)
const facade = facadeCase(name)
if (found === undefined && facade === undefined) {
  throw new Error(`no case ${name}: ${[...cases, ...facadeCases].map((c) => c.name).join(", ")}`)
}
const loaded = await load(tree)
const run = found !== undefined ? caseRun(loaded, found.K, found.effect) : facadeRun(loaded, (facade as (typeof facadeCases)[number]).K, facade?.stream)
for (let i = 0; i < 500; i++) await run()
const session = out === undefined ? undefined : new Session()
if (session !== undefined) {
  session.connect()
  await session.post("Profiler.enable")
  await session.post("Profiler.setSamplingInterval", { interval: 100 })
  await session.post("Profiler.start")
}
const start = process.cpuUsage()
for (let i = 0; i < Number(runs); i++) await run()
const used = process.cpuUsage(start)
if (session !== undefined && out !== undefined) {
  const { profile } = await session.post("Profiler.stop")
  writeFileSync(out, JSON.stringify(profile))
}
process.stdout.write(`${name}: ${((used.user + used.system) / Number(runs) / steps).toFixed(2)} cpu µs/step over ${runs} runs\n`)
