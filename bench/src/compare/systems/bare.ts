/**
 * The bare loop, the physical limit: the hand-written loop (HandLoop.ts) whose hook
 * points call K observer functions in a `for` loop over a plain array. No framework,
 * no promise per firing, no copy of the history.
 */
import * as HandLoop from "../HandLoop.js"
import type { Counters, System } from "../System.js"

const counters: Counters = { modelCalls: 0, toolCalls: 0, hookCalls: 0 }

interface Ctx {
  readonly point: string
  readonly state: HandLoop.HandState
}
type Observer = (ctx: Ctx) => Ctx

// Messages the observers saw, so that no observer body is dead code (as in the peers).
const seen = new Float64Array(1)

const observer = (): Observer => (ctx) => {
  counters.hookCalls++
  seen[0] = (seen[0] as number) + ctx.state.seed.length + ctx.state.added.length
  return ctx
}

export const system: System = {
  name: "bare loop",
  version: "–",
  hookPoints: HandLoop.hookPoints,
  firingsPerRun: HandLoop.firingsPerRun,
  counters,
  prepare: async (workload) => {
    const observers: ReadonlyArray<Observer> = Array.from({ length: workload.K }, observer)
    return HandLoop.prepare(workload, counters, (point, state) => {
      let ctx: Ctx = { point, state }
      for (let i = 0; i < observers.length; i++) ctx = (observers[i] as Observer)(ctx)
      return undefined
    })
  },
}
