// The import-circle ratchet over packages/*/src (issue 23). Every relative import counts,
// type-only ones included (`import type`, `export type … from`, `import("./x")` in a type):
// a type-only circle shows a type living in the wrong module even when it loads fine.
//
// A circle is a strongly connected component of the import graph (two or more files that
// reach each other). The allow-list (scripts/cycles-allowed.json) holds the circles known
// today; the check fails on a circle that is not in it and on a listed circle that no
// longer exists, so the list can only shrink:
//
//   node scripts/check-cycles.mjs            check (runs in `pnpm test`)
//   node scripts/check-cycles.mjs --update   rewrite the list after circles were broken
//                                            (refused if a circle is new or grew)
//   node scripts/check-cycles.mjs --json     print the circles found, as the list's JSON
//
// Imports are read with TypeScript's preProcessFile (the import scanner tsc itself uses,
// no type-checking): about 0.2 s for the whole repository.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join, relative, sep } from "node:path"
import { fileURLToPath } from "node:url"

const ts = createRequire(import.meta.url)("typescript")
const root = fileURLToPath(new URL("..", import.meta.url))
const allowFile = join(root, "scripts", "cycles-allowed.json")

/** Every .ts file under packages/<name>/src, relative to the root, with forward slashes. */
export const sourceFiles = (base = root) =>
  readdirSync(join(base, "packages"), { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(base, "packages", d.name, "src")))
    .flatMap((d) =>
      readdirSync(join(base, "packages", d.name, "src"), { recursive: true })
        .filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))
        .map((f) => ["packages", d.name, "src", f].join("/").split(sep).join("/"))
    )
    .sort()

/** The file a relative specifier names (`./x.js` → `x.ts`, `./dir` → `dir/index.ts`), or undefined. */
const resolve = (base, from, specifier) => {
  if (!specifier.startsWith(".")) return undefined
  const target = join(dirname(join(base, from)), specifier)
  const candidates = [target.replace(/\.(m|c)?js$/, ".$1ts"), target, `${target}.ts`, join(target, "index.ts")]
  const found = candidates.find((c) => c.endsWith(".ts") && existsSync(c))
  return found === undefined ? undefined : relative(base, found).split(sep).join("/")
}

/** file → the files it imports (relative imports of any kind, types included). */
export const importGraph = (base = root) => {
  const graph = new Map()
  for (const file of sourceFiles(base)) {
    const info = ts.preProcessFile(readFileSync(join(base, file), "utf8"), true, true)
    const targets = new Set()
    for (const ref of info.importedFiles) {
      const target = resolve(base, file, ref.fileName)
      if (target !== undefined && target !== file) targets.add(target)
    }
    graph.set(file, [...targets].sort())
  }
  return graph
}

/** The circles of a graph: its strongly connected components of two or more files (Tarjan), each sorted, sorted by first file. */
export const circlesOf = (graph) => {
  let index = 0
  const indices = new Map()
  const low = new Map()
  const stack = []
  const onStack = new Set()
  const out = []
  // Iterative, so a long chain of imports cannot overflow the call stack.
  for (const start of graph.keys()) {
    if (indices.has(start)) continue
    const work = [{ node: start, next: 0 }]
    indices.set(start, index)
    low.set(start, index++)
    stack.push(start)
    onStack.add(start)
    while (work.length > 0) {
      const frame = work[work.length - 1]
      const edges = graph.get(frame.node) ?? []
      if (frame.next < edges.length) {
        const to = edges[frame.next++]
        if (!graph.has(to)) continue
        if (!indices.has(to)) {
          indices.set(to, index)
          low.set(to, index++)
          stack.push(to)
          onStack.add(to)
          work.push({ node: to, next: 0 })
        } else if (onStack.has(to)) low.set(frame.node, Math.min(low.get(frame.node), indices.get(to)))
        continue
      }
      work.pop()
      if (work.length > 0) {
        const parent = work[work.length - 1].node
        low.set(parent, Math.min(low.get(parent), low.get(frame.node)))
      }
      if (low.get(frame.node) === indices.get(frame.node)) {
        const component = []
        let member
        do {
          member = stack.pop()
          onStack.delete(member)
          component.push(member)
        } while (member !== frame.node)
        if (component.length > 1) out.push(component.sort())
      }
    }
  }
  return out.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
}

/** One path around a circle (a → … → a), for the report. */
const walk = (graph, circle) => {
  const members = new Set(circle)
  const start = circle[0]
  // Breadth-first from start back to start, inside the circle.
  const previous = new Map()
  const queue = [start]
  while (queue.length > 0) {
    const node = queue.shift()
    for (const to of graph.get(node) ?? []) {
      if (!members.has(to)) continue
      if (to === start) {
        const path = [start]
        for (let at = node; at !== start; at = previous.get(at)) path.splice(1, 0, at)
        return [...path, start]
      }
      if (!previous.has(to)) {
        previous.set(to, node)
        queue.push(to)
      }
    }
  }
  return circle
}

const key = (circle) => circle.join(" ")

/** The check: { ok, lines } comparing the circles found with the allowed ones. */
export const check = (found, allowed) => {
  const allowedKeys = new Set(allowed.map(key))
  const foundKeys = new Set(found.map(key))
  const lines = []
  const isSubset = (small, big) => small.every((f) => big.includes(f))
  for (const circle of found) {
    if (allowedKeys.has(key(circle))) continue
    const shrunk = allowed.find((a) => isSubset(circle, a))
    lines.push(
      shrunk === undefined
        ? `new circle (${circle.length} files), not in scripts/cycles-allowed.json: ${circle.join(", ")}`
        : `a listed circle shrank to ${circle.length} files: run \`node scripts/check-cycles.mjs --update\` to record it: ${circle.join(", ")}`,
    )
  }
  for (const circle of allowed) {
    if (foundKeys.has(key(circle))) continue
    if (found.some((f) => isSubset(f, circle))) continue // reported above as shrunk
    lines.push(`a listed circle no longer exists: remove it from scripts/cycles-allowed.json (\`node scripts/check-cycles.mjs --update\`): ${circle.join(", ")}`)
  }
  return { ok: lines.length === 0, lines }
}

const main = () => {
  const args = process.argv.slice(2)
  const graph = importGraph()
  const found = circlesOf(graph)
  if (args.includes("--json")) {
    console.log(JSON.stringify(found, null, 2))
    return 0
  }
  const allowed = existsSync(allowFile) ? JSON.parse(readFileSync(allowFile, "utf8")) : []
  if (args.includes("--update")) {
    const grown = found.filter((circle) => !allowed.some((a) => circle.every((f) => a.includes(f))))
    if (grown.length > 0) {
      for (const circle of grown) console.log(`FAIL new or grown circle, not recorded: ${circle.join(", ")}`)
      console.log("check-cycles: the allow-list only shrinks; break the circle instead")
      return 1
    }
    writeFileSync(allowFile, `${JSON.stringify(found, null, 2)}\n`)
    console.log(`check-cycles: recorded ${found.length} circle(s) in scripts/cycles-allowed.json`)
    return 0
  }
  const result = check(found, allowed)
  for (const circle of found) console.log(`${allowed.some((a) => key(a) === key(circle)) ? "allowed" : "FAIL   "} ${walk(graph, circle).join(" -> ")}`)
  for (const line of result.lines) console.log(`FAIL ${line}`)
  console.log(
    result.ok
      ? found.length === 0 ? `check-cycles: no circles in ${graph.size} files` : `check-cycles: ${found.length} allowed circle(s) in ${graph.size} files, none new`
      : `check-cycles: ${result.lines.length} problem(s)`,
  )
  return result.ok ? 0 : 1
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) process.exitCode = main()
