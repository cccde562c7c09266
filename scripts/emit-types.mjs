// Emits a package's declarations with tsc (rollup-based .d.ts bundling cannot carry
// the `Module`-as-namespace-and-type exports of src/index.ts), once for ESM consumers
// (dist/types) and once for CommonJS consumers (dist/types-cjs, a "commonjs" scope).
import { execFileSync } from "node:child_process"
import { cpSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"

const require = createRequire(import.meta.url)
const tsc = require.resolve("typescript/bin/tsc")
const dist = join(process.cwd(), "dist")

rmSync(join(dist, "types"), { recursive: true, force: true })
rmSync(join(dist, "types-cjs"), { recursive: true, force: true })
execFileSync(process.execPath, [tsc, "-p", "tsconfig.build.json", "--emitDeclarationOnly", "--declarationMap", "--outDir", join(dist, "types")], {
  stdio: "inherit",
})
cpSync(join(dist, "types"), join(dist, "types-cjs"), { recursive: true })
writeFileSync(join(dist, "types-cjs", "package.json"), JSON.stringify({ type: "commonjs" }) + "\n")
