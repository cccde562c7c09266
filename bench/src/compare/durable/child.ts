/**
 * The child that measures durable rows:
 * `node --expose-gc --import tsx durable/child.ts <jobs JSON> <settings JSON>`: the jobs
 * of one system module (the smoke: of every module), one store opened per store named. Per job: warm-up runs (the
 * first counts the bytes and reads the stored run back; then a one-step run, for the bytes
 * of a tool step), then timed runs; every run
 * validated outside the timed region (model and tool calls, the final text). One `@@row`
 * line per job on stdout; progress on stderr; exit 1 on a failure.
 */
import * as Rows from "../Rows.js"
import type { DurableJob, DurableResult, DurableSettings, DurableSystem, OpenedStore } from "./Durable.js"
import { clock, runOnce, spread, type Timed } from "./runOnce.js"

const measure = async (system: DurableSystem, opened: OpenedStore, job: DurableJob, settings: DurableSettings): Promise<DurableResult> => {
  const c = await opened.prepare(job.H, job.steps)
  let bytes = 0
  for (let i = 0; i < Math.max(1, settings.warmupRuns); i++) {
    const r = await runOnce(c, job.steps, i === 0)
    if (i === 0) bytes = r.bytes
  }
  // A run of one step (the answer, no tool call) over the same history writes what the
  // run's start and end write; the difference is what its tool steps write.
  const one = await runOnce(await opened.prepare(job.H, 1), 1, true)
  const timed: Array<Timed> = []
  const until = clock() + BigInt(settings.timeMs * 1e6)
  while (timed.length < settings.maxRuns && (timed.length < settings.minRuns || clock() < until)) timed.push(await runOnce(c, job.steps, false))
  return {
    kind: "durable",
    job,
    system: system.name,
    version: system.version,
    saver: opened.saver,
    runs: timed.length,
    validated: timed.length + Math.max(1, settings.warmupRuns),
    usPerStep: spread(timed.map((t) => t.us)),
    steadyUsPerStep: spread(timed.map((t) => t.steadyUs)),
    bytesPerStep: bytes / job.steps,
    bytesPerToolStep: (bytes - one.bytes) / (job.steps - 1),
    bytesHow: opened.bytesHow,
  }
}

const main = async (): Promise<number> => {
  const [jobsJson = "[]", settingsJson = "{}"] = process.argv.slice(2)
  const jobs = JSON.parse(jobsJson) as ReadonlyArray<DurableJob>
  const settings = JSON.parse(settingsJson) as DurableSettings
  let failed = false
  const report = (result: DurableResult): void => {
    if (result.kind === "failure") failed = true
    console.log(Rows.format(result))
  }
  // A child measures one system (full, quick) or, in the smoke, every system in turn.
  for (const module of [...new Set(jobs.map((j) => j.module))]) {
    const theirs = jobs.filter((j) => j.module === module)
    let system: DurableSystem
    try {
      if (!/^[A-Za-z]+$/.test(module)) throw new Error(`not a system module name: ${JSON.stringify(module)}`)
      system = ((await import(`./systems/${module}.js`)) as { readonly system: DurableSystem }).system
    } catch (e) {
      for (const job of theirs) report({ kind: "failure", job, error: Rows.message(e) })
      continue
    }
    for (const store of [...new Set(theirs.map((j) => j.store))]) {
      const mine = theirs.filter((j) => j.store === store)
      let opened: OpenedStore | undefined
      try {
        opened = await system.open(store, settings)
      } catch (e) {
        for (const job of mine) report({ kind: "failure", job, error: Rows.message(e) })
        continue
      }
      try {
        for (const job of mine) {
          const started = performance.now()
          let result: DurableResult
          try {
            result = await measure(system, opened, job, settings)
          } catch (e) {
            result = { kind: "failure", job, error: Rows.message(e) }
          }
          report(result)
          process.stderr.write(`  ${system.name} ${store} H=${job.H}: ${result.kind === "failure" ? "FAILED" : `${result.validated} runs validated`} (${((performance.now() - started) / 1000).toFixed(1)} s)\n`)
        }
      } finally {
        await opened.close().catch(() => undefined)
      }
    }
  }
  return failed ? 1 : 0
}

process.exit(await main())
