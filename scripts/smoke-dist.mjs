// Imports every built package from dist, as ESM and as CommonJS, the way users will,
// and checks both give the same working API. Then type-checks a consumer of each
// package's published declarations under both module systems.
import { execFileSync } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const require = createRequire(join(root, "scripts", "smoke-dist.mjs"))
const packages = readdirSync(join(root, "packages"))
  .map((dir) => JSON.parse(readFileSync(join(root, "packages", dir, "package.json"), "utf8")))
  .filter((pkg) => !pkg.private)

let failures = 0
const check = (ok, what) => {
  console.log(`${ok ? "ok  " : "FAIL"} ${what}`)
  if (!ok) failures++
}

for (const pkg of packages) {
  const dir = join(root, "packages", pkg.name.split("/")[1])
  const esm = await import(join(dir, pkg.exports["."].import.default))
  const cjs = require(join(dir, pkg.exports["."].require.default))
  const esmKeys = Object.keys(esm).sort()
  check(esmKeys.length > 0, `${pkg.name}: ESM build exports ${esmKeys.length} names`)
  check(JSON.stringify(Object.keys(cjs).sort()) === JSON.stringify(esmKeys), `${pkg.name}: CJS build exports the same names`)
}

// A working call through each build of the core.
const core = await import("@hookline/core")
const coreCjs = require("@hookline/core")
for (const [label, m] of [["ESM", core], ["CJS", coreCjs]]) {
  const state = m.AgentState.make({ id: "smoke", messages: [m.Message.user("hi")] })
  const stack = m.Guards.useGuards({ maxSteps: 0 })
  const ctx = m.HookStack.run(stack, m.HookContext.make({ trigger: "BeforeStep", state, createdAt: 0 }))
  check(ctx.state.execution.stopSignals[0]?.reason === "StepsLimitReached", `@hookline/core (${label}): a guard fires through HookStack.run`)
}

// The agent, built with the builder, answers through each build.
for (const [label, load] of [["ESM", (n) => import(n)], ["CJS", async (n) => require(n)]]) {
  const { AgentBuilder, UseDriver } = await load("@hookline/agent")
  const { ScriptedDriver } = await load("@hookline/testing")
  const final = await AgentBuilder.make(UseDriver(ScriptedDriver.make([ScriptedDriver.text("4")]))).run("2+2?")
  check(final.execution.status === "completed" && final.context.messages.at(-1)?.content === "4", `@hookline/agent (${label}): a built agent runs`)
}

// Types as published: a consumer under node16 resolution, as ESM (.mts) and CJS (.cts).
const tsc = require.resolve("typescript/bin/tsc")
try {
  execFileSync(process.execPath, [tsc, "-p", join(root, "scripts", "smoke-types", "tsconfig.json")], { stdio: "inherit" })
  check(true, "published declarations type-check from ESM and CJS consumers")
} catch {
  check(false, "published declarations type-check from ESM and CJS consumers")
}

console.log(failures === 0 ? "smoke: all builds load" : `smoke: ${failures} failed`)
process.exit(failures === 0 ? 0 : 1)
