/**
 * The parent's side of the memory rows: one child per system (--expose-gc; the smoke:
 * one for all), one at a time; the table and the verdicts on the targets (hookline ≤ half the lightest
 * peer in flight and suspended; no growth per completed run).
 */
import { fileURLToPath } from "node:url"
import type { Mode } from "../Plan.js"
import * as Rows from "../Rows.js"
import { spawnChild } from "../run.js"
import { formatCount, print, type Column } from "../../table.js"
import { footprintSettingsFor, footprintSystems, leakThreshold, peerShare, type FootprintResult, type FootprintRow } from "./Footprint.js"

const script = fileURLToPath(new URL("./child.ts", import.meta.url))

export const runFootprint = async (mode: Mode, progress: (line: string) => void): Promise<ReadonlyArray<FootprintResult>> => {
  const settings = footprintSettingsFor(mode)
  const results: Array<FootprintResult> = []
  // A child per system; the smoke runs them all in one (validation only: CI stays lean).
  const groups = mode === "smoke" ? [footprintSystems] : footprintSystems.map((m) => [m])
  for (const group of groups) {
    progress(`compare (memory): ${group.join(", ")}`)
    const exit = await spawnChild(script, [group.join(","), JSON.stringify(settings)], settings.childTimeoutMs)
    const reported = Rows.parse<FootprintResult>(exit.stdout)
    for (const module of group) {
      results.push(reported.find((r) => r.module === module) ?? { kind: "failure", module, error: `the child reported nothing: ${exit.why}\n${exit.stderr}` })
    }
  }
  return results
}

const isRow = (r: FootprintResult): r is FootprintRow => r.kind === "memory"

const kb = (bytes: number): string => (Math.abs(bytes) >= 1e3 ? `${(bytes / 1e3).toFixed(1)} KB` : `${Math.round(bytes)} B`)

export const printFootprint = (results: ReadonlyArray<FootprintResult>, mode: Mode): void => {
  const ok = (f: (r: FootprintRow) => string) => (r: FootprintResult): string => (isRow(r) ? f(r) : "–")
  const columns: ReadonlyArray<Column<FootprintResult>> = [
    { header: "system", cell: (r) => (isRow(r) ? `${r.system} ${r.version}` : r.module) },
    { header: "in flight: bytes/run", align: "right", cell: (r) => (isRow(r) ? kb(r.inFlight.bytesPerRun) : "FAILED (below)") },
    { header: "runs at once", align: "right", cell: ok((r) => formatCount(r.inFlight.runs)) },
    { header: "suspended: bytes/run", align: "right", cell: ok((r) => kb(r.suspended.bytesPerRun)) },
    { header: "held as", cell: ok((r) => r.suspended.held) },
    { header: "completed: bytes/run left", align: "right", cell: ok((r) => kb(r.completed.bytesPerRun)) },
    { header: "completed runs", align: "right", cell: ok((r) => formatCount(r.completed.runs)) },
    ...(mode === "smoke" ? [{ header: "status", cell: (r: FootprintResult) => (isRow(r) ? "validated" : "FAILED") }] : []),
  ]
  print(columns, results)
  if (mode === "smoke") return
  console.log("")
  const hookline = results.find((r): r is FootprintRow => isRow(r) && r.module === "hookline")
  const peers = results.filter((r): r is FootprintRow => isRow(r) && r.module !== "hookline")
  for (const [what, of] of [["in flight", (r: FootprintRow) => r.inFlight.bytesPerRun], ["suspended", (r: FootprintRow) => r.suspended.bytesPerRun]] as const) {
    const lightest = peers.reduce<FootprintRow | undefined>((best, r) => (best === undefined || of(r) < of(best) ? r : best), undefined)
    if (hookline === undefined || lightest === undefined) {
      console.log(`hookline ${what} bytes/run vs the lightest peer: not measured`)
      continue
    }
    if (of(lightest) <= 0) {
      console.log(`hookline ${what}: ${kb(of(hookline))}/run; the lightest peer (${lightest.system}) measured ${kb(of(lightest))}, within the heap's noise: no ratio`)
      continue
    }
    const x = of(hookline) / of(lightest)
    console.log(`hookline ${what}: ${kb(of(hookline))}/run, ${x.toFixed(2)}x the lightest peer (${lightest.system}, ${kb(of(lightest))}) (target ≤ ${peerShare}x): ${x <= peerShare ? "met" : "missed"}`)
  }
  if (hookline !== undefined) {
    const left = hookline.completed.bytesPerRun
    console.log(`hookline leak check: ${kb(left)} left per completed run over ${formatCount(hookline.completed.runs)} runs (flat: < ${leakThreshold} B): ${left < leakThreshold ? "met" : "missed"}`)
  }
}

export const printFootprintFailures = (results: ReadonlyArray<FootprintResult>): void => {
  for (const r of results) {
    if (r.kind !== "failure") continue
    console.log(`FAILED: memory ${r.module}:`)
    for (const line of r.error.split("\n").slice(0, 20)) console.log(`    ${line}`)
  }
}
