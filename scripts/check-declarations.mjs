// The public declarations of every package, as the build emits them (dist/types, after
// `pnpm build`), compared with the copy in packages/<name>/test/golden/declarations.txt
// (issue 23: the engine redesign moves types between files, and must not change them).
//
//   node scripts/check-declarations.mjs            compare (runs in `pnpm test`, after the build)
//   node scripts/check-declarations.mjs --update   rewrite the copies; `git diff` then shows the change
//
// Not a diff of the files: the redesign moves declarations between files, and a public type
// can live in an internal file (AgentLoop.RunOptions in run/types.ts). The script reads
// each package's dist/types/index.d.ts with the TypeScript compiler, walks what it exports
// (into each namespace, following re-exports to the declaration), and writes, per public
// name, the declaration as emitted with its JSDoc. So a type moved unchanged gives the same
// text; only a relative `import("./internal/x.js")` inside a declaration names a file, and
// it is written as `import("./…")` (file names may change, nothing else).
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { changedSpan, diffLines } from "./text-diff.mjs"

const ts = createRequire(import.meta.url)("typescript")
const root = fileURLToPath(new URL("..", import.meta.url))
const update = process.argv.includes("--update")

const packages = readdirSync(join(root, "packages"))
  .filter((dir) => existsSync(join(root, "packages", dir, "package.json")))
  .map((dir) => ({ dir, pkg: JSON.parse(readFileSync(join(root, "packages", dir, "package.json"), "utf8")) }))
  .filter(({ pkg }) => pkg.private !== true)
  .sort((a, b) => (a.dir < b.dir ? -1 : 1))

const entryOf = (dir) => join(root, "packages", dir, "dist", "types", "index.d.ts")

/** The newest modification time of the files under a folder, ms. */
const newest = (dir) =>
  readdirSync(dir, { recursive: true }).reduce((m, f) => {
    const s = statSync(join(dir, f))
    return s.isFile() ? Math.max(m, s.mtimeMs) : m
  }, 0)

const problems = []
for (const { dir, pkg } of packages) {
  if (!existsSync(entryOf(dir))) problems.push(`${pkg.name}: no dist/types/index.d.ts: run \`pnpm build\` first`)
  else if (newest(join(root, "packages", dir, "src")) > statSync(entryOf(dir)).mtimeMs) {
    problems.push(`${pkg.name}: dist/types is older than src: run \`pnpm build\` first`)
  }
}
if (problems.length > 0) {
  for (const p of problems) console.log(`FAIL ${p}`)
  process.exit(1)
}

const program = ts.createProgram(packages.map(({ dir }) => entryOf(dir)), {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
  skipLibCheck: true,
  noEmit: true,
  types: [],
})
const checker = program.getTypeChecker()

const relativeImport = /import\("\.{1,2}\/[^"]*"\)/g

/** A declaration as emitted, with the JSDoc right before it. */
const textOf = (decl) => {
  // A `const` is declared in a statement: print the statement (it holds the JSDoc).
  const node = ts.isVariableDeclaration(decl) && decl.parent.declarations.length === 1 ? decl.parent.parent : decl
  const sf = node.getSourceFile()
  const comments = ts.getLeadingCommentRanges(sf.text, node.getFullStart()) ?? []
  const doc = comments.filter((c) => sf.text.startsWith("/**", c.pos)).at(-1)
  const text = node.getText(sf)
  return `${doc === undefined ? "" : `${sf.text.slice(doc.pos, doc.end)}\n`}${text}`.replace(relativeImport, 'import("./…")')
}

/** A declaration that only passes a name on (export { x } from, import x), not one that declares it. */
const isReexport = (d) =>
  ts.isExportSpecifier(d) || ts.isNamespaceExport(d) || ts.isExportAssignment(d) || ts.isImportSpecifier(d) || ts.isNamespaceImport(d) ||
  ts.isImportClause(d) || ts.isImportEqualsDeclaration(d)

const isModule = (symbol) => (symbol.declarations ?? []).some((d) => ts.isSourceFile(d) || ts.isModuleDeclaration(d) && ts.isStringLiteral(d.name))

/** The public names of one module, walked into namespaces: `### name` then each declaration. */
const render = (moduleSymbol) => {
  const out = []
  const seen = new Map()
  const walk = (symbol, prefix) => {
    seen.set(symbol, prefix === "" ? "(the entry)" : prefix.slice(0, -1))
    const exports = checker.getExportsOfModule(symbol).slice().sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    for (const exported of exports) {
      const path = `${prefix}${exported.name}`
      // A name can be both a re-export and a declaration of its own: the entry's
      // `export { Driver_ as Driver }` beside `export type Driver = Driver_.DriverShape`.
      const own = (exported.declarations ?? []).filter((d) => !isReexport(d)).map(textOf)
      const target = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : undefined
      if (target !== undefined && isModule(target)) {
        if (own.length > 0) out.push(`### ${path}`, ...own, "")
        if (seen.has(target)) {
          out.push(`### ${path}: namespace, as ${seen.get(target)}`, "")
          continue
        }
        out.push(`### ${path}: namespace`, "")
        walk(target, `${path}.`)
        continue
      }
      const texts = [...new Set([...(target?.declarations ?? []).map(textOf), ...own])]
      out.push(`### ${path}`, ...texts, "")
    }
  }
  walk(moduleSymbol, "")
  return out.join("\n")
}

let failures = 0
for (const { dir, pkg } of packages) {
  const sf = program.getSourceFile(entryOf(dir))
  const symbol = sf === undefined ? undefined : checker.getSymbolAtLocation(sf)
  if (symbol === undefined) {
    console.log(`FAIL ${pkg.name}: the compiler could not read ${entryOf(dir)}`)
    failures++
    continue
  }
  const text = `# ${pkg.name}: the public declarations as emitted in dist/types (scripts/check-declarations.mjs)\n\n${render(symbol)}`
  const file = join(root, "packages", dir, "test", "golden", "declarations.txt")
  if (update) {
    mkdirSync(join(root, "packages", dir, "test", "golden"), { recursive: true })
    writeFileSync(file, text)
    console.log(`recorded ${pkg.name}: ${text.split("\n").length} lines`)
    continue
  }
  const recorded = existsSync(file) ? readFileSync(file, "utf8") : ""
  if (recorded === text) {
    console.log(`ok   ${pkg.name}: declarations as recorded`)
    continue
  }
  failures++
  const span = changedSpan(recorded, text)
  const heading = recorded.split("\n").slice(0, span.line).reverse().find((l) => l.startsWith("### "))
  console.log(`FAIL ${pkg.name}: the declarations changed${heading === undefined ? "" : ` (first at ${heading.slice(4)})`}:`)
  for (const l of diffLines(recorded, text)) console.log(`  ${l}`)
}
if (!update) {
  console.log(
    failures === 0
      ? "check-declarations: every package's public declarations are as recorded"
      : `check-declarations: ${failures} package(s) changed; if meant, \`node scripts/check-declarations.mjs --update\`, then \`git diff packages/*/test/golden/declarations.txt\` shows it`,
  )
}
process.exit(failures === 0 ? 0 : 1)
