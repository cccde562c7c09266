/**
 * The hand-written agent loop of the bare system and of koa-compose: plain arrays, the
 * fake model's script, the echo function, and a hook point at each place hookline has a
 * trigger (the same 301 firings in a W1 run). Only `fire`, what a hook point does,
 * differs between the two, so koa-compose is measured as a pipeline and nothing else.
 */
import { dispatchesPerRun, echoArgs, history, responses } from "../loop.js"
import type { Counters, Prepared, Workload } from "./System.js"

export interface HandMessage {
  readonly role: string
  readonly content: string
}

/** A run's history: the seed, shared by every run and never copied, then what the run added. */
export interface HandState {
  readonly seed: ReadonlyArray<HandMessage>
  readonly added: Array<HandMessage>
}

/** The points fired, as hookline names its triggers. */
export const hookPoints: ReadonlyArray<string> = [
  "BeforeExecution", "BeforeStep", "BeforeInference", "AfterInference", "BeforeToolUse",
  "AfterToolUse", "AfterStep", "OnStop", "AfterExecution",
]

export const firingsPerRun = dispatchesPerRun

/** One firing of a hook point: sync (bare) or a promise (koa-compose), awaited only then. */
export type Fire = (point: string, state: HandState) => Promise<void> | undefined

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

/** H messages, alternating user and assistant (loop.ts's, plain frozen objects), then the question. */
const seedOf = (H: number): ReadonlyArray<HandMessage> => Object.freeze([...history(H), { role: "user", content: "go" }])

/** A run of the workload: the loop; `fire` at every hook point; the model and tool count their calls. */
export const prepare = (workload: Workload, counters: Counters, fire: Fire): Prepared => {
  const script = responses(workload.steps)
  const seed = seedOf(workload.H)
  const answer = (state: HandState) => {
    counters.modelCalls++
    // Two messages per step: the step follows from the run's own history.
    const response = script[state.added.length >> 1]
    if (response === undefined) throw new Error(`the fake model has no answer for ${state.added.length} added messages`)
    return response
  }
  const run = async (): Promise<string> => {
    const state: HandState = { seed, added: [] }
    let p = fire("BeforeExecution", state)
    if (p !== undefined) await p
    for (;;) {
      if ((p = fire("BeforeStep", state)) !== undefined) await p
      if ((p = fire("BeforeInference", state)) !== undefined) await p
      if (workload.asyncModel) await tick()
      const response = answer(state)
      if ((p = fire("AfterInference", state)) !== undefined) await p
      state.added.push({ role: "assistant", content: response.text })
      for (const call of response.toolCalls) {
        if ((p = fire("BeforeToolUse", state)) !== undefined) await p
        counters.toolCalls++
        const output = echoArgs(call.arguments)
        if ((p = fire("AfterToolUse", state)) !== undefined) await p
        state.added.push({ role: "tool", content: JSON.stringify(output) })
      }
      if ((p = fire("AfterStep", state)) !== undefined) await p
      if (response.toolCalls.length === 0) {
        if ((p = fire("OnStop", state)) !== undefined) await p
        if ((p = fire("AfterExecution", state)) !== undefined) await p
        return response.text
      }
    }
  }
  return { run }
}
