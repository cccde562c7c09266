/**
 * Where a system's in-flight or suspended bytes go: the heap by constructor, diffed
 * between two snapshots (before the runs, and with N runs waiting or held), per run.
 * A tool for the memory rows, not a row itself:
 *
 *   cd bench && NODE_OPTIONS=--conditions=@hookline/source \
 *     node --expose-gc --import tsx src/compare/footprint/census.ts hookline inFlight 1000
 *
 * (`inFlight` or `suspended`; the system module under systems/; N runs). Prints one line
 * per (node type, name) whose bytes grew by at least 8 B per run, largest first.
 */
import { readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Session } from "node:inspector"
import { writeHeapSnapshot } from "node:v8"
import type { FootprintSystem } from "./Footprint.js"

const gc = (globalThis as { gc?: () => void }).gc
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

interface Group {
  count: number
  bytes: number
}

interface Snapshot {
  snapshot: { meta: { node_fields: Array<string>; node_types: [Array<string>]; edge_fields: Array<string>; edge_types: [Array<string>]; location_fields?: Array<string> } }
  nodes: Array<number>
  edges: Array<number>
  strings: Array<string>
  locations?: Array<number>
}

const take = async (): Promise<Snapshot> => {
  for (let i = 0; i < 10; i++) await turn()
  gc?.()
  gc?.()
  const file = join(tmpdir(), `census-${process.pid}-${Date.now()}.heapsnapshot`)
  writeHeapSnapshot(file)
  const snapshot = JSON.parse(readFileSync(file, "utf8")) as Snapshot
  rmSync(file)
  return snapshot
}

// The ids, sorted, off the JavaScript heap (a typed array's store), so that holding
// them does not show in the next snapshot.
const idsOf = (s: Snapshot): Float64Array => {
  const fields = s.snapshot.meta.node_fields
  const width = fields.length
  const idAt = fields.indexOf("id")
  const ids = new Float64Array(s.nodes.length / width)
  for (let i = 0; i < ids.length; i++) ids[i] = s.nodes[i * width + idAt]!
  return ids.sort()
}

const has = (ids: Float64Array, id: number): boolean => {
  let [lo, hi] = [0, ids.length - 1]
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    if (ids[mid] === id) return true
    if (ids[mid]! < id) lo = mid + 1
    else hi = mid - 1
  }
  return false
}

// The nodes of \`after\` that \`before\` did not have (node ids are stable within a process),
// grouped by type and name, closures also by their source location, each with the
// type and name of its first retainer.
const grown = (before: Float64Array, s: Snapshot): Map<string, Group> => {
  const meta = s.snapshot.meta
  const width = meta.node_fields.length
  const [typeAt, nameAt, idAt, sizeAt, edgeCountAt] = ["type", "name", "id", "self_size", "edge_count"].map((f) => meta.node_fields.indexOf(f)) as [number, number, number, number, number]
  const edgeWidth = meta.edge_fields.length
  const [edgeTypeAt, edgeNameAt, toAt] = ["type", "name_or_index", "to_node"].map((f) => meta.edge_fields.indexOf(f)) as [number, number, number]
  const types = meta.node_types[0]
  const edgeTypes = meta.edge_types[0]
  const nameOf = (node: number): string => {
    const type = types[s.nodes[node + typeAt]!]!
    const name = type === "string" || type === "number" || type === "concatenated string" || type === "sliced string" ? "" : s.strings[s.nodes[node + nameAt]!]!.slice(0, 50)
    return `${type} ${name}`
  }
  const location = new Map<number, string>()
  if (s.locations !== undefined && meta.location_fields !== undefined) {
    const lw = meta.location_fields.length
    for (let i = 0; i < s.locations.length; i += lw) location.set(s.locations[i]!, `@${scripts.get(String(s.locations[i + 1])) ?? s.locations[i + 1]}:${s.locations[i + 2]! + 1}:${s.locations[i + 3]! + 1}${snippet(String(s.locations[i + 1]), s.locations[i + 2]!, s.locations[i + 3]!)}`)
  }
  // The first retainer of each node (by a non-weak edge).
  const retainer = new Map<number, [number, string]>()
  let edge = 0
  for (let node = 0; node < s.nodes.length; node += width) {
    const edges = s.nodes[node + edgeCountAt]!
    for (let e = 0; e < edges; e++, edge += edgeWidth) {
      const to = s.edges[edge + toAt]!
      const kind = edgeTypes[s.edges[edge + edgeTypeAt]!]!
      if (kind === "weak" || retainer.has(to)) continue
      const label = kind === "element" || kind === "hidden" ? `[${s.edges[edge + edgeNameAt]}]` : `.${s.strings[s.edges[edge + edgeNameAt]!]}`
      retainer.set(to, [node, label])
    }
  }
  const groups = new Map<string, Group>()
  for (let node = 0; node < s.nodes.length; node += width) {
    if (has(before, s.nodes[node + idAt]!)) continue
    const by = retainer.get(node)
    const key = `${nameOf(node)}${location.get(node) ?? ""}  <- ${by === undefined ? "?" : `${nameOf(by[0])}${location.get(by[0]) ?? ""}${by[1].startsWith("[") ? "[]" : by[1]}`}`
    const group = groups.get(key) ?? { count: 0, bytes: 0 }
    group.count++
    group.bytes += s.nodes[node + sizeAt]!
    groups.set(key, group)
    // CENSUS_TRACE=<part of a key>: the retainer chains of the first three matches.
    const trace = process.env["CENSUS_TRACE"]
    if (trace !== undefined && key.includes(trace) && group.count <= 3) {
      const chain: Array<string> = []
      for (let at: number | undefined = node, depth = 0; at !== undefined && depth < 12; depth++) {
        const up = retainer.get(at)
        chain.push(`${nameOf(at)}${location.get(at) ?? ""} (${s.nodes[at + sizeAt]} B)${up === undefined ? "" : ` via ${up[1]}`}`)
        at = up?.[0]
      }
      console.log(`trace: ${chain.join("\n   <- ")}`)
    }
  }
  return groups
}

// Script ids to file names, for the closures' locations (\`@script:line:column\`).
const scripts = new Map<string, string>()
const session = new Session()
session.connect()
session.on("Debugger.scriptParsed", (m) => {
  const url = m.params.url
  if (url !== "") scripts.set(m.params.scriptId, url.replace(/^.*\/(node_modules\/(\.pnpm\/[^/]+\/node_modules\/)?|packages\/)/, ""))
})
session.post("Debugger.enable")

// CENSUS_SOURCE=1: a closure's location also shows the start of its source.
const sources = new Map<string, Array<string>>()
const snippet = (scriptId: string, line: number, column: number): string => {
  if (process.env["CENSUS_SOURCE"] === undefined) return ""
  let lines = sources.get(scriptId)
  if (lines === undefined) {
    lines = []
    session.post("Debugger.getScriptSource", { scriptId }, (error, result) => {
      if (error === null) lines = result.scriptSource.split("\n")
    })
    sources.set(scriptId, lines)
  }
  return ` {${(lines[line] ?? "").slice(column, column + 50).replace(/\s+/g, " ")}}`
}

const main = async (): Promise<void> => {
  const [module = "hookline", kind = "inFlight", count = "1000"] = process.argv.slice(2)
  const n = Number(count)
  if (!/^[A-Za-z]+$/.test(module)) throw new Error(`not a system module name: ${module}`)
  const system = ((await import(`./systems/${module}.js`)) as { readonly system: FootprintSystem }).system
  const waiting: Array<() => void> = []
  const gate = () => new Promise<void>((resolve) => waiting.push(resolve))
  const held: Array<unknown> = []
  let release = async (): Promise<void> => {}
  if (kind === "inFlight") {
    const run = await system.inFlight(gate)
    // Warm-up: the code's own heap is not charged to the runs.
    const warm = Array.from({ length: 200 }, () => run())
    while (waiting.length < 200) await turn()
    for (const r of waiting.splice(0)) r()
    await Promise.all(warm)
    const before = idsOf(await take())
    const runs = Array.from({ length: n }, () => run())
    while (waiting.length < n) await turn()
    const after = grown(before, await take())
    release = async () => {
      for (const r of waiting.splice(0)) r()
      await Promise.all(runs)
    }
    report(after, n)
  } else {
    const run = await system.suspended()
    for (let i = 0; i < 200; i++) await run(-1 - i)
    const before = idsOf(await take())
    for (let i = 0; i < n; i++) held.push(await run(i))
    const after = grown(before, await take())
    // Read after the snapshot, so the states are live in it.
    if (held.length !== n) throw new Error("suspended: runs lost")
    report(after, n)
  }
  await release()
}

const report = (after: Map<string, Group>, n: number): void => {
  const rows: Array<[string, number, number]> = []
  let total = 0
  for (const [key, a] of after) {
    const bytes = a.bytes / n
    total += bytes
    if (bytes >= 8) rows.push([key, a.count / n, bytes])
  }
  rows.sort((x, y) => y[2] - x[2])
  console.log(`total: ${total.toFixed(0)} B/run (self sizes in the snapshot)`)
  for (const [key, objects, bytes] of rows) console.log(`${bytes.toFixed(0).padStart(7)} B ${objects.toFixed(2).padStart(7)} objects  ${key}`)
}

await main()
