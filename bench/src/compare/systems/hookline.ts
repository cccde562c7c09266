/**
 * hookline in the comparison: `AgentLoop.run` with a HookStack of K observers on every
 * trigger (`HookTriggers.all`), the io-ts `echo` tool and a fake model (a Driver). The
 * fixtures (script, history, stack) are loop.ts's, so both benchmarks time the same loop.
 */
import { AgentLoop, Driver, Tool, Tools } from "@hookline/agent"
import { AgentError, AgentState, HookTriggers, Message, type Hook } from "@hookline/core"
import { Effect } from "effect"
import * as t from "io-ts"
import { dispatchesPerRun, history, responses, stackOf, stepOf } from "../../loop.js"
import type { Counters, Prepared, System, Workload } from "../System.js"
import { versionOf } from "../Version.js"

const counters: Counters = { modelCalls: 0, toolCalls: 0, hookCalls: 0 }

// Messages the observers saw, so that no observer body is dead code (as in the peers).
const seen = new Float64Array(1)

const observer = (): Hook => (ctx) => {
  counters.hookCalls++
  seen[0] = (seen[0] as number) + ctx.state.context.messages.length
  return ctx
}

const echo = Tool.make({
  name: "echo",
  parameters: t.type({ i: t.number }),
  execute: ({ i }) => {
    counters.toolCalls++
    return i
  },
})

// A macrotask, as a network answer would be: 1,000 concurrent runs interleave.
const tick = Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))

/** The answer for the request's step, from its own history (runs share no counter). */
const fakeModel = (workload: Workload, base: number): Driver => {
  const script = responses(workload.steps)
  const answer = (messages: number) => {
    counters.modelCalls++
    const response = script[stepOf(messages, base)]
    return response === undefined
      ? Effect.fail(AgentError.inferenceFailed(`the fake model has no answer for ${messages} messages`))
      : Effect.succeed(response)
  }
  return Driver.make({
    generate: workload.asyncModel
      ? (request) => Effect.flatMap(tick, () => answer(request.messages.length))
      : (request) => answer(request.messages.length),
  })
}

/** The run's final text, or what went wrong (the harness prints it when it is not the expected text). */
export const outcome = (state: AgentState): string => {
  const last = state.context.messages.last()
  return state.execution.status === "completed" && last?.role === "assistant"
    ? last.content
    : `status ${state.execution.status}: ${state.execution.errors.map((e) => e.message).join("; ")}`
}

const prepare = async (workload: Workload): Promise<Prepared> => {
  // H history messages, then the question: a stored conversation every run continues.
  // Made once, as a state is kept between turns; AgentState.make from a plain array
  // freezes every message (about 0.9 ms for 10,000 here), which a run then never repeats.
  // Each run's first append branches the shared history (one copy of it, as the peers copy theirs).
  const input = AgentState.make({ id: "seed", messages: [...history(workload.H), Message.user("go")] })
  const loop = AgentLoop.make({ interceptor: stackOf(workload.K, observer), tools: Tools.make([echo]) })
  const driver = fakeModel(workload, input.context.messages.length)
  const program = AgentLoop.run(loop, input).pipe(Effect.provideService(Driver.Driver, driver))
  return { run: () => Effect.runPromise(program).then(outcome) }
}

export const system: System = {
  name: "hookline",
  version: versionOf("@hookline/agent"),
  // OnError is registered too; a run without errors never reaches it.
  hookPoints: HookTriggers.all,
  firingsPerRun: dispatchesPerRun,
  counters,
  prepare,
}
