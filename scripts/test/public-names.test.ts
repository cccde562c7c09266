// The runtime names every package exports (issue 23): each name of the package's index,
// with its kind, and recursively the members of each namespace, compared with the snapshot
// in packages/<name>/test/golden/names.txt. A name that goes, comes or changes kind fails
// here; the types behind the names are checked by scripts/check-declarations.mjs.
//
//   npx vitest run scripts/test/public-names.test.ts                    compare
//   GOLDEN_RECORD=1 npx vitest run scripts/test/public-names.test.ts    re-record
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

const root = fileURLToPath(new URL("../..", import.meta.url))
const recording = process.env["GOLDEN_RECORD"] === "1"

/** The published packages: folder and name. */
const packages = readdirSync(join(root, "packages"))
  .filter((dir) => existsSync(join(root, "packages", dir, "package.json")))
  .map((dir) => ({ dir, pkg: JSON.parse(readFileSync(join(root, "packages", dir, "package.json"), "utf8")) as { name: string; private?: boolean } }))
  .filter(({ pkg }) => pkg.private !== true)
  .sort((a, b) => (a.dir < b.dir ? -1 : 1))

const isNamespace = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && (value as { [Symbol.toStringTag]?: unknown })[Symbol.toStringTag] === "Module"

/** What a value is: namespace, class, function, array, null, or its typeof. */
export const kindOf = (value: unknown): string =>
  isNamespace(value)
    ? "namespace"
    : typeof value === "function"
    ? /^class[\s{]/.test(Function.prototype.toString.call(value)) ? "class" : "function"
    : Array.isArray(value)
    ? "array"
    : value === null
    ? "null"
    : typeof value

/** One line per exported name, `path kind`, sorted, namespaces walked into (once each). */
export const namesOf = (module: Record<string, unknown>): ReadonlyArray<string> => {
  const lines: Array<string> = []
  const seen = new Set<unknown>()
  const walk = (ns: Record<string, unknown>, prefix: string): void => {
    seen.add(ns)
    for (const key of Object.keys(ns).sort()) {
      const value = ns[key]
      const kind = kindOf(value)
      lines.push(`${prefix}${key} ${kind}${isNamespace(value) && seen.has(value) ? " (seen)" : ""}`)
      if (isNamespace(value) && !seen.has(value)) walk(value, `${prefix}${key}.`)
    }
  }
  walk(module, "")
  return lines
}

describe("the packages' public names", () => {
  it.each(packages)("$pkg.name exports the names recorded in test/golden/names.txt", async ({ dir, pkg }) => {
    const text = `${namesOf(await import(pkg.name)).join("\n")}\n`
    const file = join(root, "packages", dir, "test", "golden", "names.txt")
    if (recording) {
      mkdirSync(join(root, "packages", dir, "test", "golden"), { recursive: true })
      writeFileSync(file, text)
      return
    }
    expect(existsSync(file), `no snapshot of ${pkg.name}'s names: GOLDEN_RECORD=1 npx vitest run scripts/test/public-names.test.ts`).toBe(true)
    // A failure shows the names that went (-) and came (+); re-record if the change is meant.
    expect(text).toBe(readFileSync(file, "utf8"))
  })
})

describe("kindOf", () => {
  it("tells namespaces, classes, functions, arrays and null apart", async () => {
    expect(kindOf(await import("node:path"))).toBe("namespace")
    expect(kindOf(class {})).toBe("class")
    expect(kindOf(() => 1)).toBe("function")
    expect(kindOf([1])).toBe("array")
    expect(kindOf(null)).toBe("null")
    expect(kindOf("x")).toBe("string")
  })
})
