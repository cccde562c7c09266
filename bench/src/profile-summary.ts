/**
 * Summarizes a V8 .cpuprofile: self time by function and file, and by file (package),
 * highest first. `node --import tsx bench/src/profile-summary.ts <file> [rows]`. With
 * `--import tsx`, node writes two profiles: the main thread's (the big one) and the
 * loader thread's.
 */
import { readFileSync } from "node:fs"

interface Node {
  readonly id: number
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number }
  readonly children?: ReadonlyArray<number>
}
interface Profile {
  readonly nodes: ReadonlyArray<Node>
  readonly startTime: number
  readonly endTime: number
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
}

const file = process.argv[2]
if (file === undefined) throw new Error("usage: profile-summary.ts <file.cpuprofile> [rows]")
const rows = Number.parseInt(process.argv[3] ?? "40", 10) || 40
const profile = JSON.parse(readFileSync(file, "utf8")) as Profile

// Self time of a node = the sum of the deltas of the samples taken in it.
const selfUs = new Map<number, number>()
profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)))
const total = profile.endTime - profile.startTime

const short = (url: string): string => {
  const at = url.lastIndexOf("node_modules/")
  if (at >= 0) return url.slice(at + "node_modules/".length).replace(/^\.pnpm\/[^/]+\/node_modules\//, "")
  return url.replace(/^file:\/\/\/work\/[^/]+(\/[^/]+)?\/(?=packages|bench)/, "")
}

const byFunction = new Map<string, number>()
const byFile = new Map<string, number>()
for (const node of profile.nodes) {
  const us = selfUs.get(node.id) ?? 0
  if (us === 0) continue
  const { functionName, url, lineNumber } = node.callFrame
  const where = url === "" ? "(native)" : `${short(url)}:${lineNumber + 1}`
  const name = `${functionName === "" ? "(anonymous)" : functionName} ${where}`
  byFunction.set(name, (byFunction.get(name) ?? 0) + us)
  const pkg = url === "" ? functionName : short(url)
  byFile.set(pkg, (byFile.get(pkg) ?? 0) + us)
}

const print = (title: string, map: ReadonlyMap<string, number>): void => {
  console.log(`\n${title}`)
  for (const [name, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, rows)) {
    console.log(`${((us / total) * 100).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(6)} ms  ${name}`)
  }
}
console.log(`${file}: ${(total / 1e6).toFixed(1)} s, ${profile.samples.length} samples`)
print("self time by function", byFunction)
print("self time by file", byFile)
