// The one tsup setup every package builds with (each packages/*/tsup.config.ts calls it).
// ESM: one module per source file (bundle: false), so a bundler keeps only what an app
// imports ("sideEffects": false). CommonJS: one file per entry point (the exports map).
// Declarations come from tsc afterwards (scripts/emit-types.mjs).
import { readFileSync, rmSync } from "node:fs"
import type { Options } from "tsup"

type Exports = Record<string, string | { readonly "@hookline/source"?: string }>

/** The source file of every entry point in the package's exports map. */
const entryPoints = (): Array<string> => {
  const exports = (JSON.parse(readFileSync("package.json", "utf8")) as { exports: Exports }).exports
  return Object.values(exports).flatMap((e) => (typeof e === "object" && e["@hookline/source"] !== undefined ? [e["@hookline/source"]] : []))
}

export const packageConfig = (): Array<Options> => {
  // Cleaned once here: the two builds run at once, and tsup's `clean` in either would
  // delete what the other wrote.
  rmSync("dist", { recursive: true, force: true })
  const common: Options = { sourcemap: true, clean: false, target: "es2022", tsconfig: "tsconfig.build.json", dts: false }
  return [
    { ...common, entry: ["src/**/*.ts"], format: ["esm"], bundle: false },
    { ...common, entry: entryPoints(), format: ["cjs"] },
  ]
}
