// Every `@since` in the packages' sources names a version the package has reached: the
// first published version is 0.1.0, so an API cannot say it came in a later one.
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

const root = fileURLToPath(new URL("../..", import.meta.url))
const parts = (v: string) => v.split(".").map(Number)
const notAfter = (a: string, b: string) => {
  const [x, y] = [parts(a), parts(b)]
  for (let i = 0; i < 3; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) < (y[i] ?? 0)
  return true
}

describe("@since tags", () => {
  it("name no version after the package's own", () => {
    const late: Array<string> = []
    for (const dir of readdirSync(join(root, "packages"))) {
      const { version } = JSON.parse(readFileSync(join(root, "packages", dir, "package.json"), "utf8")) as { version: string }
      const src = join(root, "packages", dir, "src")
      for (const file of readdirSync(src, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"))) {
        for (const [i, line] of readFileSync(join(src, file), "utf8").split("\n").entries()) {
          const since = /@since (\d+\.\d+\.\d+)/.exec(line)?.[1]
          if (since !== undefined && !notAfter(since, version)) late.push(`packages/${dir}/src/${file}:${i + 1}: @since ${since} (package ${version})`)
        }
      }
    }
    expect(late).toEqual([])
  })
})
