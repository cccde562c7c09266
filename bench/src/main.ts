/**
 * `pnpm bench`: the dispatch benchmark of @hookline/core, the agent-loop benchmark of
 * @hookline/agent, W3 (memory of every state of a run) and the comparison with other
 * frameworks (compare/), the cost of checkpoints per step (store.ts), and a run's MCP
 * overhead, pooled and not (mcp.ts). `pnpm bench dispatch`, `pnpm bench loop`,
 * `pnpm bench memory`, `pnpm bench store`, `pnpm bench mcp` or `pnpm bench compare` runs
 * one of them. `pnpm bench cluster` (never part of a plain `pnpm bench`) runs the cluster bench
 * (cluster.ts): runner processes on embedded PostgreSQL.
 * Results go to stdout (Markdown tables, pasted as they are into docs/performance.md);
 * progress goes to stderr. `BENCH_QUICK=1` runs a very short version whose figures are
 * only indicative. `pnpm bench smoke` (or `BENCH_SMOKE=1 pnpm bench`) is the CI check of
 * the comparison: every system validated on a few runs, no timings.
 */
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { compare } from "./compare/compare.js"
import { modeFromEnv, sectionsFromEnv, systemsFromEnv } from "./compare/Plan.js"
import { cases, observed, report, type DispatchRow, type ExtraRow } from "./dispatch.js"
import * as Loop from "./loop.js"
import { mcpBench, mcpSettingsFromEnv } from "./mcp.js"
import * as UserPath from "./UserPath.js"
import { getChecksum, machine, measure, settingsFromEnv, type Summary } from "./measure.js"
import { formatCount, formatNs, formatRatio, formatSpread, print, type Column } from "./table.js"

const benches = ["dispatch", "loop", "memory", "store", "mcp", "compare", "smoke", "cluster"] as const
const args = process.argv.slice(2)
for (const name of args) {
  if (!(benches as ReadonlyArray<string>).includes(name)) {
    console.error(`unknown benchmark ${JSON.stringify(name)}: expected ${benches.join(", ")} (or nothing, for all but smoke)`)
    process.exit(2)
  }
}
// `smoke` is the comparison in smoke mode; BENCH_SMOKE=1 with nothing named means the same.
const smoke = args.includes("smoke") || (args.length === 0 && process.env["BENCH_SMOKE"] === "1")
const chosen = smoke ? [...args.filter((name) => name !== "smoke"), "compare"] : args
const selected = (name: (typeof benches)[number]): boolean => (chosen.length === 0 && name !== "cluster") || chosen.includes(name)
const settings = settingsFromEnv()
const progress = (line: string): void => {
  process.stderr.write(`${line}\n`)
}

const dispatchBench = async (): Promise<void> => {
  const all = cases()
  const started = performance.now()
  const results = await measure(all, settings, progress)
  const { rows, extras, verdicts } = report(results)
  const seconds = (performance.now() - started) / 1000

  const batches = [...results.values()]
  const minSamples = Math.min(...batches.map((s) => s.samples))

  console.log(`# dispatch benchmark of @hookline/core${settings.quick ? " (BENCH_QUICK=1: indicative only)" : ""}`)
  console.log("")
  console.log(`${machine()}`)
  console.log(
    `tinybench: ${settings.timeMs} ms per case after ${settings.warmupMs} ms warm-up (every case pre-warmed ${settings.preWarmMs} ms first); ` +
      `one sample = one batch of calls lasting >= ${settings.batchNs / 1000} µs; >= ${minSamples} samples per case; ${seconds.toFixed(0)} s in all`,
  )
  console.log("ns per call: median of the batch means (p10–p90 in brackets)")
  console.log("")

  const mainColumns: ReadonlyArray<Column<DispatchRow>> = [
    { header: "K", align: "right", cell: (r) => String(r.K) },
    { header: "H (messages)", align: "right", cell: (r) => formatCount(r.H) },
    { header: "hookline ns/call", align: "right", cell: (r) => formatSpread(r.hookline) },
    { header: "bare loop ns/call", align: "right", cell: (r) => formatSpread(r.bare) },
    { header: "ns/hook (hookline/K)", align: "right", cell: (r) => (r.perHook === undefined ? "–" : formatNs(r.perHook)) },
    { header: "ratio per hook call", align: "right", cell: (r) => (r.ratio === undefined ? "–" : formatRatio(r.ratio)) },
    { header: "vs H=10 (flatness)", align: "right", cell: (r) => formatRatio(r.flatness) },
  ]
  print(mainColumns, rows)
  console.log("")
  for (const verdict of verdicts) console.log(verdict.text)
  console.log("")

  const extraColumns: ReadonlyArray<Column<ExtraRow>> = [
    { header: "path", cell: (r) => r.path },
    { header: "K", align: "right", cell: (r) => String(r.K) },
    { header: "H (messages)", align: "right", cell: (r) => formatCount(r.H) },
    { header: "ns/call", align: "right", cell: (r) => formatSpread(r.summary) },
    { header: "vs HookStack.run, no sink", align: "right", cell: (r) => formatRatio(r.vsHotPath) },
  ]
  console.log("Other paths, same observers (K hooks, H messages):")
  console.log("")
  print(extraColumns, extras)
  console.log("")

  const { seen, events } = observed()
  console.log(`(checksums, so nothing is optimized away: ${getChecksum()} results, ${seen} messages seen by hooks, ${events} events)`)
}

const loopBench = async (): Promise<void> => {
  const loopSettings = Loop.loopSettingsFromEnv()
  const started = performance.now()
  const { w1, wrapped, w2, user, verdicts, userVerdicts, minRuns } = await Loop.runLoop(loopSettings, progress)
  const loopSeconds = (performance.now() - started) / 1000
  const partResults = await Loop.measureParts(settings, progress)
  const seconds = (performance.now() - started) / 1000

  const us = (s: Loop.RunSummary, x: number): string => formatNs(x / s.steps)
  const perStepSpread = (s: Loop.RunSummary): string => `${us(s, s.p50)} (${us(s, s.p10)}–${us(s, s.p90)})`

  console.log(`# agent-loop benchmark of @hookline/agent${loopSettings.quick ? " (BENCH_QUICK=1: indicative only)" : ""}`)
  console.log("")
  console.log(`${machine()}`)
  console.log(
    `whole runs, each timed alone (one agent.run, one consumed agent.stream, one Effect.runPromise(AgentLoop.run(...)), or one run of the bare loop); every case run ${loopSettings.preWarmMs} ms first, ` +
      `then ${loopSettings.rounds} rounds that visit every case in turn: >= ${loopSettings.timeMs} ms and >= ${loopSettings.minRuns} runs per case ` +
      `(>= ${minRuns} runs per case here); ${loopSeconds.toFixed(0)} s`,
  )
  console.log("µs per step = µs per run / steps: median over the runs (p10–p90 in brackets)")
  console.log("")

  console.log(
    `The user path, W1 (${Loop.w1Steps} steps, K observers on every trigger): the Promise facade (await agent.run(state)) and the streaming facade ` +
      `(for await (const event of agent.stream(state))) of an AgentBuilder agent, with Driver.fromPromise and an async generate, an async tool (io-ts arguments), ` +
      `the default guards (maxSteps ${UserPath.maxSteps}), K observers added with UseHook on HookTriggers.all; ` +
      `internal: Effect.runPromise(AgentLoop.run(...)) with an Effect driver and a synchronous tool (the W1 table below)`,
  )
  console.log("")
  const userColumns: ReadonlyArray<Column<Loop.UserRow>> = [
    { header: "K", align: "right", cell: (r) => String(r.K) },
    { header: "Promise facade µs/step", align: "right", cell: (r) => perStepSpread(r.facade) },
    { header: "streamed µs/step", align: "right", cell: (r) => perStepSpread(r.stream) },
    { header: "streamed/facade", align: "right", cell: (r) => formatRatio(r.stream.p50 / r.facade.p50) },
    { header: "internal µs/step", align: "right", cell: (r) => perStepSpread(r.internal) },
    { header: "facade/internal", align: "right", cell: (r) => formatRatio(r.facade.p50 / r.internal.p50) },
    { header: "facade runs/s", align: "right", cell: (r) => formatCount(Math.round(1e6 / r.facade.p50)) },
  ]
  print(userColumns, user)
  console.log("")
  for (const verdict of userVerdicts) console.log(verdict.text)
  console.log("")

  console.log(
    `W1 (internal path): one run of ${Loop.w1Steps} steps (${Loop.w1Steps - 1} echo tool calls, then a final text), K observers on every trigger; ` +
      `${Loop.dispatchesPerRun(Loop.w1Steps)} dispatches per run`,
  )
  console.log("")
  const w1Columns: ReadonlyArray<Column<Loop.LoopRow>> = [
    { header: "K", align: "right", cell: (r) => String(r.K) },
    { header: "hook calls/run", align: "right", cell: (r) => formatCount(r.K * Loop.dispatchesPerRun(r.steps)) },
    { header: "hookline µs/step", align: "right", cell: (r) => perStepSpread(r.hookline) },
    { header: "bare loop µs/step", align: "right", cell: (r) => perStepSpread(r.bare) },
    { header: "hookline/bare", align: "right", cell: (r) => formatRatio(r.ratio) },
    { header: "hookline µs/run", align: "right", cell: (r) => formatNs(r.hookline.p50) },
    { header: "hookline runs/s", align: "right", cell: (r) => formatCount(Math.round(1e6 / r.hookline.p50)) },
  ]
  print(w1Columns, w1)
  console.log("")
  for (const verdict of verdicts.slice(0, Loop.stepTargets.length)) console.log(verdict.text)
  console.log("")
  {
    const none = w1.find((r) => r.K === 0)
    console.log(
      `W1, K = 0, one pass-through wrap hook around each model call and each tool execution: ${perStepSpread(wrapped)} µs/step` +
        (none === undefined ? "" : ` (without: ${perStepSpread(none.hookline)}; ${formatRatio(wrapped.p50 / none.hookline.p50)})`),
    )
    console.log("")
  }

  console.log(
    `W2 (internal path): one run of ${Loop.w2Steps} steps (${Loop.w2Steps - 1} echo calls, then a final text), K = ${Loop.w2K}, from a fresh pending state over a history of H messages stored once; ` +
      `${Loop.dispatchesPerRun(Loop.w2Steps)} dispatches per run`,
  )
  console.log("")
  const w2Columns: ReadonlyArray<Column<Loop.LoopRow>> = [
    { header: "K", align: "right", cell: (r) => String(r.K) },
    { header: "H (messages)", align: "right", cell: (r) => formatCount(r.H) },
    { header: "hookline µs/step", align: "right", cell: (r) => perStepSpread(r.hookline) },
    { header: "bare loop µs/step", align: "right", cell: (r) => perStepSpread(r.bare) },
    { header: "hookline/bare", align: "right", cell: (r) => formatRatio(r.ratio) },
    { header: "vs H=10 (flatness)", align: "right", cell: (r) => (r.flatness === undefined ? "–" : formatRatio(r.flatness)) },
    { header: "same input every run µs/step", align: "right", cell: (r) => (r.sameInput === undefined ? "–" : perStepSpread(r.sameInput)) },
  ]
  print(w2Columns, w2)
  console.log("")
  for (const verdict of verdicts.slice(Loop.stepTargets.length)) console.log(verdict.text)
  console.log("")

  // The parts: ns per call (per run for the runs); their share of a W1 tool step at K = 0.
  interface PartRow {
    readonly part: Loop.Part
    readonly summary: Summary
    readonly usPerStep: number | undefined
  }
  const partRows: Array<PartRow> = Loop.parts.map((part) => {
    const summary = partResults.get(part.name)
    if (summary === undefined) throw new Error(`no result for ${part.name}`)
    return { part, summary, usPerStep: part.perStep === undefined ? undefined : (part.perStep * summary.p50) / 1000 }
  })
  const sum = partRows.reduce((acc, r) => acc + (r.usPerStep ?? 0), 0)
  const measured = w1.find((r) => r.K === 0)
  console.log(
    `Parts of a step, each timed alone (tinybench, ${settings.timeMs} ms per case, batches of calls as in the dispatch benchmark); ` +
      "ns per call, or per run: median (p10–p90)",
  )
  console.log("")
  const partColumns: ReadonlyArray<Column<PartRow>> = [
    { header: "part", cell: (r) => r.part.label },
    { header: "ns", align: "right", cell: (r) => (r.summary.p50 === 0 ? "–" : `${formatSpread(r.summary)}${r.part.unit === "run" ? " per run" : ""}`) },
    {
      header: "times per W1 tool step",
      align: "right",
      cell: (r) => (r.part.perStep === undefined ? "–" : r.part.perStep > 0 && r.part.perStep < 1 ? `1/${Math.round(1 / r.part.perStep)}` : String(r.part.perStep)),
    },
    { header: "µs per step", align: "right", cell: (r) => (r.usPerStep === undefined ? "–" : formatNs(r.usPerStep)) },
  ]
  const totals: ReadonlyArray<PartRow> = [
    { part: { name: "sum", label: "sum of the parts above", perStep: undefined, unit: "call" }, summary: { name: "sum", p10: 0, p50: 0, p90: 0, samples: 0, batch: 0 }, usPerStep: sum },
    ...(measured === undefined ? [] : [{
      part: { name: "measured", label: "measured: W1, K = 0, hookline µs/step (table above)", perStep: undefined, unit: "call" as const },
      summary: { name: "measured", p10: 0, p50: 0, p90: 0, samples: 0, batch: 0 },
      usPerStep: Loop.perStep(measured.hookline),
    }]),
  ]
  print(partColumns, [...partRows, ...totals])
  console.log("")
  console.log(`(${seconds.toFixed(0)} s in all; checksums, so nothing is optimized away: ${Loop.getLoopChecksum()} from runs, ${getChecksum()} from parts, ` +
    `${Loop.observed().calls} hook calls, ${Loop.observed().seen} messages seen by hooks)`)
}

if (selected("dispatch")) await dispatchBench()
if (selected("dispatch") && selected("loop")) console.log("")
if (selected("loop")) await loopBench()

// W3 reads heap sizes after full collections, so it runs in a process of its own
// with --expose-gc.
if (selected("memory")) {
  progress("memory: W3 in a child process (--expose-gc)")
  const script = fileURLToPath(new URL("./memory.ts", import.meta.url))
  const child = spawnSync(process.execPath, ["--expose-gc", "--import", "tsx", script], { stdio: "inherit" })
  if (child.status !== 0) process.exit(child.status ?? 1)
}

// The store bench collects garbage before each timed window, so it also runs in a
// process of its own with --expose-gc.
if (selected("store")) {
  if (chosen.length !== 1) console.log("")
  progress("store: checkpoint cost in a child process (--expose-gc)")
  const script = fileURLToPath(new URL("./store-report.ts", import.meta.url))
  const child = spawnSync(process.execPath, ["--expose-gc", "--import", "tsx", script], { stdio: "inherit" })
  if (child.status !== 0) process.exit(child.status ?? 1)
}

// Real stdio MCP servers (child processes), started and ended by the bench.
if (selected("mcp")) {
  if (chosen.length !== 1) console.log("")
  await mcpBench(mcpSettingsFromEnv(), progress)
}

// Runner processes on embedded PostgreSQL, this process their client.
if (selected("cluster")) {
  if (chosen.length !== 1) console.log("")
  const { clusterBench } = await import("./cluster.js")
  await clusterBench(process.env["BENCH_QUICK"] === "1", progress)
}

// Every system in child processes of its own (compare/run.ts), one at a time.
if (selected("compare")) {
  if (chosen.length !== 1) console.log("")
  const code = await compare(smoke ? "smoke" : modeFromEnv(), systemsFromEnv(), sectionsFromEnv())
  if (code !== 0) process.exit(code)
}
