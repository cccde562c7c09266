/**
 * The facade's cases for the fixed-work scripts (fixed.ts, allocated.ts): the compare
 * system `hooklineFacade`'s exact user path (bench/src/UserPath.ts, W1: 50 steps, H = 0,
 * the model answering a microtask later), built from a tree's `dist/` as worker.ts
 * builds the internal path, so two trees compare at equal work. An AgentBuilder agent
 * run with `await agent.run(state)`, a `Driver.fromPromise` model with an async
 * `generate`, an async tool with io-ts arguments, the default guards (steps raised to
 * 100, as UserPath's) and K observers added with `UseHook` on every trigger. The stream
 * cases run the same agent as the compare system `hooklineStream` does (UserPath's
 * `streamed`: `for await (const event of agent.stream(state))`, default options, the
 * final state taken from `RunEnded`).
 */
import { type Loaded, steps } from "./worker.js"

/** The facade's cases: pure observers, K = 0 and 20, run with `agent.run` or streamed. */
export const facadeCases = [
  { name: "facade K=0", K: 0, stream: false },
  { name: "facade K=20", K: 20, stream: false },
  { name: "stream K=0", K: 0, stream: true },
  { name: "stream K=20", K: 20, stream: true },
] as const

/** The facade's case named `name`, if it is one. */
export const facadeCase = (name: string) => facadeCases.find((c) => c.name === name)

/**
 * A run of the facade's user path with K observers, awaited or streamed: runs it once
 * and checks the result.
 */
export const facadeRun = (m: Loaded, K: number, stream = false): () => Promise<number> => {
  const { AgentBuilder, Driver, Tool, UseDriver, UseGuards, UseHook, UseTools } = m.agent
  const { AgentError, AgentState, HookTriggers, InferenceResponse, Message, ToolCall } = m.core
  const script = Array.from({ length: steps }, (_, i) =>
    i < steps - 1
      ? InferenceResponse.make({ toolCalls: [ToolCall.make({ id: `call-${i + 1}`, name: "echo", arguments: { i: i + 1 } })] })
      : InferenceResponse.make({ text: "done" }))
  let calls = 0
  const model = Driver.fromPromise({
    generate: async (request) => {
      const response = script[(request.messages.length - 1) >> 1]
      if (response === undefined) throw AgentError.inferenceFailed(`no answer for ${request.messages.length} messages`)
      return response
    },
  })
  const echo = Tool.make({
    name: "echo",
    description: "Returns its argument",
    parameters: m.t.type({ i: m.t.number }),
    execute: async ({ i }) => i,
  })
  const agent = AgentBuilder.make(
    UseDriver(model),
    UseTools([echo]),
    UseGuards({ maxSteps: 100 }),
    ...Array.from({ length: K }, (_, i) =>
      UseHook((ctx) => {
        calls++
        return ctx
      }, { triggers: HookTriggers.all, name: `observer:${i}` })),
  )
  const seed = AgentState.make({ id: "seed", messages: [Message.user("go")] })
  type State = Awaited<ReturnType<typeof agent.run>>
  // As UserPath's `streamed`: every event taken, the final state from RunEnded.
  const streamed = async (): Promise<State> => {
    let final: State | undefined
    for await (const event of agent.stream(seed)) {
      if (event._tag === "RunEnded") final = event.state
    }
    if (final === undefined) throw new Error("the stream ended without RunEnded")
    return final
  }
  return async () => {
    const before = calls
    const state = stream ? await streamed() : await agent.run(seed)
    if (state.execution.status !== "completed" || state.execution.steps.length !== steps) {
      throw new Error(`the facade workload did not complete: ${state.execution.status}, ${state.execution.steps.length} steps`)
    }
    if (calls - before !== K * 301) throw new Error(`${calls - before} observer calls, expected ${K * 301}`)
    return state.context.messages.length
  }
}
