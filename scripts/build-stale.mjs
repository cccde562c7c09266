// Builds each package whose dist is older than what it is built from, and skips the
// others: `pnpm demo` rebuilt every package (tens of seconds, mostly declarations) on
// every run. A successful build leaves dist/.build-stamp; a package is stale when it
// has no stamp, or when a file of src/, its package.json, tsup.config.ts,
// tsconfig.build.json or the root tsconfig.base.json is newer than the stamp.
//
// Usage: node scripts/build-stale.mjs [root]   (default: this repository)
import { execSync } from "node:child_process"
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { delimiter, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = process.argv[2] ?? fileURLToPath(new URL("..", import.meta.url))
const stampName = ".build-stamp"

/** The newest modification time of a file or of every file below a folder. */
const newest = (path) => {
  if (!existsSync(path)) return 0
  const stat = statSync(path)
  if (!stat.isDirectory()) return stat.mtimeMs
  return readdirSync(path).reduce((max, entry) => Math.max(max, newest(join(path, entry))), stat.mtimeMs)
}

// Dependencies first (the order `pnpm -r` would take), then the rest by name.
const first = ["core", "agent", "testing"]
const dirs = readdirSync(join(root, "packages"))
  .filter((dir) => existsSync(join(root, "packages", dir, "package.json")))
  .sort((a, b) => (first.includes(a) ? first.indexOf(a) : first.length) - (first.includes(b) ? first.indexOf(b) : first.length) || a.localeCompare(b))

let built = 0
for (const dir of dirs) {
  const path = join(root, "packages", dir)
  const pkg = JSON.parse(readFileSync(join(path, "package.json"), "utf8"))
  const build = pkg.scripts?.build
  if (typeof build !== "string") continue
  const stamp = join(path, "dist", stampName)
  const inputs = Math.max(
    newest(join(path, "src")),
    newest(join(path, "package.json")),
    newest(join(path, "tsup.config.ts")),
    newest(join(path, "tsconfig.build.json")),
    newest(join(root, "tsconfig.base.json")),
  )
  if (existsSync(stamp) && statSync(stamp).mtimeMs >= inputs) {
    console.log(`${pkg.name}: up to date`)
    continue
  }
  console.log(`${pkg.name}: building`)
  // What pnpm does for a script: the package's and the root's bins on the PATH.
  const PATH = [join(path, "node_modules", ".bin"), join(root, "node_modules", ".bin"), process.env.PATH].join(delimiter)
  execSync(build, { cwd: path, stdio: "inherit", env: { ...process.env, PATH } })
  writeFileSync(stamp, `${new Date().toISOString()}\n`)
  built++
}
console.log(`build-stale: ${built} of ${dirs.length} package(s) built`)
