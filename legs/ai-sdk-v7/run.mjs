// The CI legs of @hookline/ai-sdk on AI SDK 7 (`pnpm test:legs`, part of `pnpm test`):
// the driver's source type-checked against ai 7, the dist's declarations as an ai 7 app
// sees them (agent-types.ts), then under Node 22 and Node 24 (the
// binaries of npm's `node` package, pinned here) the driver's suite from source against
// ai 7 and @ai-sdk/openai 4 over the loopback OpenAI-compatible server, the repo's dist
// smoke, and the dist driving an AI SDK 7 model. Needs `pnpm build` first (the dist).
// Runs one step at a time (CI has 2 cores) and prints how long each took. vitest and
// typescript are the workspace root's (one copy of each in the lockfile).
import { spawnSync } from "node:child_process"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const here = fileURLToPath(new URL(".", import.meta.url))
const root = fileURLToPath(new URL("../..", import.meta.url))
const fromRoot = createRequire(`${root}package.json`)
const tsc = fromRoot.resolve("typescript/bin/tsc")
const vitest = join(dirname(fromRoot.resolve("vitest/package.json")), "vitest.mjs")
const nodes = [
  [22, fileURLToPath(new URL("./node_modules/node22/bin/node", import.meta.url))],
  [24, fileURLToPath(new URL("./node_modules/node24/bin/node", import.meta.url))],
]

let failed = 0
const step = (what, bin, args, options = {}) => {
  const started = performance.now()
  const result = spawnSync(bin, args, { cwd: root, stdio: "inherit", ...options })
  const seconds = ((performance.now() - started) / 1000).toFixed(1)
  const ok = result.status === 0
  if (!ok) failed++
  console.log(`${ok ? "ok  " : "FAIL"} ${what} (${seconds} s)`)
  return ok
}

step("types: the driver's source against ai 7", process.execPath, [tsc, "-p", `${here}tsconfig.json`])
step("types: the dist's toAiSdkAgent is ai 7's Agent", process.execPath, [tsc, "-p", `${here}tsconfig.dist.json`])
for (const [major, node] of nodes) {
  const version = spawnSync(node, ["-p", "process.versions.node"], { encoding: "utf8" }).stdout?.trim() ?? ""
  if (!step(`Node ${major}: the binary is Node ${version}`, node, ["-e", `process.exit(process.versions.node.split(".")[0] === "${major}" ? 0 : 1)`])) continue
  step(`Node ${major}: the driver's suite on ai 7`, node, [vitest, "run", "--config", `${here}vitest.config.ts`])
  step(`Node ${major}: the dist smoke`, node, ["scripts/smoke-dist.mjs"], { stdio: ["inherit", "ignore", "inherit"] })
  step(`Node ${major}: the dist on ai 7`, node, ["--import", `${here}redirect-ai.mjs`, `${here}smoke-dist.mjs`])
}

console.log(failed === 0 ? "legs (ai 7 on Node 22 and 24): all passed" : `legs: ${failed} failed`)
process.exit(failed === 0 ? 0 : 1)
