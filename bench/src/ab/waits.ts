/**
 * What the facade's two waits cost a step: facade.ts's agent (W1, K observers, the default
 * guards) with its model and its tool each made one of three ways, CPU µs per step at
 * fixed work on one tree (the best of 5 rounds of `runs` runs, after 500 warm-up runs):
 *
 *   node --import tsx bench/src/ab/waits.ts <tree> [model,tool] [K] [runs]
 *
 * model: `promise` (`Driver.fromPromise`, an async generate: the facade's), `effect`
 * (`Driver.make` answering `Effect.succeed`: no wait), `callback` (`Driver.make` with an
 * `Effect.callback` resumed a microtask later, returning a cancel effect: effect's bare
 * wait). tool: `promise` (an async execute: the facade's) or `sync`. `promise,promise` is
 * the facade's step, `effect,sync` the internal path's work through the facade's agent.
 */
import { load, steps } from "./worker.js"

const [tree, variant = "promise,promise", K = "0", runs = "400"] = process.argv.slice(2)
if (tree === undefined) throw new Error("usage: waits.ts <tree> [model,tool] [K] [runs]")
const [modelKind, toolKind] = variant.split(",")
const m = await load(tree)
const { AgentBuilder, Driver, Tool, UseDriver, UseGuards, UseHook, UseTools } = m.agent
const { AgentState, HookTriggers, InferenceResponse, Message, ToolCall } = m.core
const { Effect } = m.effect
type Request = { readonly messages: { readonly length: number } }
const script = Array.from({ length: steps }, (_, i) =>
  i < steps - 1
    ? InferenceResponse.make({ toolCalls: [ToolCall.make({ id: `call-${i + 1}`, name: "echo", arguments: { i: i + 1 } })] })
    : InferenceResponse.make({ text: "done" }))
const answer = (request: Request) => script[(request.messages.length - 1) >> 1] as (typeof script)[number]
const model = modelKind === "promise"
  ? Driver.fromPromise({ generate: async (request) => answer(request) })
  : modelKind === "effect"
  ? Driver.make({ generate: (request) => Effect.succeed(answer(request)) })
  : modelKind === "callback"
  ? Driver.make({
    generate: (request) =>
      Effect.callback((resume) => {
        queueMicrotask(() => resume(Effect.succeed(answer(request))))
        return Effect.void
      }),
  })
  : undefined
if (model === undefined || (toolKind !== "promise" && toolKind !== "sync")) throw new Error(`no variant ${variant}`)
const echo = toolKind === "promise"
  ? Tool.make({ name: "echo", description: "e", parameters: m.t.type({ i: m.t.number }), execute: async ({ i }) => i })
  : Tool.make({ name: "echo", description: "e", parameters: m.t.type({ i: m.t.number }), execute: ({ i }) => i })
const agent = AgentBuilder.make(
  UseDriver(model),
  UseTools([echo]),
  UseGuards({ maxSteps: 100 }),
  ...Array.from({ length: Number(K) }, (_, i) => UseHook((ctx) => ctx, { triggers: HookTriggers.all, name: `observer:${i}` })),
)
const seed = AgentState.make({ id: "seed", messages: [Message.user("go")] })
const run = async (): Promise<void> => {
  const state = await agent.run(seed)
  if (state.execution.steps.length !== steps) throw new Error(`${state.execution.steps.length} steps, expected ${steps}`)
}
for (let i = 0; i < 500; i++) await run()
let best = Number.POSITIVE_INFINITY
for (let round = 0; round < 5; round++) {
  const start = process.cpuUsage()
  for (let i = 0; i < Number(runs); i++) await run()
  const used = process.cpuUsage(start)
  best = Math.min(best, (used.user + used.system) / Number(runs) / steps)
}
process.stdout.write(`model ${modelKind}, tool ${toolKind}, K=${K}: ${best.toFixed(2)} cpu µs/step (best of 5 × ${runs} runs)\n`)
