/**
 * The comparison's report: one table of every system and configuration (ratios to the
 * bare loop and to hookline, the internal path), a W4 table (batch time and memory), the verdicts on the
 * targets, and every failure in full. The smoke prints what was validated, no timings.
 */
import { agentFrameworks } from "./Plan.js"
import * as Result from "./Result.js"
import type { Workload } from "./System.js"
import { flatnessTarget, stepTargets, streamTarget, userTargets } from "../loop.js"
import { formatCount, formatNs, formatRatio, print, type Column } from "../table.js"

/** The issue's target against the agent frameworks; the step and flatness targets are loop.ts's. */
export const frameworkTarget = 25

type Ok = Result.Runs | Result.Batches

const isOk = (r: Result.Result): r is Ok => r.kind !== "failure"

const sameConfig = (a: Workload, b: Workload): boolean =>
  a.name === b.name && a.K === b.K && a.H === b.H && a.concurrency === b.concurrency

/** The successful result of `module` for the configuration of `w`. */
const find = (results: ReadonlyArray<Result.Result>, module: string, w: Workload): Ok | undefined =>
  results.find((r): r is Ok => isOk(r) && r.module === module && sameConfig(r.workload, w))

const systemCell = (r: Result.Result): string => (isOk(r) ? (r.version === "–" ? r.system : `${r.system} ${r.version}`) : r.module)

const workloadCell = (w: Workload): string => (w.concurrency > 1 ? `${w.name} (${formatCount(w.concurrency)} at once)` : w.name)

const hookCallsPerStep = (r: Ok): string => {
  const perStep = (r.workload.K * r.firingsPerRun) / r.workload.steps
  return Number.isInteger(perStep) ? String(perStep) : perStep.toFixed(1)
}

const ratioTo = (results: ReadonlyArray<Result.Result>, module: string) => (r: Result.Result): string => {
  const other = find(results, module, r.workload)
  return isOk(r) && other !== undefined ? ratio(Result.usPerStep(r) / Result.usPerStep(other)) : "–"
}

const ok = (f: (r: Ok) => string) => (r: Result.Result): string => (isOk(r) ? f(r) : "–")

const mb = (bytes: number): string => (bytes / 2 ** 20).toFixed(1)

/** A ratio with the precision its size deserves: 1.23x, 12.3x, 1,234x. */
const ratio = (x: number): string =>
  !Number.isFinite(x) ? "n/a" : x >= 100 ? `${formatCount(Math.round(x))}x` : x >= 10 ? `${x.toFixed(1)}x` : formatRatio(x)

/** Runs per second: 0.42 for a slow peer, 132,767 for the bare loop. */
const perSecond = (r: Ok): string => formatNs(Result.runsPerSecond(r))

/** What was run: the first columns of both tables. */
const configurationColumns: ReadonlyArray<Column<Result.Result>> = [
    { header: "system", cell: systemCell },
    { header: "workload", cell: (r) => workloadCell(r.workload) },
    { header: "K", align: "right", cell: (r) => String(r.workload.K) },
    { header: "H", align: "right", cell: (r) => formatCount(r.workload.H) },
    { header: "hook calls/step", align: "right", cell: ok(hookCallsPerStep) },
]

/** The main table: every configuration of every system, failures included as rows. */
export const printMain = (results: ReadonlyArray<Result.Result>): void => {
  const columns: ReadonlyArray<Column<Result.Result>> = [
    ...configurationColumns,
    { header: "median µs/step", align: "right", cell: (r) => (isOk(r) ? formatNs(Result.usPerStep(r)) : "FAILED (below)") },
    { header: "p10–p90 µs/step", align: "right", cell: ok((r) => `${formatNs(Result.usPerStep(r, "p10"))}–${formatNs(Result.usPerStep(r, "p90"))}`) },
    { header: "runs/s", align: "right", cell: ok(perSecond) },
    { header: "vs bare loop", align: "right", cell: ratioTo(results, "bare") },
    { header: "vs hookline", align: "right", cell: ratioTo(results, "hookline") },
    { header: "timed", align: "right", cell: ok((r) => (r.kind === "runs" ? `${r.runs} runs` : `${r.batches} batch${r.batches === 1 ? "" : "es"}`)) },
  ]
  print(columns, results)
}

/** W4: time per batch of concurrent runs, and memory, against hookline. */
export const printW4 = (results: ReadonlyArray<Result.Result>): void => {
  const rows = results.filter((r) => r.workload.concurrency > 1)
  const hookline = rows.find((r): r is Result.Batches => r.kind === "batches" && r.module === "hookline")
  const batches = (f: (r: Result.Batches) => string) => (r: Result.Result): string => (r.kind === "batches" ? f(r) : "–")
  const columns: ReadonlyArray<Column<Result.Result>> = [
    { header: "system", cell: systemCell },
    { header: "runs at once", align: "right", cell: (r) => formatCount(r.workload.concurrency) },
    { header: "ms per batch", align: "right", cell: (r) => (r.kind === "batches" ? `${formatNs(r.msPerBatch.p50)} (${formatNs(r.msPerBatch.p10)}–${formatNs(r.msPerBatch.p90)})` : r.kind === "failure" ? "FAILED (below)" : "–") },
    { header: "µs/step", align: "right", cell: batches((r) => formatNs(Result.usPerStep(r))) },
    { header: "runs/s", align: "right", cell: batches(perSecond) },
    { header: "CPU/wall", align: "right", cell: batches((r) => `${Math.round((100 * r.cpuMsPerBatch) / r.msPerBatch.p50)}%`) },
    { header: "time vs hookline", align: "right", cell: batches((r) => (hookline === undefined ? "–" : ratio(r.msPerBatch.p50 / hookline.msPerBatch.p50))) },
    { header: "peak heap +MB", align: "right", cell: batches((r) => mb(r.heapPeakBytes)) },
    { header: "peak RSS +MB", align: "right", cell: batches((r) => mb(r.rssPeakBytes)) },
    { header: "heap vs hookline", align: "right", cell: batches((r) => (hookline === undefined ? "–" : ratio(r.heapPeakBytes / hookline.heapPeakBytes))) },
    { header: "maxRSS MB", align: "right", cell: batches((r) => mb(r.maxRssBytes)) },
    { header: "batches", align: "right", cell: batches((r) => String(r.batches)) },
  ]
  print(columns, rows)
}

/** Smoke: what each system ran and validated; no timings. */
export const printSmoke = (results: ReadonlyArray<Result.Result>): void => {
  const columns: ReadonlyArray<Column<Result.Result>> = [
    ...configurationColumns,
    { header: "hook points", cell: ok((r) => String(r.hookPoints.length)) },
    { header: "runs validated", align: "right", cell: ok((r) => formatCount(r.validated)) },
    { header: "status", cell: (r) => (isOk(r) ? "validated" : "FAILED") },
  ]
  print(columns, results)
}

/** The verdict lines on hookline's targets, for the configurations that were planned. */
export const verdicts = (results: ReadonlyArray<Result.Result>, workloads: ReadonlyArray<Workload>): ReadonlyArray<string> => {
  const out: Array<string> = []
  const w1 = workloads.filter((w) => w.name === "W1")
  const at = (K: number): Workload | undefined => w1.find((w) => w.K === K)
  for (const { K, us } of stepTargets) {
    const w = at(K)
    const hookline = w === undefined ? undefined : find(results, "hookline", w)
    if (hookline === undefined) {
      out.push(`hookline W1 K=${K}: not measured (target ${us} µs/step)`)
      continue
    }
    const got = Result.usPerStep(hookline)
    out.push(`hookline W1 K=${K}: ${formatNs(got)} µs/step (target ${us}): ${got <= us ? "met" : "missed"}`)
  }
  // The user path (systems/hooklineFacade.ts), when it was part of the run.
  const facadeRan = results.some((r) => r.module === "hooklineFacade")
  for (const { K, us } of facadeRan ? userTargets : []) {
    const w = at(K)
    const facade = w === undefined ? undefined : find(results, "hooklineFacade", w)
    if (facade === undefined) {
      out.push(`hookline (facade) W1 K=${K}: not measured (target ${us} µs/step)`)
      continue
    }
    const got = Result.usPerStep(facade)
    out.push(`hookline (facade) W1 K=${K}: ${formatNs(got)} µs/step (target ${us}): ${got <= us ? "met" : "missed"}`)
  }
  // The streamed user path (systems/hooklineStream.ts) against the facade, in the same run.
  if (results.some((r) => r.module === "hooklineStream")) {
    for (const w of w1) {
      const [facade, streamed] = [find(results, "hooklineFacade", w), find(results, "hooklineStream", w)]
      if (facade === undefined || streamed === undefined) {
        out.push(`hookline streamed vs facade W1 K=${w.K}: not measured (target ≤ ${streamTarget}x)`)
        continue
      }
      const x = Result.usPerStep(streamed) / Result.usPerStep(facade)
      out.push(`hookline streamed vs facade W1 K=${w.K}: ${x.toFixed(2)}x (target ≤ ${streamTarget}x): ${x <= streamTarget ? "met" : "missed"}`)
    }
  }
  for (const w of w1) {
    const hookline = find(results, "hookline", w)
    const frameworks = agentFrameworks.flatMap((m) => {
      const r = find(results, m, w)
      return r === undefined ? [] : [r]
    })
    const fastest = frameworks.reduce<Ok | undefined>((best, r) => (best === undefined || Result.usPerStep(r) < Result.usPerStep(best) ? r : best), undefined)
    if (hookline === undefined || fastest === undefined) {
      out.push(`hookline vs fastest agent framework at K=${w.K}: not measured (${hookline === undefined ? "hookline has no result" : "no agent framework measured"})`)
      continue
    }
    const x = Result.usPerStep(fastest) / Result.usPerStep(hookline)
    const missing = agentFrameworks.length - frameworks.length
    out.push(
      `hookline vs fastest agent framework at K=${w.K} (${fastest.system}, ${formatNs(Result.usPerStep(fastest))} µs/step): ${x.toFixed(1)}x ` +
        `(target ≥ ${frameworkTarget}x): ${x >= frameworkTarget ? "met" : "missed"}${missing > 0 ? ` (${missing} framework(s) failed: not counted)` : ""}`,
    )
  }
  const w2 = [...workloads.filter((w) => w.name === "W2")].sort((a, b) => a.H - b.H)
  const [shortest, longest] = [w2[0], w2[w2.length - 1]]
  if (shortest !== undefined && longest !== undefined && shortest !== longest) {
    const [from, to] = [find(results, "hookline", shortest), find(results, "hookline", longest)]
    const span = `H=${formatCount(shortest.H)} to ${formatCount(longest.H)}`
    if (from === undefined || to === undefined) out.push(`hookline W2 flatness ${span}: not measured (target ≤ ${flatnessTarget}x)`)
    else {
      const x = Result.usPerStep(to) / Result.usPerStep(from)
      out.push(`hookline W2 flatness ${span}: ${x.toFixed(2)}x (target ≤ ${flatnessTarget}x): ${x <= flatnessTarget ? "met" : "missed"}`)
    }
  }
  return out
}

/** Every failure, in full once (the table only says FAILED); a repeated error is named, not repeated. */
export const printFailures = (results: ReadonlyArray<Result.Result>): void => {
  const shown = new Set<string>()
  for (const r of results) {
    if (r.kind !== "failure") continue
    const first = r.error.split("\n")[0] ?? ""
    console.log(`FAILED: ${r.module} ${workloadCell(r.workload)} K=${r.workload.K} H=${r.workload.H}: ${shown.has(r.error) ? `${first} (as above)` : ""}`)
    if (!shown.has(r.error)) for (const line of r.error.split("\n").slice(0, 20)) console.log(`    ${line}`)
    shown.add(r.error)
  }
}
