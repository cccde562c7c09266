/**
 * A fixed amount of one A/B case's work on one tree, for CPU profiles at equal work:
 *
 *   node --import tsx bench/src/ab/fixed.ts <tree> [case] [runs] [profile.cpuprofile]
 *
 * It warms up, then runs the case `runs` times, printing CPU µs per step; with a path,
 * the V8 profiler records only the timed runs (not the loading), so the profiles of two
 * trees compare function by function, which a timed bench cannot.
 */
import { writeFileSync } from "node:fs"
import { Session } from "node:inspector/promises"
import { caseRun, cases, load, steps } from "./worker.js"

const [tree, name = "pure K=0", runs = "2000", out] = process.argv.slice(2)
if (tree === undefined) throw new Error("usage: fixed.ts <tree> [case] [runs] [profile.cpuprofile]")
const found = cases.find((c) => c.name === name)
if (found === undefined) throw new Error(`no case ${name}: ${cases.map((c) => c.name).join(", ")}`)
const run = caseRun(await load(tree), found.K, found.effect)
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
