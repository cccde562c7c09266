// Emits a package's declarations with tsc (rollup-based .d.ts bundling cannot carry
// the `Module`-as-namespace-and-type exports of src/index.ts), once for ESM consumers
// (dist/types) and once for CommonJS consumers (dist/types-cjs, a "commonjs" scope).
//
// In the CommonJS copy, a package that ships ES modules only (effect) cannot be
// `import`ed under `module: node16`/`node18` (TS1479): there its imports become
// type-only imports with `resolution-mode: "import"`, which every mode accepts (TS 5.3+).
import { execFileSync } from "node:child_process"
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"

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

/** The package name of a bare specifier (`effect/Cause` -> `effect`). */
const packageOf = (specifier) => specifier.split("/").slice(0, specifier.startsWith("@") ? 2 : 1).join("/")

/** The package.json of a dependency, as Node finds it from this package. */
const manifestOf = (name) => {
  for (let dir = process.cwd(); ; dir = dirname(dir)) {
    const file = join(dir, "node_modules", name, "package.json")
    if (existsSync(file)) return JSON.parse(readFileSync(file, "utf8"))
    if (dirname(dir) === dir) throw new Error(`emit-types: cannot find the package ${name}`)
  }
}

/**
 * Whether a bare specifier's types are ES-module-only for a CommonJS consumer: its
 * export entry (the subpath's, e.g. `@modelcontextprotocol/sdk/validation`) has no
 * `require` condition, or its types come first from a `.d.ts` that a `"type": "module"`
 * package makes an ES module (a `types` condition before `require` applies to both).
 */
const esmOnly = new Map()
const isEsmOnly = (specifier) => {
  if (!esmOnly.has(specifier)) {
    const name = packageOf(specifier)
    const manifest = manifestOf(name)
    const subpath = "." + specifier.slice(name.length)
    const exports = manifest.exports
    const entry = typeof exports === "object" && exports !== null && (subpath in exports || "." in exports)
      ? exports[subpath] ?? (subpath === "." ? exports["."] : undefined)
      : subpath === "." ? exports : undefined
    const moduleScope = manifest.type === "module"
    const esmTypes = (types) => typeof types === "string" && moduleScope && !types.endsWith(".d.cts")
    const requirable = entry === undefined
      ? !moduleScope
      : typeof entry === "string"
      ? !moduleScope || entry.endsWith(".cjs")
      : JSON.stringify(entry).includes('"require"') && !(Object.keys(entry)[0] === "types" && esmTypes(entry.types))
    esmOnly.set(specifier, !requirable)
  }
  return esmOnly.get(specifier)
}

const attribute = `with { "resolution-mode": "import" }`
const bare = (specifier) => !specifier.startsWith(".") && !specifier.startsWith("node:")
const rewrite = (text) =>
  text
    // import { A } from "effect";  ->  import type { A } from "effect" with { ... };
    .replace(/^(import|export)( type)? ([^;]*?) from "([^"]+)";$/gm, (line, keyword, type, names, specifier) =>
      bare(specifier) && isEsmOnly(specifier)
        ? `${keyword} type ${names.replace(/\btype /g, "")} from "${specifier}" ${attribute};`
        : line)
    // import("effect/Cause").Cause  ->  import("effect/Cause", { with: { ... } }).Cause
    .replace(/import\("([^"]+)"\)/g, (call, specifier) =>
      bare(specifier) && isEsmOnly(specifier) ? `import("${specifier}", { ${attribute.replace(" {", ": {")} })` : call)

for (const file of readdirSync(join(dist, "types-cjs"), { recursive: true })) {
  if (!file.endsWith(".d.ts")) continue
  const path = join(dist, "types-cjs", file)
  const text = readFileSync(path, "utf8")
  const out = rewrite(text)
  if (out !== text) writeFileSync(path, out)
}
