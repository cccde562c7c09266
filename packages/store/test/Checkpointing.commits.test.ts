// A durable step at two commits: the model's answer before its tools run, then the
// step's results with its checkpoint; and no tool starts while a result of its run is
// not durable.
import { AgentBuilder, Tool, UseDriver, UseTools } from "@hookline/agent"
import { AgentState, Message } from "@hookline/core"
import { ScriptedDriver } from "@hookline/testing"
import { Effect } from "effect"
import * as t from "io-ts"
import { describe, expect, it } from "vitest"
import { MemoryStore, RunStore, UseCheckpoints } from "../src/index.js"

// What reached the store, in order: "journal:<key>" and "commit:<seq>".
const recorded = (inner: RunStore.RunStore, writes: Array<string>): RunStore.RunStore => ({
  ...inner,
  commit: (c) => Effect.tap(inner.commit(c), () => Effect.sync(() => void writes.push(`commit:${c.seq}`))),
  create: (c, replace) => Effect.tap(inner.create(c, replace), () => Effect.sync(() => void writes.push(`commit:${c.seq}`))),
  journalPut: (runId, key, body) => Effect.tap(inner.journalPut(runId, key, body), () => Effect.sync(() => void writes.push(`journal:${key.split(":")[0]}`))),
})

// `calls` tool calls per step for `steps` steps, then an answer.
const model = (steps: number, calls: number) =>
  ScriptedDriver.make([
    ScriptedDriver.respond((request) => {
      const step = request.messages.toArray().filter((m) => m.role === "assistant").length
      if (step >= steps) return ScriptedDriver.text("done")
      return ScriptedDriver.toolCalls(Array.from({ length: calls }, (_, j) => ({ id: `s${step}-c${j}`, name: "echo", arguments: { n: j } })))
    }),
  ], { repeatLast: true })

describe("UseCheckpoints commits", () => {
  it("writes a tool step in two commits (the answer, then the checkpoint) and a final answer in one", async () => {
    const writes: Array<string> = []
    const echo = Tool.make({ name: "echo", parameters: t.type({ n: t.number }), execute: ({ n }) => n })
    const agent = AgentBuilder.make(UseDriver(model(3, 1)), UseTools([echo]), UseCheckpoints(recorded(MemoryStore.make(), writes)))
    const final = await agent.run(AgentState.make({ id: "two-commits", messages: [Message.user("go")] }))
    expect(final.execution.status).toBe("completed")
    expect(writes).toEqual([
      "commit:1", // the run's first checkpoint
      ...[2, 3, 4].flatMap((seq) => ["journal:inference", `commit:${seq}`]),
      "commit:5", // the final answer's step
      "commit:6", // the run's end
    ])
  })

  it("makes each result durable before the next tool of the run starts, and the last one with its step's checkpoint", async () => {
    const store = MemoryStore.make()
    const seen: Array<{ readonly call: string; readonly durable: ReadonlyArray<string> }> = []
    const ran: Array<string> = []
    // At each tool's start: which earlier calls' results the store holds (journal or checkpoint).
    const durable = async (runId: string) => {
      const saved = await RunStore.load(store, runId)
      const startedAt = saved?.state.execution.startedAt ?? 0
      const inCheckpoint = new Set(saved?.state.context.messages.toArray().flatMap((m) => (m.role === "tool" ? [m.toolCallId] : [])) ?? [])
      const out: Array<string> = []
      for (const id of ran) {
        const journaled = await Effect.runPromise(store.journalGet(runId, `tool:${startedAt}:${id}`))
        if (journaled !== undefined || inCheckpoint.has(id)) out.push(id)
      }
      return out
    }
    const echo = Tool.make({
      name: "echo",
      parameters: t.type({ n: t.number }),
      execute: async ({ n }, context) => {
        seen.push({ call: context.toolCall.id, durable: await durable(context.state.id) })
        ran.push(context.toolCall.id)
        return n
      },
    })
    const agent = AgentBuilder.make(UseDriver(model(2, 3)), UseTools([echo]), UseCheckpoints(store))
    const final = await agent.run(AgentState.make({ id: "durable-first", messages: [Message.user("go")] }))
    expect(final.execution.status).toBe("completed")
    expect(seen.map((s) => s.call)).toEqual(["s0-c0", "s0-c1", "s0-c2", "s1-c0", "s1-c1", "s1-c2"])
    for (const [i, s] of seen.entries()) expect(s.durable, `before ${s.call}`).toEqual(ran.slice(0, i))
  })
})
