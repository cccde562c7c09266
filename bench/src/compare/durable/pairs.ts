/**
 * The parent's side of the PostgreSQL pairs (pair.ts): starts hookline's and LangGraph's
 * pair children (pairChild.ts) on the server, both alive at once but never running at
 * once, and for each H has them warm up, then run in turn (hookline first in even pairs,
 * LangGraph first in odd ones) until twice the rows' time is up. Never rejects: a child
 * that fails or dies turns the Hs left into failures.
 */
import { spawn, type ChildProcessByStdio } from "node:child_process"
import { createInterface } from "node:readline"
import type { Readable, Writable } from "node:stream"
import { fileURLToPath } from "node:url"
import * as Rows from "../Rows.js"
import { childArgs } from "../run.js"
import { durableSteps, type DurableFailure, type DurableSettings } from "./Durable.js"
import { answerMarker, pairRow, type PairRow } from "./pair.js"

const script = fileURLToPath(new URL("./pairChild.ts", import.meta.url))

interface Side {
  readonly ask: (command: object) => Promise<{ readonly steadyUs?: number; readonly error?: string }>
  readonly end: () => Promise<void>
}

// One child, one command at a time: each command waits for its one answer line.
const start = (module: string, settings: DurableSettings, timeoutMs: number): Promise<Side> =>
  new Promise((resolve, reject) => {
    const child: ChildProcessByStdio<Writable, Readable, null> = spawn(
      process.execPath,
      childArgs(script, [module, JSON.stringify(settings)]),
      { stdio: ["pipe", "pipe", "inherit"] },
    )
    const waiting: Array<(line: string) => void> = []
    let ended = false
    const died = (why: string) => {
      ended = true
      for (const w of waiting.splice(0)) w(JSON.stringify({ error: `${module}'s pair child ${why}` }))
    }
    child.on("error", (e) => died(`could not start: ${e.message}`))
    child.on("close", (code, signal) => died(`ended (exit code ${code ?? "none"}${signal === null ? "" : `, signal ${signal}`})`))
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs)
    createInterface({ input: child.stdout }).on("line", (line) => {
      if (line.startsWith(answerMarker)) waiting.shift()?.(line.slice(answerMarker.length))
    })
    const next = (): Promise<string> => (ended ? Promise.resolve(JSON.stringify({ error: `${module}'s pair child ended` })) : new Promise((r) => waiting.push(r)))
    const side: Side = {
      ask: async (command) => {
        const answered = next()
        if (!ended) child.stdin.write(`${JSON.stringify(command)}\n`)
        return JSON.parse(await answered) as { readonly steadyUs?: number; readonly error?: string }
      },
      end: async () => {
        if (!ended) {
          const closed = new Promise<void>((r) => child.once("close", () => r()))
          child.stdin.end(`${JSON.stringify({ op: "end" })}\n`)
          await closed
        }
        clearTimeout(timer)
      },
    }
    void next().then((line) => {
      const ready = JSON.parse(line) as { readonly ready?: boolean; readonly error?: string }
      if (ready.ready === true) resolve(side)
      else reject(new Error(ready.error ?? `${module}'s pair child did not start`))
    })
  })

const steadyOf = (answer: { readonly steadyUs?: number; readonly error?: string }): number => {
  if (answer.error !== undefined || answer.steadyUs === undefined) throw new Error(answer.error ?? "no steady figure")
  return answer.steadyUs
}

/** The pair rows of `Hs` (a failure for each H that could not be measured). */
export const runPairs = async (Hs: ReadonlyArray<number>, settings: DurableSettings): Promise<ReadonlyArray<PairRow | DurableFailure>> => {
  const failure = (H: number, e: unknown): DurableFailure => ({ kind: "failure", job: { module: "pair", store: "postgres", H, steps: durableSteps }, error: Rows.message(e) })
  let sides: readonly [Side, Side]
  try {
    sides = [await start("hookline", settings, settings.childTimeoutMs), await start("langgraph", settings, settings.childTimeoutMs)]
  } catch (e) {
    return Hs.map((H) => failure(H, e))
  }
  const [mine, theirs] = sides
  const results: Array<PairRow | DurableFailure> = []
  try {
    for (const H of Hs) {
      try {
        for (const side of sides) {
          const warmed = await side.ask({ op: "warm", H })
          if (warmed.error !== undefined) throw new Error(warmed.error)
        }
        const [ours, their] = [[] as Array<number>, [] as Array<number>]
        // Twice the rows' time: a pair holds a LangGraph run, several times a hookline one.
        const until = performance.now() + 2 * settings.timeMs
        while (ours.length < settings.maxRuns && (ours.length < settings.minRuns || performance.now() < until)) {
          if (ours.length % 2 === 0) {
            ours.push(steadyOf(await mine.ask({ op: "run", H })))
            their.push(steadyOf(await theirs.ask({ op: "run", H })))
          } else {
            their.push(steadyOf(await theirs.ask({ op: "run", H })))
            ours.push(steadyOf(await mine.ask({ op: "run", H })))
          }
        }
        results.push(pairRow({ module: "hookline", store: "postgres", H, steps: durableSteps }, ours, their))
        process.stderr.write(`  pair postgres H=${H}: ${ours.length} pairs\n`)
      } catch (e) {
        results.push(failure(H, e))
      }
    }
  } finally {
    await Promise.all(sides.map((s) => s.end()))
  }
  return results
}
