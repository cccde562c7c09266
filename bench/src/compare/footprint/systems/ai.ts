/**
 * The AI SDK's memory rows: a `ToolLoopAgent` over `MockLanguageModelV4`, as the main
 * table's systems/ai.ts. In flight: one model call that waits for the harness's gate,
 * then "done". Suspended: the echo tool has `needsApproval: true`, so `generate()` stops
 * with a tool-approval request; the caller holds the messages array it resumes from
 * (the input and the response's messages). Completed: one echo call, then "done".
 */
import { isStepCount, tool, ToolLoopAgent, type ModelMessage } from "ai"
import { MockLanguageModelV4 } from "ai/test"
import { z } from "zod"
import { answerFor } from "../../systems/ai.js"
import { versionOf } from "../../Version.js"
import type { FootprintSystem } from "../Footprint.js"

const seed: ReadonlyArray<ModelMessage> = Object.freeze([{ role: "user", content: "go" }])

/** Step 1 of 2 asks for echo, step 2 (or the only step) answers "done". */
const agentOf = (steps: number, gate: (() => Promise<void>) | undefined, needsApproval: boolean) => {
  const model: MockLanguageModelV4 = new MockLanguageModelV4({
    doGenerate: async (options) => {
      // The mock records every call; drop them, or held runs would include them.
      model.doGenerateCalls.length = 0
      if (gate !== undefined) await gate()
      return answerFor(Math.min(((options.prompt.length - seed.length) >> 1) + 1, steps), steps)
    },
  })
  const echo = tool({ description: "Echoes i", inputSchema: z.object({ i: z.number() }), needsApproval, execute: ({ i }) => i })
  return new ToolLoopAgent({ model, tools: { echo }, stopWhen: isStepCount(steps), telemetry: { isEnabled: false } })
}

export const system: FootprintSystem = {
  name: "ai",
  version: versionOf("ai"),
  held: "the messages array (input + response messages)",
  inFlight: async (gate) => {
    const agent = agentOf(1, gate, false)
    return async () => (await agent.generate({ messages: [...seed] })).text
  },
  completed: async () => {
    const agent = agentOf(2, undefined, false)
    return async () => (await agent.generate({ messages: [...seed] })).text
  },
  suspended: async () => {
    const agent = agentOf(2, undefined, true)
    return async () => {
      const result = await agent.generate({ messages: [...seed] })
      if (!result.content.some((part) => part.type === "tool-approval-request")) throw new Error(`suspended: no tool-approval request (finish ${result.finishReason})`)
      return [...seed, ...result.response.messages]
    }
  },
}
