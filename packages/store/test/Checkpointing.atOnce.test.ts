// The checkpoint and journal hooks answer at once on the in-memory store (an Exit the
// loop reads without the runtime), and through the store's Effects on any other store,
// a wrapped MemoryStore included; both store the same (issue 27, branch hooksync).
import { AgentBuilder, Tool, UseDriver, UseTools } from "@hookline/agent"
import { AgentState, HookContext, HookStack, InferenceRequest, InferenceResponse, Message, ToolCall } from "@hookline/core"
import { ScriptedDriver } from "@hookline/testing"
import { Effect, Exit } from "effect"
import * as t from "io-ts"
import { describe, expect, it } from "vitest"
import { MemoryStore, RunStore, UseCheckpoints } from "../src/index.js"

const echo = Tool.make({ name: "echo", parameters: t.type({ n: t.number }), execute: ({ n }) => n })

const stackOf = (store: RunStore.RunStore): HookStack.HookStack<never> => {
  const agent = AgentBuilder.make(UseDriver(ScriptedDriver.make([ScriptedDriver.text("done")])), UseTools([echo]), UseCheckpoints(store))
  return agent.loop.interceptor as HookStack.HookStack<never>
}

// A step's dispatches after BeforeExecution (run as an Effect: it takes the lease):
// whether each answered at once, and what the store holds after them.
const step = async (store: RunStore.RunStore, id: string) => {
  const stack = stackOf(store)
  const env = { sink: undefined, now: () => 1 }
  const started = AgentState.make({ id, messages: [Message.user("go")] })
  await Effect.runPromise(stack.intercept(HookContext.make({ trigger: "BeforeExecution", state: started, createdAt: 1 })))
  const call = ToolCall.make({ id: "c1", name: "echo", arguments: { n: 1 } })
  const request = InferenceRequest.make({ messages: started.context.messages })
  const response = InferenceResponse.make({ text: "", toolCalls: [call] })
  const answered = AgentState.appendMessage(started, Message.assistant("", [call]))
  const contexts = [
    HookContext.make({ trigger: "BeforeInference", state: started, createdAt: 1, request }),
    HookContext.make({ trigger: "AfterInference", state: started, createdAt: 1, request, response }),
    HookContext.make({ trigger: "BeforeToolUse", state: answered, createdAt: 1, toolCall: call }),
    HookContext.make({ trigger: "AfterStep", state: AgentState.appendMessage(answered, Message.tool({ toolCallId: "c1", toolName: "echo", content: "1" })), createdAt: 1 }),
  ]
  const atOnce: Array<boolean> = []
  for (const ctx of contexts) {
    // Called in a fiber, as the loop calls it (the lease's check reads the fiber's clock).
    const out = Effect.runSync(Effect.sync(() => stack.interceptNow(ctx, env)))
    atOnce.push(!Effect.isEffect(out))
    if (Effect.isEffect(out)) {
      const exit = await Effect.runPromiseExit(out)
      expect(exit).toMatchObject({ _tag: "Success" })
    }
  }
  const saved = await RunStore.load(store, id)
  return { atOnce, messages: saved?.state.context.messages.length, seq: saved?.seq, stack, env, last: contexts.at(-1)?.state as AgentState }
}

// The run's end (AfterExecution) after that step: whether it answered at once, what is
// stored after it, and whether the lease was released.
const end = async (data: MemoryStore.Data, wrap: boolean, id: string) => {
  const store = MemoryStore.make(data)
  const { stack, env, last } = await step(wrap ? { ...store } : store, id)
  const ended = AgentState.withStatus(last, "completed")
  const out = Effect.runSync(Effect.sync(() => stack.interceptNow(HookContext.make({ trigger: "AfterExecution", state: ended, createdAt: 1 }), env)))
  const atOnce = !Effect.isEffect(out)
  if (Effect.isEffect(out)) expect(await Effect.runPromiseExit(out)).toMatchObject({ _tag: "Success" })
  const saved = await RunStore.load(store, id)
  return { atOnce, status: saved?.state.execution.status, seq: saved?.seq, leased: data.leases.has(id) }
}

describe("UseCheckpoints", () => {
  describe("on MemoryStore", () => {
    it("answers at once at every trigger of a tool step, and stores what the Effect path stores", async () => {
      const memory = await step(MemoryStore.make(), "at-once")
      const wrapped = await step({ ...MemoryStore.make() }, "wrapped")
      expect(memory.atOnce).toEqual([true, true, true, true])
      // A store built around the in-memory one is not it: its Effects run.
      expect(wrapped.atOnce).toEqual([true, false, true, false])
      expect(memory.messages).toBe(3)
      expect({ messages: memory.messages, seq: memory.seq }).toEqual({ messages: wrapped.messages, seq: wrapped.seq })
    })

    it("ends a run at once (its last checkpoint, the lease released), as the Effect path ends it", async () => {
      const data = MemoryStore.emptyData()
      const memory = await end(data, false, "end-at-once")
      const wrapped = await end(MemoryStore.emptyData(), true, "end-wrapped")
      expect(memory.atOnce).toBe(true)
      expect(wrapped.atOnce).toBe(false)
      expect(memory).toMatchObject({ status: "completed", leased: false })
      expect({ status: memory.status, seq: memory.seq, leased: memory.leased }).toEqual({ status: wrapped.status, seq: wrapped.seq, leased: wrapped.leased })
      // Another run of the id takes the lease at once: nothing of the ended run holds it.
      const taken = await Effect.runPromise(Effect.result(MemoryStore.make(data).takeLease({ runId: "end-at-once", owner: "next", expiresAt: 10 }, 1)))
      expect(taken).toMatchObject({ _tag: "Success" })
    })
  })
})
