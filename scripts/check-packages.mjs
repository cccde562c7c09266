// Checks every package as it would be published: packed with pnpm, each tarball must
// carry its LICENSE (the root's), README.md and CHANGELOG.md, pass publint --strict, and
// pass Are the Types Wrong (attw) for node16 (ESM and CJS) and bundler resolution.
// attw's node10 column is left out (--profile node16): node10 resolution knows no
// exports map, so no subpath (`@hookline/testing/store`) can resolve there.
// Needs a build. Usage: node scripts/check-packages.mjs
import { execFile } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { packAll, root } from "./pack.mjs"

const run = promisify(execFile)
// The tools' own entry points, found through the root's node_modules (no npx, no PATH).
const bin = (pkg, name) => {
  const dir = join(root, "node_modules", pkg)
  const { bin } = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"))
  return join(dir, typeof bin === "string" ? bin : bin[name])
}
const publint = bin("publint", "publint")
const attw = bin("@arethetypeswrong/cli", "attw")
const license = readFileSync(join(root, "LICENSE"), "utf8")

const folder = mkdtempSync(join(tmpdir(), "hookline-packed-"))
let failures = 0
const check = (ok, what, detail = "") => {
  console.log(`${ok ? "ok  " : "FAIL"} ${what}`)
  if (!ok) {
    failures++
    if (detail !== "") console.log(detail)
  }
}
const tool = async (file, args) => {
  try {
    const { stdout } = await run(process.execPath, [file, ...args], { maxBuffer: 16 * 1024 * 1024 })
    return { ok: true, out: stdout }
  } catch (error) {
    return { ok: false, out: `${error.stdout ?? ""}${error.stderr ?? ""}` }
  }
}

try {
  for (const { name, tarball } of await packAll(folder)) {
    const { stdout: listing } = await run("tar", ["tzf", tarball])
    const files = new Set(listing.split("\n"))
    for (const file of ["LICENSE", "README.md", "CHANGELOG.md", "package.json"]) check(files.has(`package/${file}`), `${name}: the tarball carries ${file}`)
    const { stdout: packed } = await run("tar", ["xzf", tarball, "-O", "package/LICENSE"])
    check(packed === license, `${name}: its LICENSE is the root's`)
    const [lint, types] = await Promise.all([
      tool(publint, ["run", tarball, "--strict"]),
      tool(attw, [tarball, "--profile", "node16", "--format", "table-flipped", "--no-color", "--no-emoji"]),
    ])
    check(lint.ok && !/warning|error/i.test(lint.out.replace(/All good!/, "")), `${name}: publint --strict`, lint.out)
    check(types.ok, `${name}: attw (node16 ESM and CJS, bundler)`, types.out)
  }
} finally {
  rmSync(folder, { recursive: true, force: true })
}
console.log(failures === 0 ? "check-packages: every tarball passes" : `check-packages: ${failures} failed`)
process.exit(failures === 0 ? 0 : 1)
