/**
 * koa-compose, the pipeline-only reference: the hand-written loop (HandLoop.ts), where
 * every hook point runs its own composed chain of K observer middlewares and awaits it,
 * as Koa runs a request. Chains are composed once (koa-compose validates then), not per
 * firing.
 */
import compose from "koa-compose"
import * as HandLoop from "../HandLoop.js"
import type { Counters, System } from "../System.js"
import { versionOf } from "../Version.js"

const counters: Counters = { modelCalls: 0, toolCalls: 0, hookCalls: 0 }

interface Ctx {
  readonly point: string
  readonly state: HandLoop.HandState
}

// Messages the observers saw, so that no observer body is dead code (as in the peers).
const seen = new Float64Array(1)

const observer = (): compose.Middleware<Ctx> => (ctx, next) => {
  counters.hookCalls++
  seen[0] = (seen[0] as number) + ctx.state.seed.length + ctx.state.added.length
  return next()
}

export const system: System = {
  name: "koa-compose",
  version: versionOf("koa-compose"),
  hookPoints: HandLoop.hookPoints,
  firingsPerRun: HandLoop.firingsPerRun,
  counters,
  prepare: async (workload) => {
    const chains = new Map(HandLoop.hookPoints.map((point) => [point, compose(Array.from({ length: workload.K }, observer))]))
    return HandLoop.prepare(workload, counters, (point, state) => {
      const chain = chains.get(point)
      if (chain === undefined) throw new Error(`no chain for ${point}`)
      return chain({ point, state })
    })
  },
}
