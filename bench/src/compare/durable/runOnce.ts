/**
 * One validated run of a durable case, timed (the whole run and its steady part, from
 * the second model call), shared by the row child (child.ts) and the pair child
 * (pairChild.ts).
 */
import { quantile } from "../../measure.js"
import { calls, type DurableCase, type Spread } from "./Durable.js"

export const clock = (): bigint => process.hrtime.bigint()

export const spread = (values: ReadonlyArray<number>): Spread => {
  const sorted = [...values].sort((a, b) => a - b)
  return { p10: quantile(sorted, 0.1), p50: quantile(sorted, 0.5), p90: quantile(sorted, 0.9) }
}

let serial = 0

export interface Timed {
  readonly us: number
  readonly steadyUs: number
  readonly bytes: number
}

/** One run of `steps` steps, validated; its time and (with `count`) its bytes. */
export const runOnce = async (c: DurableCase, steps: number, count: boolean): Promise<Timed> => {
  const id = `bench-durable-${process.pid}-${serial++}`
  await c.before(id, count)
  const [model, tool] = [calls.model, calls.tool]
  calls.stamps.length = 0
  const start = clock()
  const text = await c.run(id, count)
  const end = clock()
  const second = calls.stamps[1]
  const wrong: Array<string> = []
  if (calls.model - model !== steps) wrong.push(`model calls ${calls.model - model}, expected ${steps}`)
  if (calls.tool - tool !== steps - 1) wrong.push(`tool calls ${calls.tool - tool}, expected ${steps - 1}`)
  if (text !== "done") wrong.push(`final text ${JSON.stringify(text.slice(0, 300))}, expected "done"`)
  if (second === undefined && steps > 1) wrong.push("no second model call")
  if (wrong.length > 0) throw new Error(`validation failed: ${wrong.join("; ")}`)
  const bytes = await c.after(id, count)
  await new Promise<void>((resolve) => setImmediate(resolve))
  return { us: Number(end - start) / 1000 / steps, steadyUs: second === undefined ? Number.NaN : Number(end - second) / 1000 / (steps - 1), bytes }
}
