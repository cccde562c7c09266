import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { describe, expect, it } from "vitest"
import { durableJobs } from "../src/compare/durable/Durable.js"
import { pairedHs } from "../src/compare/durable/section.js"
import { footprintSystems } from "../src/compare/footprint/Footprint.js"
import { systems, workloadsFor } from "../src/compare/Plan.js"

const bench = fileURLToPath(new URL("..", import.meta.url))

/** `pnpm bench smoke` with `BENCH_SECTIONS=sections`; its stdout. */
const smoke = async (sections: string): Promise<string> => {
  // The children inherit NODE_OPTIONS: they load @hookline/* from src, as the tests do.
  // Every system, whatever BENCH_SYSTEMS the caller has set.
  const { BENCH_SYSTEMS: _subset, BENCH_SECTIONS: _sections, ...inherited } = process.env
  const env = { ...inherited, BENCH_SECTIONS: sections, NODE_OPTIONS: `${process.env["NODE_OPTIONS"] ?? ""} --conditions=@hookline/source`.trim() }
  const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", "src/main.ts", "smoke"], {
    cwd: bench,
    env,
    maxBuffer: 16 * 2 ** 20,
  }).catch((e: { readonly stdout?: string; readonly stderr?: string; readonly message: string }) => {
    throw new Error(`pnpm bench smoke (${sections}) failed: ${e.message}\n${e.stdout ?? ""}\n${e.stderr ?? ""}`)
  })
  return stdout
}

const statusRows = (text: string): ReadonlyArray<string> => text.split("\n").filter((line) => /\|\s*(validated|FAILED)\s*\|$/.test(line))

describe("compare", () => {
  describe("smoke", () => {
    it("runs every system on every smoke configuration and validates each", async () => {
      const stdout = await smoke("main")
      const rows = statusRows(stdout)
      expect(rows.filter((line) => line.includes("FAILED"))).toEqual([])
      expect(rows).toHaveLength(systems.length * workloadsFor("smoke").length)
      expect(stdout).toContain(`(${rows.length} configurations, all validated`)
    }, 120_000)

    it("validates every durable row, every memory row and the MCP rows", async () => {
      const stdout = await smoke("durable,memory,mcp")
      const [durable = "", memory = "", mcp = ""] = stdout.split(/^## /m).slice(1)
      expect(statusRows(stdout).filter((line) => line.includes("FAILED"))).toEqual([])
      // Every system and store at every smoke H, read back from its store.
      expect(statusRows(durable)).toHaveLength(durableJobs("smoke").length)
      for (const saver of ["MemoryStore", "PgliteStore", "PostgresStore", "MemorySaver", "PostgresSaver", "MemorySession"]) expect(durable).toContain(`| ${saver} `)
      expect(statusRows(memory)).toHaveLength(footprintSystems.length)
      for (const row of ["local tool (no MCP)", "pooled: UseMcp(server, { pool })", "unpooled: UseMcp(server)"]) expect(mcp).toContain(`| ${row} `)
      // The durable rows, the PostgreSQL pairs (one per H of the small-history target) and the rest.
      expect(stdout).toContain(`(${durableJobs("smoke").length + pairedHs(durableJobs("smoke")).length + footprintSystems.length + 1} configurations, all validated`)
    }, 240_000)
  })
})
