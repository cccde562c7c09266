/**
 * hookline's memory rows: the user path (UserPath.ts: AgentBuilder agent, Promise facade,
 * async model and tool, default guards, K = 0). In flight: a one-step run whose model
 * waits for the harness's gate. Suspended: `UseApproval({ tools: ["echo"] })` stops the
 * run before its echo call; the caller holds the suspended AgentState. Completed: one
 * echo call, then "done".
 */
import { AgentState, Message } from "@hookline/core"
import { UseApproval } from "@hookline/middleware"
import { responses, stepOf } from "../../../loop.js"
import * as UserPath from "../../../UserPath.js"
import { outcome } from "../../systems/hookline.js"
import { versionOf } from "../../Version.js"
import type { FootprintSystem } from "../Footprint.js"

const input = (id: string): AgentState => AgentState.make({ id, messages: [Message.user("go")] })

const agentOf = (steps: number, tick: (() => Promise<void>) | undefined, capabilities: UserPath.UserPathOptions["capabilities"] = []) =>
  UserPath.agent({ script: responses(steps), stepOf: (messages) => stepOf(messages, 1), K: 0, observer: () => (ctx) => ctx, tick, capabilities })

let serial = 0

export const system: FootprintSystem = {
  name: "hookline",
  version: versionOf("@hookline/agent"),
  held: "the suspended AgentState",
  inFlight: async (gate) => {
    const agent = agentOf(1, gate)
    return async () => outcome(await agent.run(input(`in-flight-${serial++}`)))
  },
  completed: async () => {
    const agent = agentOf(2, undefined)
    return async () => outcome(await agent.run(input(`completed-${serial++}`)))
  },
  suspended: async () => {
    const agent = agentOf(2, undefined, [UseApproval({ tools: ["echo"] })])
    return async () => {
      const state = await agent.run(input(`suspended-${serial++}`))
      if (state.execution.status !== "suspended") throw new Error(`suspended: the run ended ${state.execution.status}: ${outcome(state)}`)
      return state
    }
  },
}
