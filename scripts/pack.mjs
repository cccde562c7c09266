// Packs every published package with pnpm (workspace ranges become real ones) into a
// folder, as `npm publish` would ship them. Needs a build. Used by check-packages.mjs
// and smoke-install.mjs; alone: node scripts/pack.mjs <folder>
import { execFile } from "node:child_process"
import { mkdirSync, readdirSync, readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"

export const root = fileURLToPath(new URL("..", import.meta.url))

/** The published packages: { name, dir }. */
export const packages = () =>
  readdirSync(join(root, "packages"))
    .map((dir) => ({ dir: join(root, "packages", dir), manifest: JSON.parse(readFileSync(join(root, "packages", dir, "package.json"), "utf8")) }))
    .filter(({ manifest }) => !manifest.private)
    .map(({ dir, manifest }) => ({ name: manifest.name, dir }))

/** Packs them all into `folder`; gives { name, dir, tarball } for each. */
export const packAll = async (folder) => {
  mkdirSync(folder, { recursive: true })
  // Under `pnpm test` the running pnpm is at npm_execpath; alone, npx fetches the same one.
  const execpath = process.env.npm_execpath ?? ""
  const [command, ...prefix] = /pnpm/.test(execpath)
    ? [process.execPath, execpath]
    : [process.platform === "win32" ? "npx.cmd" : "npx", "-y", "pnpm@10.34.9"]
  return Promise.all(packages().map(async (pkg) => {
    const { stdout } = await promisify(execFile)(command, [...prefix, "pack", "--pack-destination", folder], { cwd: pkg.dir })
    const tarball = stdout.trim().split("\n").filter((line) => line.endsWith(".tgz")).at(-1)
    if (tarball === undefined) throw new Error(`pack: no tarball for ${pkg.name}:\n${stdout}`)
    return { ...pkg, tarball: resolve(folder, tarball) }
  }))
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const { tarball } of await packAll(resolve(process.argv[2] ?? join(root, ".packed")))) console.log(tarball)
}
