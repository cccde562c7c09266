/**
 * Where a durable row's time goes within one run (issue 27, branch memhist): the
 * compare's hookline agent (systems/hookline.ts: the user path, S = 5 steps, H messages
 * of history, a fresh `AgentState.make` per run) timed phase by phase from the fake
 * model's calls, as runOnce.ts stamps them:
 *
 *   node --conditions=@hookline/source --expose-gc --import tsx bench/src/compare/durable/phases.ts [store] [H,...] [runs]
 *
 * `store`: none (no UseCheckpoints) or memory (MemoryStore). Per H, medians over the
 * last two thirds of `runs` (default 600): `start` (the run's call to its first model
 * call: the entry check, BeforeExecution, the first checkpoint), `tool k` (model call k
 * to k + 1: step k, one tool call), `end` (the last model call to the run's answer: the
 * final answer's step and the run's end), `steady` (the compare's window: from the second
 * model call to the end, per step), and the collections that started inside the window.
 * PHASES_SAME_INPUT=1: every run starts from one state object (the same id; each run is
 * removed after it), so the agent's entry check decodes it once, then knows it: the
 * run's start without its O(H) check. PHASES_PAUSE_MS=8: a busy wait of that long before
 * each run (no memory touched), to see what any long stretch before a run does to it.
 */
import { AgentState, Message } from "@hookline/core"
import { MemoryStore, UseCheckpoints } from "@hookline/store"
import { Effect } from "effect"
import { PerformanceObserver } from "node:perf_hooks"
import { history, responses, stepOf } from "../../loop.js"
import * as UserPath from "../../UserPath.js"
import { outcome } from "../systems/hookline.js"
import { calls, durableSteps, modelCalled, toolCalled } from "./Durable.js"

const [storeName = "memory", hsArg = "0,10000", runsArg = "600"] = process.argv.slice(2)
if (storeName !== "none" && storeName !== "memory") throw new Error(`store: expected none or memory, got ${JSON.stringify(storeName)}`)
const Hs = hsArg.split(",").map(Number)
const runs = Number(runsArg)
if (Hs.some((H) => !Number.isSafeInteger(H) || H < 0) || !Number.isSafeInteger(runs) || runs < 3) throw new Error("expected H values >= 0 and runs >= 3")
const sameInput = process.env["PHASES_SAME_INPUT"] === "1"
const pauseMs = Number(process.env["PHASES_PAUSE_MS"] ?? 0)
const steps = durableSteps

// Collections, by start time (performance.now's clock).
const collections: Array<number> = []
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) collections.push(entry.startTime)
}).observe({ entryTypes: ["gc"] })

// The model's calls, on performance.now's clock (runOnce.ts stamps hrtime; the same moments).
const stamps: Array<number> = []
const push = calls.stamps.push.bind(calls.stamps)
calls.stamps.push = (...items: Array<bigint>): number => {
  stamps.push(performance.now())
  return push(...items)
}

const median = (xs: ReadonlyArray<number>): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number

const measure = async (H: number): Promise<string> => {
  const store = storeName === "memory" ? MemoryStore.make() : undefined
  const seed = [...history(H), Message.user("go")]
  const agent = UserPath.agent({
    script: responses(steps),
    stepOf: (messages) => stepOf(messages, seed.length),
    K: 0,
    observer: () => (ctx) => ctx,
    onModel: modelCalled,
    onTool: toolCalled,
    capabilities: store === undefined ? [] : [UseCheckpoints(store)],
  })
  const once = AgentState.make({ id: "phases", messages: seed })
  // Per run: start, tool 1..S-1, end (µs); the steady window (µs per step); collections in it.
  const rows: Array<{ readonly phases: ReadonlyArray<number>; readonly steady: number; readonly collected: number }> = []
  for (let i = 0; i < runs; i++) {
    const id = sameInput ? "phases" : `phases-${i}`
    const input = sameInput ? once : AgentState.make({ id, messages: seed })
    if (pauseMs > 0) {
      const until = performance.now() + pauseMs
      while (performance.now() < until) {
        // busy: nothing allocated, nothing read
      }
    }
    stamps.length = 0
    calls.stamps.length = 0
    const started = performance.now()
    const text = outcome(await agent.run(input))
    const ended = performance.now()
    if (text !== "done" || stamps.length !== steps) throw new Error(`run ${i}: ${JSON.stringify(text)}, ${stamps.length} model calls`)
    const marks = [started, ...stamps, ended]
    const second = stamps[1] as number
    rows.push({
      phases: marks.slice(1).map((t, k) => (t - (marks[k] as number)) * 1000),
      steady: ((ended - second) * 1000) / (steps - 1),
      collected: collections.filter((t) => t >= second && t <= ended).length,
    })
    if (store !== undefined) await Effect.runPromise(store.remove(id))
    await new Promise<void>((resolve) => setImmediate(resolve))
  }
  const kept = rows.slice(Math.floor(runs / 3))
  const names = ["start", ...Array.from({ length: steps - 1 }, (_, k) => `tool ${k + 1}`), "end"]
  const phases = names.map((name, k) => `${name} ${median(kept.map((r) => r.phases[k] as number)).toFixed(1)}`).join(" / ")
  const collected = kept.reduce((n, r) => n + r.collected, 0)
  return `${storeName} H=${H}${sameInput ? " (same input)" : ""}${pauseMs > 0 ? ` (${pauseMs} ms busy before each run)` : ""}: ` +
    `steady ${median(kept.map((r) => r.steady)).toFixed(1)} µs/step; µs: ${phases}; collections in the window: ${collected} in ${kept.length} runs`
}

for (const H of Hs) console.log(await measure(H))
