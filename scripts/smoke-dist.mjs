// Imports every built package (and subpath) from dist, as ESM and as CommonJS, the way
// users will under Node itself (no bundler): both give the same names, and a working
// call goes through each. The ESM build is one module per source file: this is what
// proves its relative imports (.js) and its imports of fp-ts/io-ts (CommonJS packages)
// resolve in Node. Types: scripts/smoke-types.mjs.
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

// Every entry point of every package, through its name (the exports map), both ways.
for (const pkg of packages) {
  for (const subpath of Object.keys(pkg.exports).filter((s) => s !== "./package.json")) {
    const specifier = subpath === "." ? pkg.name : `${pkg.name}/${subpath.slice(2)}`
    const esm = await import(specifier)
    const cjs = require(specifier)
    const esmKeys = Object.keys(esm).filter((k) => k !== "default").sort()
    check(esmKeys.length > 0, `${specifier}: ESM build exports ${esmKeys.length} names`)
    check(JSON.stringify(Object.keys(cjs).sort()) === JSON.stringify(esmKeys), `${specifier}: CJS build exports the same names`)
  }
}

const both = [["ESM", (n) => import(n)], ["CJS", async (n) => require(n)]]
for (const [label, load] of both) {
  const core = await load("@hookline/core")
  const state = core.AgentState.make({ id: "smoke", messages: [core.Message.user("hi")] })
  const stack = core.Guards.useGuards({ maxSteps: 0 })
  const ctx = core.HookStack.run(stack, core.HookContext.make({ trigger: "BeforeStep", state, createdAt: 0 }))
  check(ctx.state.execution.stopSignals[0]?.reason === "StepsLimitReached", `@hookline/core (${label}): a guard fires through HookStack.run`)
  check(core.Truncation.truncate("x".repeat(100), 10).length < 100, `@hookline/core (${label}): Truncation.truncate cuts`)

  const { AgentBuilder, Driver, UseDriver } = await load("@hookline/agent")
  const { ScriptedDriver } = await load("@hookline/testing")
  const { UseModelRetry } = await load("@hookline/middleware")
  const final = await AgentBuilder.make(UseDriver(ScriptedDriver.make([ScriptedDriver.text("4")])), UseModelRetry()).run("2+2?")
  check(final.execution.status === "completed" && final.context.messages.at(-1)?.content === "4", `@hookline/agent, testing, middleware (${label}): a built agent runs`)
  const promised = await AgentBuilder.make(UseDriver(Driver.fromPromise({ generate: async () => ({ text: "ok" }) }))).run("hi")
  check(promised.execution.status === "completed", `@hookline/agent (${label}): a Driver.fromPromise agent runs`)

  const { MemoryStore, UseCheckpoints } = await load("@hookline/store")
  const store = MemoryStore.make()
  const stored = await AgentBuilder.make(UseDriver(ScriptedDriver.make([ScriptedDriver.text("kept")])), UseCheckpoints(store)).run("hi")
  const rows = await (await load("effect")).Effect.runPromise(store.rows(stored.id))
  check(rows.length > 0, `@hookline/store (${label}): a run is checkpointed in MemoryStore`)

  const { StoreConformance } = await load("@hookline/testing/store")
  const names = []
  StoreConformance.register((name) => names.push(name), async () => MemoryStore.make())
  check(names.length > 0, `@hookline/testing/store (${label}): StoreConformance registers ${names.length} cases`)

  const { AiSdkDriver } = await load("@hookline/ai-sdk")
  check(AiSdkDriver.finishReasonOf("tool-calls") === "tool-calls", `@hookline/ai-sdk (${label}): AiSdkDriver.finishReasonOf maps`)

  const { McpServer } = await load("@hookline/mcp")
  check(typeof McpServer.describe(McpServer.stdio({ name: "files", command: "node" })) === "string", `@hookline/mcp (${label}): McpServer.stdio describes`)

  const { Telemetry } = await load("@hookline/otel")
  check(typeof Telemetry.make().envelope === "function", `@hookline/otel (${label}): Telemetry.make gives an envelope`)

  const { Settings } = await load("@hookline/cluster")
  check(Settings.leaseMillis(Settings.defaults) === 10_000, `@hookline/cluster (${label}): Settings.leaseMillis reads the defaults`)
}

console.log(failures === 0 ? "smoke: all builds load" : `smoke: ${failures} failed`)
process.exit(failures === 0 ? 0 : 1)
