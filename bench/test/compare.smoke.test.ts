import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { describe, expect, it } from "vitest"
import { systems, workloadsFor } from "../src/compare/Plan.js"

const bench = fileURLToPath(new URL("..", import.meta.url))

describe("compare", () => {
  describe("smoke", () => {
    it("runs every system on every smoke configuration and validates each", async () => {
      // The children inherit NODE_OPTIONS: they load @hookline/* from src, as the tests do.
      // Every system, whatever BENCH_SYSTEMS the caller has set.
      const { BENCH_SYSTEMS: _subset, ...inherited } = process.env
      const env = { ...inherited, NODE_OPTIONS: `${process.env["NODE_OPTIONS"] ?? ""} --conditions=@hookline/source`.trim() }
      const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", "src/main.ts", "smoke"], {
        cwd: bench,
        env,
        maxBuffer: 16 * 2 ** 20,
      }).catch((e: { readonly stdout?: string; readonly stderr?: string; readonly message: string }) => {
        throw new Error(`pnpm bench smoke failed: ${e.message}\n${e.stdout ?? ""}\n${e.stderr ?? ""}`)
      })
      const rows = stdout.split("\n").filter((line) => /\|\s*(validated|FAILED)\s*\|$/.test(line))
      expect(rows.filter((line) => line.includes("FAILED"))).toEqual([])
      expect(rows).toHaveLength(systems.length * workloadsFor("smoke").length)
      expect(stdout).toContain(`(${rows.length} configurations, all validated`)
    }, 120_000)
  })
})
