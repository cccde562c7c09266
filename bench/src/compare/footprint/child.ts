/**
 * The child that measures one system's memory rows:
 * `node --expose-gc --import tsx footprint/child.ts <modules, comma-separated> <settings JSON>`
 * (one module, but the smoke's one child runs all). One `@@row` line per module on stdout; progress on stderr; exit 1 on a failure.
 */
import * as Rows from "../Rows.js"
import type { FootprintResult, FootprintSettings, FootprintSystem, Measured } from "./Footprint.js"

const gc = (globalThis as { gc?: () => void }).gc

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

/** heapUsed after the event loop turned (pending frees run) and two full collections. */
const heap = async (): Promise<number> => {
  if (gc === undefined) throw new Error("the memory rows need --expose-gc")
  for (let i = 0; i < 10; i++) await turn()
  gc()
  gc()
  return process.memoryUsage().heapUsed
}

const expectDone = (texts: ReadonlyArray<string>, what: string): void => {
  const bad = texts.find((t) => t !== "done")
  if (bad !== undefined) throw new Error(`${what}: a run ended with ${JSON.stringify(bad.slice(0, 300))}, expected "done"`)
}

/** N runs waiting in their model call at once. */
const inFlight = async (system: FootprintSystem, n: number, warmup: number): Promise<Measured> => {
  const waiting: Array<() => void> = []
  const run = await system.inFlight(() => new Promise<void>((resolve) => waiting.push(resolve)))
  const batch = async (size: number, measure: boolean): Promise<number> => {
    waiting.length = 0
    const before = measure ? await heap() : 0
    const runs = Array.from({ length: size }, () => run())
    // Every run reaches its model call (a peer may take many turns of the event loop to get there).
    for (let spins = 0; waiting.length < size; spins++) {
      if (spins > 1e6) throw new Error(`in flight: ${waiting.length} of ${size} runs reached the model`)
      await turn()
    }
    const held = measure ? await heap() : 0
    for (const release of waiting.splice(0)) release()
    expectDone(await Promise.all(runs), "in flight")
    return (held - before) / size
  }
  await batch(warmup, false)
  return { runs: n, bytesPerRun: await batch(n, true) }
}

const suspended = async (system: FootprintSystem, n: number, warmup: number): Promise<Measured> => {
  const run = await system.suspended()
  for (let i = 0; i < warmup; i++) await run(-1 - i)
  const before = await heap()
  const held: Array<unknown> = []
  for (let i = 0; i < n; i++) {
    held.push(await run(i))
    await turn()
  }
  const after = await heap()
  if (held.length !== n) throw new Error("suspended: runs lost")
  return { runs: n, bytesPerRun: (after - before) / n }
}

const completed = async (system: FootprintSystem, m: number, warmup: number): Promise<Measured> => {
  const run = await system.completed()
  const texts: Array<string> = []
  for (let i = 0; i < warmup; i++) texts.push(await run())
  // The slope over the second half: a one-off growth (a table grown once, a cache filled)
  // falls in the first half and is not charged per run.
  const half = Math.floor(m / 2)
  let mid = 0
  for (let i = 0; i < m; i++) {
    if (i === half) mid = await heap()
    const text = await run()
    if (text !== "done") texts.push(text)
    // As the main table's child: some peers (LangGraph's abort signals on Node 20) free a
    // run's memory only once the event loop turns.
    await turn()
  }
  const after = await heap()
  expectDone(texts, "completed")
  return { runs: m, bytesPerRun: (after - mid) / (m - half) }
}

const measureOne = async (module: string, settings: FootprintSettings): Promise<FootprintResult> => {
  try {
    if (!/^[A-Za-z]+$/.test(module)) throw new Error(`not a system module name: ${JSON.stringify(module)}`)
    const system = ((await import(`./systems/${module}.js`)) as { readonly system: FootprintSystem }).system
    const progress = (what: string): void => {
      process.stderr.write(`  ${system.name} memory: ${what}\n`)
    }
    const a = await inFlight(system, settings.inFlight, settings.warmup)
    progress(`${a.runs} runs in flight validated`)
    const b = await suspended(system, settings.suspended, settings.warmup)
    progress(`${b.runs} suspended runs validated`)
    const c = await completed(system, settings.completed, settings.warmup)
    progress(`${c.runs} completed runs validated`)
    return { kind: "memory", module, system: system.name, version: system.version, inFlight: a, suspended: { ...b, held: system.held }, completed: c }
  } catch (e) {
    return { kind: "failure", module, error: Rows.message(e) }
  }
}

const main = async (): Promise<number> => {
  const [modules = "", settingsJson = "{}"] = process.argv.slice(2)
  const settings = JSON.parse(settingsJson) as FootprintSettings
  let failed = false
  for (const module of modules.split(",")) {
    const result = await measureOne(module, settings)
    if (result.kind === "failure") failed = true
    console.log(Rows.format(result))
  }
  return failed ? 1 : 0
}

process.exit(await main())
