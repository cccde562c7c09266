/**
 * One side of the PostgreSQL pairs (pair.ts), driven by the parent (pairs.ts):
 * `node --expose-gc --import tsx durable/pairChild.ts <module> <settings JSON>`. The child
 * opens its system's PostgreSQL store and answers one command a line on stdin, one
 * `@@pair <JSON>` line on stdout: `{"op":"warm","H":…}` (the warm-up runs of H, for at least half the rows' time),
 * `{"op":"run","H":…}` (one validated run: its steady µs per step), `{"op":"end"}` (closes
 * the store and exits). Each system keeps a process of its own (its own heap and JIT),
 * as in the rows; only the order of the runs is the parent's.
 */
import { createInterface } from "node:readline"
import * as Rows from "../Rows.js"
import { durableSteps, type DurableCase, type DurableSettings, type DurableSystem } from "./Durable.js"
import { answerMarker } from "./pair.js"
import { runOnce } from "./runOnce.js"

const answer = (value: unknown): void => {
  process.stdout.write(`${answerMarker}${JSON.stringify(value)}\n`)
}

const main = async (): Promise<number> => {
  const [module = "", settingsJson = "{}"] = process.argv.slice(2)
  const settings = JSON.parse(settingsJson) as DurableSettings
  if (!/^[A-Za-z]+$/.test(module)) throw new Error(`not a system module name: ${JSON.stringify(module)}`)
  const system = ((await import(`./systems/${module}.js`)) as { readonly system: DurableSystem }).system
  const opened = await system.open("postgres", settings)
  const cases = new Map<number, DurableCase>()
  const caseOf = async (H: number): Promise<DurableCase> => {
    const found = cases.get(H)
    if (found !== undefined) return found
    const made = await opened.prepare(H, durableSteps)
    cases.set(H, made)
    return made
  }
  answer({ ready: true })
  try {
    for await (const line of createInterface({ input: process.stdin })) {
      const command = JSON.parse(line) as { readonly op: string; readonly H?: number }
      if (command.op === "end") break
      try {
        const c = await caseOf(command.H ?? 0)
        if (command.op === "warm") {
          // The rows' warm-up runs, and at least half the rows' time: the first H's pairs
          // otherwise time hookline's code while it is still being optimized.
          const until = performance.now() + settings.timeMs / 2
          for (let i = 0; i < Math.max(1, settings.warmupRuns) || performance.now() < until; i++) await runOnce(c, durableSteps, false)
          answer({ ok: true })
        } else if (command.op === "run") {
          answer({ steadyUs: (await runOnce(c, durableSteps, false)).steadyUs })
        } else {
          answer({ error: `unknown command ${JSON.stringify(command.op)}` })
        }
      } catch (e) {
        answer({ error: Rows.message(e) })
      }
    }
  } finally {
    await opened.close().catch(() => undefined)
  }
  return 0
}

process.exit(await main())
