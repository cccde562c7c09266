import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "vitest"

const script = fileURLToPath(new URL("../build-stale.mjs", import.meta.url))
const root = mkdtempSync(join(tmpdir(), "build-stale-"))
afterAll(() => rmSync(root, { recursive: true, force: true }))

// A workspace of two packages whose build counts its runs in dist/builds.txt.
const build = "node -e \"const f=require('fs');f.mkdirSync('dist',{recursive:true});let n=0;try{n=+f.readFileSync('dist/builds.txt','utf8')}catch{};f.writeFileSync('dist/builds.txt',String(n+1))\""
for (const name of ["core", "extra"]) {
  mkdirSync(join(root, "packages", name, "src"), { recursive: true })
  writeFileSync(join(root, "packages", name, "package.json"), JSON.stringify({ name: `@t/${name}`, scripts: { build } }))
  writeFileSync(join(root, "packages", name, "src", "index.ts"), "export {}\n")
}
writeFileSync(join(root, "tsconfig.base.json"), "{}\n")

const run = () => execFileSync(process.execPath, [script, root], { encoding: "utf8" })
const builds = (name: string) => Number(readFileSync(join(root, "packages", name, "dist", "builds.txt"), "utf8"))

describe("build-stale", () => {
  it("builds every package once, skips them while nothing changed, and rebuilds the one whose source changed", () => {
    expect(run()).toContain("build-stale: 2 of 2 package(s) built")
    expect(run()).toContain("build-stale: 0 of 2 package(s) built")
    expect([builds("core"), builds("extra")]).toEqual([1, 1])

    const later = new Date(Date.now() + 60_000)
    utimesSync(join(root, "packages", "extra", "src", "index.ts"), later, later)
    const output = run()
    expect(output).toContain("@t/core: up to date")
    expect(output).toContain("@t/extra: building")
    expect([builds("core"), builds("extra")]).toEqual([1, 2])

    // A change to the shared compiler settings rebuilds everything.
    const latest = new Date(Date.now() + 120_000)
    utimesSync(join(root, "tsconfig.base.json"), latest, latest)
    expect(run()).toContain("build-stale: 2 of 2 package(s) built")
  })
})
