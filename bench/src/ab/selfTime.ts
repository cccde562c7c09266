/**
 * The functions a CPU profile (fixed.ts's) spent the most self time in, and the share
 * of each package (hookline's core and agent, effect, node, the collector):
 *
 *   node --import tsx bench/src/ab/selfTime.ts <profile.cpuprofile> [top=25] [filter]
 *
 * `filter` (a regular expression on "name file:line") keeps only some functions, e.g.
 * "agent/dist|core/dist" for hookline's own code.
 */
import { readFileSync } from "node:fs"

interface Node {
  readonly id: number
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number }
}
interface Profile {
  readonly nodes: ReadonlyArray<Node>
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
}

const [path, top = "25", filter] = process.argv.slice(2)
if (path === undefined) throw new Error("usage: selfTime.ts <profile.cpuprofile> [top] [filter]")
const profile = JSON.parse(readFileSync(path, "utf8")) as Profile
// Samples, not their time deltas: a delta is the wall time since the sample before, so
// the first one holds the time from the profiler's start, and on a loaded machine any
// sample taken after the thread waited for a core holds that wait (one "dispatch" sample
// read as 17% of a profile). Each sample is one interval of CPU in the function it hit.
const time = new Map<number, number>()
profile.samples.forEach((id) => time.set(id, (time.get(id) ?? 0) + 1))

const packageOf = (url: string, name: string): string =>
  url.includes("/packages/agent/") ? "agent" : url.includes("/packages/core/") ? "core" : url.includes("/effect/dist/") ? "effect"
  : url.startsWith("node:") ? "node" : url === "" ? name : "other"
const shortUrl = (url: string): string => url.replace(/^.*\/(packages|node_modules)\//, "")

let total = 0
const byFunction = new Map<string, number>()
const byPackage = new Map<string, number>()
for (const node of profile.nodes) {
  const t = time.get(node.id) ?? 0
  total += t
  const { functionName, url, lineNumber } = node.callFrame
  const key = `${functionName || "(anonymous)"} ${shortUrl(url)}:${lineNumber + 1}`
  byFunction.set(key, (byFunction.get(key) ?? 0) + t)
  const pkg = packageOf(url, functionName)
  byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + t)
}
const share = (t: number): string => `${((100 * t) / total).toFixed(1).padStart(5)}%`
const keep = filter === undefined ? () => true : (key: string) => new RegExp(filter).test(key)
for (const [pkg, t] of [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, 8)) process.stdout.write(`${share(t)}  [${pkg}]\n`)
for (const [key, t] of [...byFunction].filter(([k]) => keep(k)).sort((a, b) => b[1] - a[1]).slice(0, Number(top))) {
  process.stdout.write(`${share(t)}  ${key}\n`)
}
