// Bundles what an app imports with esbuild (minified, ESM, from the built packages) and
// holds the sizes: a one-function import of core must stay under 20 KB (the ESM build is
// one module per source file and "sideEffects": false, so the rest of core is dropped),
// and a minimal agent on a Driver.fromPromise model within 10% of the figure recorded
// below (docs/packaging.md; update both when a change moves it on purpose). Each bundle
// is then run under Node, so a bundle that drops something it needs fails too.
// Needs a build. Usage: node scripts/check-bundle-size.mjs
import { execFileSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { build } from "esbuild"

const root = fileURLToPath(new URL("..", import.meta.url))

/**
 * The agent path's minified size, measured 2026-11-27 (esbuild 0.27.7, effect 4.1.0): 428,422 B
 * on 2026-11-26, 466,641 B at 883883e, then +8.1 KB for core's entry check without a copy
 * (codecs/itself.ts, branch entryis).
 */
export const agentPathBytes = 474_745

const cases = [
  {
    name: "core: Truncation.truncate",
    code: `import { Truncation } from "@hookline/core"\nconsole.log(Truncation.truncate("x".repeat(50), 10))`,
    expect: (out) => out.startsWith("x".repeat(10)) && out !== "x".repeat(50),
    holds: (bytes) => bytes < 20 * 1024,
    limit: "under 20 KB",
  },
  {
    name: "agent: AgentBuilder + Driver.fromPromise",
    code: [
      `import { AgentBuilder, Driver, UseDriver } from "@hookline/agent"`,
      `const agent = AgentBuilder.make(UseDriver(Driver.fromPromise({ generate: async () => ({ text: "4" }) })))`,
      `const final = await agent.run("2+2?")`,
      `console.log(final.execution.status, final.context.messages.at(-1)?.content)`,
    ].join("\n"),
    expect: (out) => out === "completed 4",
    holds: (bytes) => Math.abs(bytes - agentPathBytes) <= agentPathBytes * 0.1,
    limit: `within 10% of ${agentPathBytes} B`,
  },
]

const dir = mkdtempSync(join(tmpdir(), "hookline-bundle-"))
let failures = 0
try {
  for (const [i, c] of cases.entries()) {
    const outfile = join(dir, `bundle${i}.mjs`)
    const result = await build({
      stdin: { contents: c.code, resolveDir: root, loader: "js" },
      bundle: true,
      minify: true,
      format: "esm",
      platform: "node",
      target: "es2022",
      outfile,
      write: true,
      metafile: true,
      logLevel: "silent",
    })
    const bytes = Object.values(result.metafile.outputs)[0].bytes
    const out = execFileSync(process.execPath, [outfile], { encoding: "utf8" }).trim()
    const ok = c.holds(bytes) && c.expect(out)
    if (!ok) failures++
    console.log(`${ok ? "ok  " : "FAIL"} ${c.name}: ${bytes} B minified (${c.limit}); it ran: ${JSON.stringify(out)}`)
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
console.log(failures === 0 ? "check-bundle-size: every bundle holds" : `check-bundle-size: ${failures} failed`)
process.exit(failures === 0 ? 0 : 1)
