import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import * as cycles from "../check-cycles.mjs"

type Graph = cycles.Graph

const dir = mkdtempSync(join(tmpdir(), "check-cycles-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

let trees = 0
/** A repository of packages/<pkg>/src files; returns its root. */
const tree = (files: Record<string, string>): string => {
  const base = join(dir, `t${trees++}`)
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(base, path)), { recursive: true })
    writeFileSync(join(base, path), text)
  }
  return base
}

describe("check-cycles", () => {
  describe("importGraph", () => {
    it("counts type-only imports, type re-exports and import() types, resolving .js to .ts", () => {
      const base = tree({
        "packages/p/src/A.ts": 'import type { B } from "./B.js"\nexport type A = B',
        "packages/p/src/B.ts": 'export type { C } from "./internal/C.js"\nexport type B = import("./A.js").A',
        "packages/p/src/internal/C.ts": 'import { x } from "effect"\nexport type C = 1',
      })
      const graph = cycles.importGraph(base)
      expect(Object.fromEntries(graph)).toEqual({
        "packages/p/src/A.ts": ["packages/p/src/B.ts"],
        "packages/p/src/B.ts": ["packages/p/src/A.ts", "packages/p/src/internal/C.ts"],
        "packages/p/src/internal/C.ts": [],
      })
      expect(cycles.circlesOf(graph)).toEqual([["packages/p/src/A.ts", "packages/p/src/B.ts"]])
    })
  })

  describe("circlesOf", () => {
    it("finds each strongly connected component once, sorted, and ignores acyclic chains", () => {
      const graph: Graph = new Map([
        ["a", ["b"]],
        ["b", ["c"]],
        ["c", ["a", "d"]],
        ["d", ["e"]],
        ["e", ["d"]],
        ["f", ["a"]],
      ])
      expect(cycles.circlesOf(graph)).toEqual([["a", "b", "c"], ["d", "e"]])
    })
  })

  describe("check", () => {
    const listed = [["a", "b", "c"], ["d", "e"]]
    it("passes when the circles are exactly the listed ones", () => {
      expect(cycles.check(listed, listed)).toEqual({ ok: true, lines: [] })
    })
    it("fails on a circle that is not listed", () => {
      const result = cycles.check([...listed, ["x", "y"]], listed)
      expect(result.ok).toBe(false)
      expect(result.lines).toEqual(["new circle (2 files), not in scripts/cycles-allowed.json: x, y"])
    })
    it("fails when a listed circle grew", () => {
      const result = cycles.check([["a", "b", "c", "z"], ["d", "e"]], listed)
      expect(result.ok).toBe(false)
      expect(result.lines[0]).toMatch(/^new circle \(4 files\)/)
    })
    it("fails when a listed circle is gone, so the list only shrinks", () => {
      const result = cycles.check([["a", "b", "c"]], listed)
      expect(result.ok).toBe(false)
      expect(result.lines).toEqual([expect.stringMatching(/^a listed circle no longer exists: .*: d, e$/)])
    })
    it("fails when a listed circle shrank, asking for the list to be updated", () => {
      const result = cycles.check([["a", "b"], ["d", "e"]], listed)
      expect(result.ok).toBe(false)
      expect(result.lines).toEqual([expect.stringMatching(/^a listed circle shrank to 2 files/)])
    })
  })
})
