/**
 * LangChain's memory rows: `createAgent` (LangGraph underneath) with the main table's
 * fake chat model (systems/langchain.ts's StepModel) and an `echo` tool. In flight: one
 * model call that waits for the harness's gate, then "done". Suspended:
 * `humanInTheLoopMiddleware({ interruptOn: { echo: true } })` and a `MemorySaver`: the
 * run is interrupted before its echo call and held as its thread's checkpoint in the
 * saver (the caller keeps the thread id). Completed: one echo call, then "done", no
 * checkpointer.
 */
import { MemorySaver } from "@langchain/langgraph"
import { createAgent, HumanMessage, humanInTheLoopMiddleware, tool } from "langchain"
import { z } from "zod"
import { StepModel } from "../../systems/langchain.js"
import { versionOf } from "../../Version.js"
import type { FootprintSystem } from "../Footprint.js"

for (const name of ["LANGCHAIN_TRACING_V2", "LANGCHAIN_TRACING", "LANGSMITH_TRACING", "LANGSMITH_TRACING_V2"]) delete process.env[name]

const echo = tool(({ i }) => i, { name: "echo", description: "Echoes i", schema: z.object({ i: z.number() }) })

const textOf = (messages: ReadonlyArray<{ readonly text: string }>): string => messages.at(-1)?.text ?? ""

let serial = 0

export const system: FootprintSystem = {
  name: "langchain",
  version: versionOf("langchain"),
  held: "the interrupted thread's checkpoint in MemorySaver",
  inFlight: async (gate) => {
    const agent = createAgent({ model: new StepModel(1, 1, false, gate), tools: [echo] })
    return async () => textOf((await agent.invoke({ messages: [new HumanMessage("go")] })).messages)
  },
  completed: async () => {
    const agent = createAgent({ model: new StepModel(1, 2, false, () => undefined), tools: [echo] })
    return async () => textOf((await agent.invoke({ messages: [new HumanMessage("go")] })).messages)
  },
  suspended: async () => {
    const checkpointer = new MemorySaver()
    const agent = createAgent({
      model: new StepModel(1, 2, false, () => undefined),
      tools: [echo],
      middleware: [humanInTheLoopMiddleware({ interruptOn: { echo: true } })],
      checkpointer,
    })
    return async () => {
      const thread_id = `suspended-${serial++}`
      const result = (await agent.invoke({ messages: [new HumanMessage("go")] }, { configurable: { thread_id } })) as { readonly __interrupt__?: ReadonlyArray<unknown> }
      if (result.__interrupt__ === undefined || result.__interrupt__.length === 0) throw new Error("suspended: the run was not interrupted")
      return thread_id
    }
  },
}
