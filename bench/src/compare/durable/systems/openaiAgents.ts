/**
 * The OpenAI Agents SDK with a session: the comparison's agent (systems/openaiAgents.ts's
 * fake model, an `echo` tool, K = 0), run by a `Runner` with `session`: a `MemorySession`
 * (0.20's only local session; it has no SQLite one) made per run (untimed) with the H
 * history items, then `runner.run(agent, "go", { session })`. Bytes: the UTF-8 length of
 * the JSON of every item the run hands the session (`addItems`), counted at its door by a
 * counting subclass made only for the counting run (untimed); the timed runs get a plain
 * `MemorySession`, as a user would pass it.
 */
import { Agent, MemorySession, Runner, setTracingDisabled, tool, type AgentInputItem } from "@openai/agents"
import { readFileSync } from "node:fs"
import { z } from "zod"
import { seedOf, StepModel } from "../../systems/openaiAgents.js"
import { finalLength, modelCalled, toolCalled, type DurableSystem, type OpenedStore } from "../Durable.js"

setTracingDisabled(true)

/** A MemorySession that counts what it is handed (the counting run's only). */
class CountedSession extends MemorySession {
  bytes = 0
  override async addItems(items: Array<AgentInputItem>): Promise<void> {
    this.bytes += Buffer.byteLength(JSON.stringify(items))
    return super.addItems(items)
  }
}

const open: DurableSystem["open"] = async (store): Promise<OpenedStore> => {
  if (store !== "memory") throw new Error(`@openai/agents has no session ${JSON.stringify(store)} here`)
  return {
    saver: "MemorySession",
    bytesHow: "UTF-8 length of the JSON of every item handed to the session (addItems), counted in an untimed run on a counting subclass of MemorySession",
    close: async () => undefined,
    prepare: async (H, steps) => {
      const seed = seedOf(H)
      const history = seed.slice(0, -1)
      const echo = tool({
        name: "echo",
        description: "Echoes i",
        parameters: z.object({ i: z.number() }),
        execute: ({ i }) => {
          toolCalled()
          return i
        },
      })
      const agent = new Agent({ name: "bench", model: new StepModel(seed.length, steps, false, modelCalled), tools: [echo] })
      const runner = new Runner({ tracingDisabled: true })
      const sessions = new Map<string, MemorySession>()
      return {
        before: async (id, count) => {
          const options = { sessionId: id, initialItems: [...history] }
          sessions.set(id, count ? new CountedSession(options) : new MemorySession(options))
        },
        run: async (id) => {
          const session = sessions.get(id) as MemorySession
          const result = await runner.run(agent, "go", { session, maxTurns: steps })
          return typeof result.finalOutput === "string" ? result.finalOutput : ""
        },
        after: async (id, count) => {
          const session = sessions.get(id) as MemorySession
          sessions.delete(id)
          if (count) {
            const items = await session.getItems()
            if (items.length !== finalLength(H, steps)) throw new Error(`the session ${id} reads back with ${items.length} items, expected ${finalLength(H, steps)}`)
          }
          return count && session instanceof CountedSession ? session.bytes : 0
        },
      }
    },
  }
}

// The package's exports map has no "./package.json": read it beside bench/node_modules.
const version = (JSON.parse(readFileSync(new URL("../../../../node_modules/@openai/agents/package.json", import.meta.url), "utf8")) as { version: string }).version

export const system: DurableSystem = { name: "@openai/agents", version, open }
