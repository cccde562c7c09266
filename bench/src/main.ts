/**
 * `pnpm bench`: the dispatch benchmark of @hookline/core. Results go to stdout (a
 * Markdown table, pasted as is into docs/performance.md); progress goes to stderr.
 * `BENCH_QUICK=1` runs a very short version whose figures are only indicative.
 */
import { cases, observed, report, type DispatchRow, type ExtraRow } from "./dispatch.js"
import { getChecksum, machine, measure, settingsFromEnv } from "./measure.js"
import { formatCount, formatNs, formatRatio, formatSpread, print, type Column } from "./table.js"

const settings = settingsFromEnv()
const all = cases()
const started = performance.now()
const results = await measure(all, settings, (line) => process.stderr.write(`${line}\n`))
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
