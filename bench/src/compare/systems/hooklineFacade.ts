/**
 * hookline as users run it (UserPath.ts): an AgentBuilder agent run with the Promise
 * facade (`await agent.run(state)`), a `Driver.fromPromise` model with an async
 * `generate` (W4: it answers after a `setImmediate`, as hookline.ts's model does), an
 * async `echo` tool, the default guards, and K observers added with `UseHook` on
 * `HookTriggers.all`. Beside hookline.ts (the internal path: `AgentLoop.run` in Effect,
 * an Effect model, a synchronous tool), so the table shows what the facade costs.
 * hooklineStream.ts runs the same agent streamed (`for await (const event of
 * agent.stream(state))`, default options: no HookExecuted events).
 */
import { AgentState, HookTriggers, Message, type Hook } from "@hookline/core"
import { dispatchesPerRun, history, responses, stepOf } from "../../loop.js"
import * as UserPath from "../../UserPath.js"
import type { Counters, Prepared, System, Workload } from "../System.js"
import { outcome } from "./hookline.js"
import { versionOf } from "../Version.js"

const counters: Counters = { modelCalls: 0, toolCalls: 0, hookCalls: 0 }

// Messages the observers saw, so that no observer body is dead code (as in the peers).
const seen = new Float64Array(1)

const observer = (): Hook => (ctx) => {
  counters.hookCalls++
  seen[0] = (seen[0] as number) + ctx.state.context.messages.length
  return ctx
}

// A macrotask, as a network answer would be: 1,000 concurrent runs interleave.
const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

const prepareFor = (mode: "facade" | "stream") => async (workload: Workload): Promise<Prepared> => {
  // As hookline.ts: a stored conversation (H messages, then the question) every run continues.
  const input = AgentState.make({ id: "seed", messages: [...history(workload.H), Message.user("go")] })
  const base = input.context.messages.length
  const agent = UserPath.agent({
    script: responses(workload.steps),
    stepOf: (messages) => stepOf(messages, base),
    K: workload.K,
    observer,
    tick: workload.asyncModel ? tick : undefined,
    onModel: () => {
      counters.modelCalls++
    },
    onTool: () => {
      counters.toolCalls++
    },
  })
  return { run: mode === "facade" ? () => agent.run(input).then(outcome) : () => UserPath.streamed(agent, input).then(outcome) }
}

/** The user path as a system: the Promise facade or the streamed facade. */
export const userSystem = (mode: "facade" | "stream"): System => ({
  name: mode === "facade" ? "hookline (facade)" : "hookline (streamed)",
  version: versionOf("@hookline/agent"),
  hookPoints: HookTriggers.all,
  firingsPerRun: dispatchesPerRun,
  counters,
  prepare: prepareFor(mode),
})

export const system: System = userSystem("facade")
