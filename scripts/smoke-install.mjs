// Installs the packages the way an npm user does and runs the README's first example
// unchanged: every package is packed (pnpm pack), a fresh `npm init -y` project (ES
// modules) runs the README's own `npm i` line with each @hookline/* name pointed at its
// tarball (the peers come from the registry), compiles the example with tsc (strict,
// nodenext, skipLibCheck false) and runs it. Then: `npm ls effect` shows one version for
// an app that pins effect (EFFECT, default 4.1.0, the newest 4.x on 2026-11-26); the
// store without pg fails to open with PeerMissing; the install footprints are printed
// (docs/packaging.md). Needs a build and the registry.
// Usage: node scripts/smoke-install.mjs [--keep]   (about a minute; not in `pnpm test`)
import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { packAll, root } from "./pack.mjs"

const effectVersion = process.env.EFFECT ?? "4.1.0"
const readme = readFileSync(join(root, "README.md"), "utf8")
const install = readme.slice(readme.indexOf("## Install"))
const line = /```sh\n(npm i [^\n]+)\n```/.exec(install)?.[1]
const example = /```ts\n([\s\S]*?)\n```/.exec(install)?.[1]
if (line === undefined || example === undefined) throw new Error("smoke-install: the README's Install section has no `npm i` line or no example after it")

const dir = mkdtempSync(join(tmpdir(), "hookline-install-"))
const app = join(dir, "app")
let failures = 0
const check = (ok, what) => {
  console.log(`${ok ? "ok  " : "FAIL"} ${what}`)
  if (!ok) failures++
}
const npm = (args, options = {}) =>
  execFileSync(process.platform === "win32" ? "npm.cmd" : "npm", args, { cwd: app, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], ...options })
const kb = (path) => Number(execFileSync("du", ["-sk", path], { encoding: "utf8" }).split("\t")[0])

try {
  const tarballs = new Map((await packAll(join(dir, "packed"))).map(({ name, tarball }) => [name, tarball]))
  mkdirSync(app)
  npm(["init", "-y"])
  const manifest = JSON.parse(readFileSync(join(app, "package.json"), "utf8"))
  writeFileSync(join(app, "package.json"), JSON.stringify({ ...manifest, type: "module" }, null, 2))

  // The README's line, with the app's own effect pinned, and tsc to compile the example.
  const names = line.split(/\s+/).slice(2)
  const specs = names.map((n) => tarballs.get(n) ?? (n === "effect" ? `effect@${effectVersion}` : n))
  console.log(`$ ${line}   (effect@${effectVersion}, @hookline/* from tarballs)`)
  npm(["i", "--save-exact", "--no-audit", "--no-fund", ...specs])
  npm(["i", "-D", "--no-audit", "--no-fund", "typescript@5.9.3"])
  check(true, "the README's install line installs")
  console.log(`     node_modules: ${(kb(join(app, "node_modules")) / 1024).toFixed(1)} MB, effect ${(kb(join(app, "node_modules", "effect")) / 1024).toFixed(1)} MB, typescript ${(kb(join(app, "node_modules", "typescript")) / 1024).toFixed(1)} MB`)

  const versions = new Set()
  const walk = (node) => {
    for (const [name, dep] of Object.entries(node.dependencies ?? {})) {
      if (name === "effect") versions.add(dep.version)
      walk(dep)
    }
  }
  walk(JSON.parse(npm(["ls", "effect", "--all", "--json"])))
  check(versions.size === 1 && versions.has(effectVersion), `npm ls effect: one version (${[...versions].join(", ")})`)
  const copies = execFileSync("find", ["node_modules", "-type", "d", "-name", "effect", "-path", "*node_modules/effect"], { cwd: app, encoding: "utf8" }).trim().split("\n")
  check(copies.length === 1, `one copy of effect on disk (${copies.join(", ")})`)

  writeFileSync(join(app, "agent.ts"), `${example}\n`)
  writeFileSync(join(app, "tsconfig.json"), JSON.stringify({
    compilerOptions: { module: "nodenext", target: "ES2022", strict: true, skipLibCheck: false, types: [] },
    files: ["agent.ts"],
  }))
  let compiled = true
  try {
    npm(["exec", "--", "tsc", "-p", "tsconfig.json"])
  } catch (error) {
    compiled = false
    console.log(`${error.stdout ?? ""}${error.stderr ?? ""}`)
  }
  check(compiled, "the README's example compiles unchanged (nodenext, strict, skipLibCheck false)")
  const out = compiled ? execFileSync(process.execPath, ["agent.js"], { cwd: app, encoding: "utf8" }).trim() : ""
  check(out === "completed\n4", `the README's example runs: ${JSON.stringify(out)}`)

  // The store, without pg: it installs no database library and names the one to add.
  const before = kb(join(app, "node_modules"))
  npm(["i", "--no-audit", "--no-fund", tarballs.get("@hookline/store")])
  console.log(`     @hookline/store adds ${((kb(join(app, "node_modules")) - before) / 1024).toFixed(1)} MB`)
  writeFileSync(join(app, "store.mjs"), [
    `import { PostgresStore } from "@hookline/store"`,
    `const error = await PostgresStore.open({ connectionString: "postgres://127.0.0.1:1/none" }).then(() => undefined, (e) => e)`,
    `console.log(error?._tag, error?.peer)`,
  ].join("\n"))
  const store = execFileSync(process.execPath, ["store.mjs"], { cwd: app, encoding: "utf8" }).trim()
  check(store === "PeerMissing pg", `PostgresStore.open without pg fails with PeerMissing naming pg: ${JSON.stringify(store)}`)
} finally {
  if (process.argv.includes("--keep")) console.log(`kept: ${dir}`)
  else rmSync(dir, { recursive: true, force: true })
}
console.log(failures === 0 ? "smoke-install: the README's example runs from the tarballs" : `smoke-install: ${failures} failed`)
process.exit(failures === 0 ? 0 : 1)
