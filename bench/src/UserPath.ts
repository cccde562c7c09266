/**
 * The path users take, as the README shows it: an agent from `AgentBuilder.make`, run
 * with the Promise facade (`agent.run(state)`) or streamed (`agent.stream(state)`); a
 * `Driver.fromPromise` model whose `generate` is async; an async tool (`execute: async`);
 * the default guards (steps raised to fit the run: the default 20 would stop a 50-step
 * run); K observers added with `UseHook` on `HookTriggers.all`. loop.ts times it beside
 * the internal path (`Effect.runPromise(AgentLoop.run(...))`, an Effect driver, a
 * synchronous tool), and the comparison runs it as the system "hookline (facade)".
 */
import { type Agent, AgentBuilder, Driver, Tool, UseDriver, UseGuards, UseHook, UseTools } from "@hookline/agent"
import { AgentError, type AgentState, HookTriggers, type Hook, type InferenceResponse } from "@hookline/core"
import * as t from "io-ts"

/** Steps the guards allow: room for the longest run of the benchmarks (50 steps). */
export const maxSteps = 100

export interface UserPathOptions {
  /** The answers, by step: `script[stepOf(messages, base)]`. */
  readonly script: ReadonlyArray<InferenceResponse>
  /** The step of a request with `messages` messages. */
  readonly stepOf: (messages: number) => number
  /** Observers on every trigger, each made by `observer`. */
  readonly K: number
  readonly observer: () => Hook
  /** Before the model answers: nothing (an `async` function answers a microtask later), or a macrotask (W4). */
  readonly tick?: (() => Promise<void>) | undefined
  /** Called once per model call and per tool call, for validation counters. */
  readonly onModel?: (() => void) | undefined
  readonly onTool?: (() => void) | undefined
  /** More capabilities, after the observers (the store bench adds `UseCheckpoints`). */
  readonly capabilities?: ReadonlyArray<AgentBuilder.Capability> | undefined
}

/** The agent, built the README way. */
export const agent = (o: UserPathOptions): Agent => {
  const { script, stepOf, tick, onModel, onTool } = o
  const model = Driver.fromPromise({
    generate: async (request) => {
      onModel?.()
      if (tick !== undefined) await tick()
      const response = script[stepOf(request.messages.length)]
      if (response === undefined) throw AgentError.inferenceFailed(`the fake model has no answer for ${request.messages.length} messages`)
      return response
    },
  })
  const echo = Tool.make({
    name: "echo",
    description: "Returns its argument",
    parameters: t.type({ i: t.number }),
    execute: async ({ i }) => {
      onTool?.()
      return i
    },
  })
  return AgentBuilder.make(
    UseDriver(model),
    UseTools([echo]),
    UseGuards({ maxSteps }),
    ...Array.from({ length: o.K }, (_, i) => UseHook(o.observer(), { triggers: HookTriggers.all, name: `observer:${i}` })),
    ...(o.capabilities ?? []),
  )
}

/** The streamed form: every event consumed; resolves with the final state (from `RunEnded`). */
export const streamed = async (a: Agent, input: AgentState): Promise<AgentState> => {
  let final: AgentState | undefined
  for await (const event of a.stream(input)) {
    if (event._tag === "RunEnded") final = event.state
  }
  if (final === undefined) throw new Error("the stream ended without RunEnded")
  return final
}
