/**
 * MCP run overhead in the comparison: `pnpm bench mcp` (mcp.ts: a real stdio MCP
 * server, pooled and not) run as a child of its own, in the comparison's mode
 * (smoke: `BENCH_SMOKE=1`, every case run and validated, figures meaningless), its
 * table printed as it is. hookline only: the peers' MCP clients are not measured.
 */
import { fileURLToPath } from "node:url"
import type { Mode } from "./Plan.js"
import { spawnChild } from "./run.js"

const main = fileURLToPath(new URL("../main.ts", import.meta.url))

export interface McpSection {
  readonly ok: boolean
  /** The child's stdout (the table), or why it failed with the tail of its stderr. */
  readonly text: string
}

export const runMcp = async (mode: Mode): Promise<McpSection> => {
  const { BENCH_SMOKE: _smoke, BENCH_QUICK: _quick, ...env } = process.env
  const exit = await spawnChild(main, ["mcp"], 30 * 60_000, {
    ...env,
    ...(mode === "smoke" ? { BENCH_SMOKE: "1" } : mode === "quick" ? { BENCH_QUICK: "1" } : {}),
  })
  const ok = exit.why === "exit code 0"
  return { ok, text: ok ? exit.stdout.trimEnd() : `FAILED: mcp: ${exit.why}\n${exit.stdout}\n${exit.stderr}` }
}
