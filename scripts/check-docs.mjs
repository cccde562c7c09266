// Type-checks every ```ts block of README.md, docs/**/*.md and packages/*/README.md as a program of its own, under
// the repo's strict settings, with @hookline/* resolved to src (the "@hookline/source"
// condition), so a snippet that no longer compiles fails CI.
//
// A block opts out only with a reason on its fence: ```ts no-check: <why>.
// It also fails a page with a merge's conflict markers in it, and a package README with a
// relative link (the registry shows the README alone: links must be absolute).
// Usage: node scripts/check-docs.mjs [file.md ...]   (default: README.md, docs/**/*.md, packages/*/README.md)
// The blocks are written under .docs-check/<DOCS_CHECK_NAME or "docs"> (gitignored).
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { join, relative } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const out = join(root, ".docs-check", process.env.DOCS_CHECK_NAME || "docs")
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc")

const packageReadmes = () =>
  readdirSync(join(root, "packages")).sort().map((dir) => join(root, "packages", dir, "README.md")).filter((f) => existsSync(f))
const files = process.argv.length > 2
  ? process.argv.slice(2).map((file) => join(process.cwd(), file))
  : [
    join(root, "README.md"),
    ...readdirSync(join(root, "docs"), { recursive: true }).filter((f) => f.endsWith(".md")).sort().map((f) => join(root, "docs", f)),
    ...packageReadmes(),
  ]

/** The ```ts blocks of one markdown file: { line (1-based, of the first code line), code, fence }. */
const blocksOf = (text) => {
  const blocks = []
  const lines = text.split("\n")
  let open
  for (const [i, line] of lines.entries()) {
    if (open === undefined) {
      const fence = /^```(ts|typescript)\b(.*)$/.exec(line)
      if (fence) open = { line: i + 2, fence: fence[2].trim(), code: [] }
      else if (/^```/.test(line)) open = { line: i + 2, fence: null, code: [] } // another language: skipped
    } else if (/^```\s*$/.test(line)) {
      if (open.fence !== null) blocks.push({ ...open, code: open.code.join("\n") })
      open = undefined
    } else open.code.push(line)
  }
  return blocks
}

let problems = 0
const sources = new Map() // generated file name -> { md, line }
rmSync(out, { recursive: true, force: true })
mkdirSync(out, { recursive: true })

for (const file of files) {
  const md = relative(root, file)
  const text = readFileSync(file, "utf8")
  // A merge's conflict markers left in a page (it happened once, in two pages).
  for (const [i, line] of text.split("\n").entries()) {
    if (/^(<{7}|>{7}) \S/.test(line)) {
      console.log(`${md}:${i + 1}: a merge conflict marker: ${line}`)
      problems++
    }
  }
  if (/^packages[\\/][^\\/]+[\\/]README\.md$/.test(md)) {
    for (const [i, line] of text.split("\n").entries()) {
      for (const [, target] of line.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (!/^(https?:|mailto:|#)/.test(target)) {
          console.log(`${md}:${i + 1}: a relative link (${target}) breaks on the registry's page: use https://github.com/hookline/hookline/blob/main/...`)
          problems++
        }
      }
    }
  }
  for (const block of blocksOf(text)) {
    if (block.fence.startsWith("no-check")) {
      if (!/^no-check:\s*\S/.test(block.fence)) {
        console.log(`${md}:${block.line - 1}: a no-check block needs a reason: \`\`\`ts no-check: <why>`)
        problems++
      }
      continue
    }
    const name = `${md.replace(/[\\/.]/g, "_")}_L${block.line}.ts`
    sources.set(name, { md, line: block.line })
    // `export {}` makes each block a module of its own (top-level await, no clashes).
    writeFileSync(join(out, name), `${block.code}\nexport {}\n`)
  }
}

writeFileSync(
  join(out, "tsconfig.json"),
  JSON.stringify({
    extends: "../../tsconfig.base.json",
    compilerOptions: { noEmit: true, declaration: false, allowImportingTsExtensions: true, noUnusedLocals: false },
    include: ["*.ts"],
  }, null, 2),
)

let report = ""
if (sources.size > 0) try {
  execFileSync(process.execPath, [tsc, "-p", join(out, "tsconfig.json"), "--pretty", "false"], { cwd: root, encoding: "utf8" })
} catch (error) {
  report = `${error.stdout ?? ""}${error.stderr ?? ""}`
}
// Point each error at the markdown line it comes from.
for (const line of report.split("\n").filter(Boolean)) {
  const at = /^\.docs-check[\\/][^\\/]+[\\/]([^()]+)\((\d+),(\d+)\): (.*)$/.exec(line)
  const source = at && sources.get(at[1])
  if (source) console.log(`${source.md}:${source.line + Number(at[2]) - 1}:${at[3]}: ${at[4]}`)
  else console.log(line)
  if (/error TS/.test(line)) problems++
}

if (problems > 0) {
  console.log(`check-docs: ${problems} problem(s) in ${sources.size} ts block(s)`)
  process.exit(1)
}
console.log(`check-docs: ${sources.size} ts block(s) of ${files.length} file(s) compile`)
