/**
 * `pnpm bench store`: the checkpoint cost of @hookline/store (store.ts measures), as a
 * Markdown table on stdout, progress on stderr. main.ts runs it in a process of its own
 * with --expose-gc: each timed window starts after a full collection.
 */
import { machine } from "./measure.js"
import * as Store from "./store.js"
import { formatCount, formatNs, print, type Column } from "./table.js"

const progress = (line: string): void => {
  process.stderr.write(`${line}\n`)
}

const report = async (): Promise<void> => {
  const storeSettings = Store.storeSettingsFromEnv()
  const { rows, skipped, seconds } = await Store.runStoreBench(storeSettings, progress)
  const spread = (s: Store.Spread): string => `${formatNs(s.p50)} (${formatNs(s.p10)}–${formatNs(s.p90)})`
  console.log(`# checkpoint cost of @hookline/store${storeSettings.quick ? " (BENCH_QUICK=1: indicative only)" : ""}`)
  console.log("")
  console.log(`${machine()}`)
  console.log(
    `The user path (await agent.run(state): Driver.fromPromise with an async generate, an async tool, the default guards, K = 0), ` +
      `one run of ${Store.storeSteps} steps (${Store.storeSteps - 1} echo calls, then a final text) from a new run over a history of H messages, ` +
      `with UseCheckpoints(store) (every: "tool", the default) and without. Timed from the start of step 2 to the end of the last step ` +
      `(${Store.storeSteps - 1} steps with their AfterStep checkpoints and journal writes; the run's first checkpoint, which writes the history once, is outside, ` +
      `and a full collection${Store.collects() ? "" : " (not here: no --expose-gc)"} comes just before the window, with checkpoints and without); ` +
      `${storeSettings.warmup} untimed runs per case, then ${storeSettings.rounds} rounds of ${storeSettings.runsPerRound} runs visiting every case in turn; ${seconds.toFixed(0)} s`,
  )
  console.log("µs per step: median over the runs (p10–p90); added = median with - median without; bytes: UTF-8 JSON handed to the store, per step")
  console.log("")
  const columns: ReadonlyArray<Column<Store.StoreRow>> = [
    { header: "store", cell: (r) => r.store },
    { header: "H (messages)", align: "right", cell: (r) => formatCount(r.H) },
    { header: "without µs/step", align: "right", cell: (r) => spread(r.without) },
    { header: "with µs/step", align: "right", cell: (r) => spread(r.with) },
    { header: "added µs/step", align: "right", cell: (r) => formatNs(r.added) },
    { header: "checkpoint bytes/step", align: "right", cell: (r) => formatCount(Math.round(r.checkpointBytes)) },
    { header: "journal bytes/step", align: "right", cell: (r) => formatCount(Math.round(r.journalBytes)) },
    { header: "first checkpoint bytes (once per run)", align: "right", cell: (r) => formatCount(r.firstBytes) },
  ]
  print(columns, rows)
  console.log("")
  for (const { store, why } of skipped) console.log(`${store}: skipped, it could not start: ${why}`)
  for (const verdict of Store.verdicts(rows)) console.log(verdict.text)
  console.log("")
  const parts = await Store.measureParts(storeSettings)
  const memory = rows.filter((r) => r.store === "memory")
  console.log("What the in-memory store's added cost is made of: each part timed alone (µs per call, median of 5 batches), on states of a real run")
  console.log("")
  const partRows = [
    ...parts.map((p) => ({ label: p.label, times: p.perStep === 0 ? "" : String(p.perStep), us: formatNs(p.us), perStep: p.perStep === 0 ? "" : formatNs(p.us * p.perStep) })),
    { label: "sum of the parts", times: "", us: "", perStep: formatNs(parts.reduce((a, p) => a + p.us * p.perStep, 0)) },
    ...memory.map((r) => ({ label: `measured: memory, H = ${formatCount(r.H)}, added µs/step (table above)`, times: "", us: "", perStep: formatNs(r.added) })),
  ]
  print([
    { header: "part", cell: (r: (typeof partRows)[number]) => r.label },
    { header: "µs per call", align: "right", cell: (r: (typeof partRows)[number]) => r.us },
    { header: "times per step", align: "right", cell: (r: (typeof partRows)[number]) => r.times },
    { header: "µs per step", align: "right", cell: (r: (typeof partRows)[number]) => r.perStep },
  ], partRows)
}

await report()
