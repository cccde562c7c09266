import { AgentBuilder, Decision, Tool, UseDriver, UseHook, UseTools } from "@hookline/agent"
import { AgentState, HookContext, HookTriggers, Message } from "@hookline/core"
import { ScriptedDriver } from "@hookline/testing"
import { Effect } from "effect"
import * as t from "io-ts"
import { describe, expect, it } from "vitest"
import { Checkpoint, Envelope, MemoryStore, RunStore, StoreError, UseCheckpoints } from "../src/index.js"

const traceparent = (n: number) => `00-${n.toString(16).padStart(32, "0")}-${"ab".repeat(8)}-01`

const lookup = Tool.make({ name: "lookup", parameters: t.type({ q: t.string }), execute: ({ q }) => q })
const refund = Tool.make({ name: "refund", parameters: t.type({ amount: t.number }), execute: ({ amount }) => amount })

// Its call c1 waits for a decision: the run suspends, and a resume goes on.
const agentWith = (store: RunStore.RunStore, envelope: UseCheckpointsEnvelope) =>
  AgentBuilder.make(
    UseDriver(ScriptedDriver.make([
      ScriptedDriver.respond((request) =>
        request.messages.toArray().some((m) => m.role === "tool")
          ? ScriptedDriver.text("done")
          : ScriptedDriver.toolCalls([{ id: "c1", name: "lookup", arguments: { q: "x" } }])
      ),
    ], { repeatLast: true })),
    UseTools([lookup, refund]),
    UseHook((ctx) => (ctx.toolCall?.id === "c1" ? HookContext.suspend(ctx, "check", {}) : ctx), { triggers: HookTriggers.beforeToolUse, name: "test:approval" }),
    UseCheckpoints(store, { envelope }),
  )
type UseCheckpointsEnvelope = Parameters<typeof UseCheckpoints>[1] extends infer O ? O extends { readonly envelope?: infer E } ? E : never : never

describe("Envelope", () => {
  describe("toolSetOf", () => {
    it("sorts the tools by name and hashes each JSON Schema whatever its key order", async () => {
      const set = await Envelope.toolSetOf([refund, lookup])
      expect(set.tools.map((tool) => tool.name)).toEqual(["lookup", "refund"])
      expect(set.tools.every((tool) => /^sha256:[0-9a-f]{64}$/.test(tool.schema))).toBe(true)
      const reordered = await Envelope.toolSetOf([
        { name: "lookup", jsonSchema: Object.fromEntries(Object.entries(lookup.jsonSchema).reverse()) },
        refund,
      ])
      expect(Envelope.sameToolSet(set, reordered)).toBe(true)
      const changed = await Envelope.toolSetOf([lookup, { name: "refund", jsonSchema: { type: "object", properties: { amount: { type: "string" } } } }])
      expect(Envelope.sameToolSet(set, changed)).toBe(false)
    })
  })

  describe("UseCheckpoints({ envelope })", () => {
    it("stores the agent's name, tool set and trace context beside the state, not in its metadata", async () => {
      const store = MemoryStore.make()
      const toolSet = await Envelope.toolSetOf([lookup, refund])
      const envelope = { agent: "refunds", toolSet, traceContext: { traceparent: traceparent(1), tracestate: "vendor=1" } }
      const final = await agentWith(store, envelope).run(AgentState.make({ id: "env-1", messages: [Message.user("hi")] }))
      expect(final.execution.status).toBe("suspended")
      const saved = await RunStore.load(store, "env-1")
      expect(saved?.envelope).toEqual(envelope)
      expect(saved?.state).toEqual(final)
      expect(JSON.stringify(final.metadata)).not.toContain("refunds")
    })

    it("asks a function at each checkpoint and keeps the fields it leaves out", async () => {
      const store = MemoryStore.make()
      await agentWith(store, { agent: "refunds", traceContext: { traceparent: traceparent(1) } }).run(
        AgentState.make({ id: "env-2", messages: [Message.user("hi")] }),
      )
      // A resumed run in another process: its own trace context, the agent name kept.
      const resumed = await agentWith(store, () => ({ traceContext: { traceparent: traceparent(2) } })).resume("env-2", [Decision.approve("c1")])
      expect(resumed.execution.status).toBe("completed")
      const saved = await RunStore.load(store, "env-2")
      expect(saved?.envelope).toEqual({ agent: "refunds", traceContext: { traceparent: traceparent(2) } })
    })

    it("refuses a bad fixed envelope when the agent is built, naming the field", () => {
      expect(() => UseCheckpoints(MemoryStore.make(), { envelope: { traceContext: { traceparent: "not-a-traceparent" } } })).toThrow(
        /envelope\.traceContext\.traceparent/,
      )
      expect(() => UseCheckpoints(MemoryStore.make(), { envelope: { agent: "x".repeat(Envelope.bounds.agentName + 1) } })).toThrow(/envelope\.agent/)
    })

    it("refuses a checkpoint whose envelope is past its bounds: CheckpointRefused naming the field, nothing written", async () => {
      const store = MemoryStore.make()
      const first = await RunStore.save(store, AgentState.make({ id: "env-3" }))
      const error = await Effect.runPromise(
        Effect.flip(RunStore.saveEffect(store, first.state, first, 1, { traceContext: { traceparent: traceparent(0) } })),
      )
      expect(error).toBeInstanceOf(StoreError.CheckpointRefused)
      expect(error).toMatchObject({ path: "envelope.traceContext.traceparent", seq: 2 })
      expect(await Effect.runPromise(store.head("env-3"))).toBe(1)
    })
  })

  describe("a stored envelope", () => {
    it("is decoded when the run loads: one past its bounds is a DecodeFailed naming its path", () => {
      const body = (envelope: unknown) => JSON.stringify({ v: 2, id: "run-1", envelope })
      const tooMany = { toolSet: { tools: Array.from({ length: Envelope.bounds.tools + 1 }, (_, i) => ({ name: `t${String(i).padStart(5, "0")}`, schema: `sha256:${"0".repeat(64)}` })) } }
      expect(Checkpoint.restore("run-1", [{ seq: 1, body: body(tooMany) }])).toMatchObject({
        _tag: "Failure",
        failure: { _tag: "DecodeFailed", path: "checkpoints[0].envelope.toolSet.tools" },
      })
      expect(Checkpoint.restore("run-1", [{ seq: 1, body: body({ agent: 5 }) }])).toMatchObject({
        failure: { path: "checkpoints[0].envelope.agent" },
      })
    })

    it("is empty for a run stored at format version 1, which loads migrated", () => {
      const v1 = JSON.stringify({ v: 1, id: "run-1", systemPrompt: "old" })
      const v2 = JSON.stringify({ v: 2, id: "run-1", envelope: { agent: "a" } })
      const restored = Checkpoint.restore("run-1", [{ seq: 1, body: v1 }])
      expect(restored).toMatchObject({ _tag: "Success", success: { envelope: {} } })
      expect(restored._tag === "Success" && restored.success?.state.context.systemPrompt).toBe("old")
      expect(Checkpoint.restore("run-1", [{ seq: 1, body: v1 }, { seq: 2, body: v2 }])).toMatchObject({ success: { envelope: { agent: "a" } } })
      expect(Checkpoint.migrate({ v: 1, id: "run-1" })).toEqual({ v: 2, id: "run-1" })
    })
  })
})
