/**
 * One side of the interleaved A/B loop bench (ab.ts): loads @hookline/core and
 * @hookline/agent from the built `dist/` of the tree it is given (not from this tree),
 * runs the loop workload of `pnpm bench loop` (W1, the internal path: 50 steps, 49 `echo`
 * calls then a final text, K observers on every trigger) and prints one JSON line: the
 * median over its runs of the wall-clock µs per step and of the process's CPU µs per
 * step (user + system). The workload lives here, not in the tree measured, so
 * both sides run the same bench code against their own loop.
 *
 *   node --import tsx bench/src/ab/worker.ts <tree> <warmMs> <timeMs>
 */
import { createRequire } from "node:module"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import type { Hook as HookType, HookStack as HookStackType } from "@hookline/core"

type Agent = typeof import("@hookline/agent")
type Core = typeof import("@hookline/core")
type EffectModule = typeof import("effect")
type IoTs = typeof import("io-ts")

/** The cases: pure observers (K = 0 and 20) and Effect observers (K = 5). */
export const cases = [
  { name: "pure K=0", K: 0, effect: false },
  { name: "pure K=20", K: 20, effect: false },
  { name: "effect K=5", K: 5, effect: true },
] as const

export const steps = 50

/** The median of a list of numbers (sorted in place). */
export const median = (xs: Array<number>): number => {
  xs.sort((a, b) => a - b)
  const mid = xs.length >> 1
  return xs.length === 0 ? Number.NaN : xs.length % 2 === 1 ? (xs[mid] as number) : ((xs[mid - 1] as number) + (xs[mid] as number)) / 2
}

/** Loads a tree's built core and agent, and the effect and io-ts they resolve. */
export const load = async (tree: string) => {
  const from = createRequire(join(tree, "packages", "agent", "package.json"))
  const url = (path: string) => pathToFileURL(path).href
  const agent = (await import(url(join(tree, "packages", "agent", "dist", "index.js")))) as Agent
  const core = (await import(url(join(tree, "packages", "core", "dist", "index.js")))) as Core
  const effect = (await import(url(from.resolve("effect")))) as EffectModule
  const ioTs = (await import(url(from.resolve("io-ts")))) as IoTs & { readonly default?: IoTs }
  return { agent, core, effect, t: ioTs.default ?? ioTs }
}

export type Loaded = Awaited<ReturnType<typeof load>>

/** A run of one case: returns a function that runs the loop once and checks the result. */
export const caseRun = (m: Loaded, K: number, effectful: boolean): () => Promise<number> => {
  const { AgentLoop, Driver, Tool, Tools } = m.agent
  const { AgentState, Hook, HookStack, HookTriggers, InferenceResponse, Message, ToolCall } = m.core
  const { Effect } = m.effect
  const script = Array.from({ length: steps }, (_, i) =>
    i < steps - 1
      ? InferenceResponse.make({ toolCalls: [ToolCall.make({ id: `call-${i + 1}`, name: "echo", arguments: { i: i + 1 } })] })
      : InferenceResponse.make({ text: "done" }))
  const driver = Driver.make({
    generate: (request) => {
      const response = script[(request.messages.length - 1) >> 1]
      return response === undefined ? Effect.die(new Error("no answer")) : Effect.succeed(response)
    },
  })
  const echo = Tool.make({ name: "echo", parameters: m.t.type({ i: m.t.number }), execute: ({ i }) => i })
  let calls = 0
  const pure = (): HookType => (ctx) => {
    calls++
    return ctx
  }
  let stack: HookStackType = HookStack.empty
  for (let i = 0; i < K; i++) {
    stack = effectful
      ? HookStack.with(stack, Hook.effect((ctx) => Effect.sync(() => (calls++, ctx))), { triggers: HookTriggers.all, name: `observer:${i}` })
      : HookStack.with(stack, pure(), { triggers: HookTriggers.all, name: `observer:${i}` })
  }
  const loop = AgentLoop.make({ interceptor: stack, tools: Tools.make([echo]) })
  const seed = AgentState.make({ id: "ab", messages: [Message.user("go")] })
  return async () => {
    const before = calls
    const state = await Effect.runPromise(AgentLoop.run(loop, seed).pipe(Effect.provideService(Driver.Driver, driver)))
    if (state.execution.status !== "completed" || state.execution.steps.length !== steps) {
      throw new Error(`the A/B workload did not complete: ${state.execution.status}, ${state.execution.steps.length} steps`)
    }
    // 301 dispatches per 50-step run (bench/src/loop.ts, dispatchesPerRun).
    if (calls - before !== K * 301) throw new Error(`${calls - before} observer calls, expected ${K * 301}`)
    return state.context.messages.length
  }
}

const main = async (): Promise<void> => {
  const [tree, warm = "300", time = "600"] = process.argv.slice(2)
  if (tree === undefined) throw new Error("usage: worker.ts <tree> [warmMs] [timeMs]")
  const m = await load(tree)
  const runs = cases.map((c) => ({ name: c.name, run: caseRun(m, c.K, c.effect), times: [] as Array<number>, cpu: [] as Array<number> }))
  let checksum = 0
  // Each run is timed twice: by the wall clock, and by the process's CPU time (user +
  // system): on a shared machine, time spent waiting for a core inflates the first only.
  const loopFor = async (c: (typeof runs)[number], ms: number, timed: boolean) => {
    const until = performance.now() + ms
    for (let i = 0; i < 3 || performance.now() < until; i++) {
      const cpu = process.cpuUsage()
      const start = process.hrtime.bigint()
      checksum += await c.run()
      const wall = Number(process.hrtime.bigint() - start) / 1000
      const used = process.cpuUsage(cpu)
      if (timed) {
        c.times.push(wall / steps)
        c.cpu.push((used.user + used.system) / steps)
      }
    }
  }
  for (const c of runs) await loopFor(c, Number(warm), false)
  // Three slices per case, round-robin, so a pause of the machine hits every case alike.
  for (let slice = 0; slice < 3; slice++) for (const c of runs) await loopFor(c, Number(time) / 3, true)
  const result = Object.fromEntries(
    runs.map((c) => [c.name, { usPerStep: median(c.times), cpuUsPerStep: median(c.cpu), runs: c.times.length }]),
  )
  process.stdout.write(`${JSON.stringify({ result, checksum })}\n`)
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main()
