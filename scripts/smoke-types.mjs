// Type-checks a consumer of every package's built declarations (scripts/smoke-types/
// consumer.ts) in each resolution mode a user may have, as ESM and as CommonJS, with
// skipLibCheck: false, so every .d.ts the packages ship (and what they import) is checked.
// Needs a build (`pnpm build`). Usage: node scripts/smoke-types.mjs [mode ...]
import { execFile } from "node:child_process"
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"

const root = fileURLToPath(new URL("..", import.meta.url))
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc")
const out = join(root, ".smoke-types")

// mode -> compiler options and the consumer files (.mts is ESM, .cts CommonJS, .ts per `module`).
const modes = {
  node16: { options: { module: "node16", moduleResolution: "node16" }, files: ["consumer.mts", "consumer.cts"] },
  node18: { options: { module: "node18", moduleResolution: "node16" }, files: ["consumer.mts", "consumer.cts"] },
  nodenext: { options: { module: "nodenext", moduleResolution: "nodenext" }, files: ["consumer.mts", "consumer.cts"] },
  bundler: { options: { module: "esnext", moduleResolution: "bundler" }, files: ["consumer.ts"] },
}

const wanted = process.argv.length > 2 ? process.argv.slice(2) : Object.keys(modes)
rmSync(out, { recursive: true, force: true })

const check = async (mode) => {
  const dir = join(out, mode)
  mkdirSync(dir, { recursive: true })
  for (const file of modes[mode].files) copyFileSync(join(root, "scripts", "smoke-types", "consumer.ts"), join(dir, file))
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({
    compilerOptions: { ...modes[mode].options, target: "ES2022", strict: true, noEmit: true, skipLibCheck: false, types: [] },
    files: modes[mode].files,
  }, null, 2))
  try {
    await promisify(execFile)(process.execPath, [tsc, "-p", join(dir, "tsconfig.json"), "--pretty", "false"], { cwd: dir })
    return { mode, ok: true, report: "" }
  } catch (error) {
    return { mode, ok: false, report: `${error.stdout ?? ""}${error.stderr ?? ""}` }
  }
}

// Two at a time: each tsc is one busy core.
const results = []
for (let i = 0; i < wanted.length; i += 2) results.push(...await Promise.all(wanted.slice(i, i + 2).map(check)))
for (const { mode, ok, report } of results) {
  console.log(`${ok ? "ok  " : "FAIL"} types in ${mode} (${modes[mode].files.join(", ")}, skipLibCheck: false)`)
  if (!ok) console.log(report.split("\n").slice(0, 40).join("\n"))
}
const failed = results.filter((r) => !r.ok).length
console.log(failed === 0 ? "smoke-types: every mode compiles" : `smoke-types: ${failed} mode(s) failed`)
process.exit(failed === 0 ? 0 : 1)
