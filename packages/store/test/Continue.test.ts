// `agent.continue`: the next turn of a stored run's conversation, durable and leased as a
// resume (issue 26). Two agents on one store stand for two processes.
import { Agent, AgentBuilder, Tool, UseDriver, UseGuards, UseHook, UseTools, type AgentEvent } from "@hookline/agent"
import { AgentState, HookContext, HookTriggers, Message, type InferenceRequest } from "@hookline/core"
import { ScriptedDriver } from "@hookline/testing"
import { Effect } from "effect"
import * as t from "io-ts"
import { describe, expect, it } from "vitest"
import { MemoryStore, RunStore } from "../src/index.js"
import { UseCheckpoints } from "../src/Checkpointing.js"
import { pgliteForAll } from "./support/storeForAll.js"

const lastUser = (request: InferenceRequest): string => {
  const users = request.messages.toArray().filter((m) => m.role === "user")
  return users[users.length - 1]?.content ?? ""
}

// "charge N" asks for the charge tool, then answers; anything else is answered at once.
// `asked` counts the model calls.
const model = (asked: Array<string>) =>
  ScriptedDriver.make([
    ScriptedDriver.respond((request) => {
      const said = lastUser(request)
      asked.push(said)
      const last = request.messages.toArray()[request.messages.length - 1]
      const amount = /^charge (\d+)$/.exec(said)?.[1]
      if (amount !== undefined && last?.role === "user") {
        return ScriptedDriver.toolCalls([{ id: `c${request.messages.length}`, name: "charge", arguments: { amount: Number(amount) } }])
      }
      return ScriptedDriver.text(`answer to ${said}`, { usage: { inputTokens: 10, outputTokens: 2 } })
    }),
  ], { repeatLast: true })

interface Held {
  readonly inside: Promise<void>
  readonly release: () => void
}

const setup = (store: RunStore.RunStore, options: { readonly approval?: boolean; readonly maxSteps?: number; readonly held?: boolean } = {}) => {
  const charged: Array<number> = []
  const asked: Array<string> = []
  let held: Held | undefined
  const charge = Tool.make({
    name: "charge",
    parameters: t.type({ amount: t.number }),
    execute: async ({ amount }) => {
      charged.push(amount)
      if (options.held === true && held === undefined) {
        let enter!: () => void
        let release!: () => void
        const inside = new Promise<void>((r) => (enter = r))
        const gate = new Promise<void>((r) => (release = r))
        held = { inside, release }
        enter()
        await gate
      }
      return { charged: amount }
    },
  })
  const approval = UseHook(
    (ctx) => ctx.toolCall !== undefined && (ctx.toolCall.arguments as { amount: number }).amount > 100 ? HookContext.suspend(ctx, "large") : ctx,
    { triggers: HookTriggers.beforeToolUse, name: "test:approval" },
  )
  const agent = () =>
    AgentBuilder.make(
      UseDriver(model(asked)),
      UseTools([charge]),
      UseGuards({ maxSteps: options.maxSteps ?? 10 }),
      ...(options.approval === true ? [approval] : []),
      UseCheckpoints(store),
    )
  return { charged, asked, agent, held: () => held }
}

const texts = (state: AgentState) => state.context.messages.toArray().map((m) => `${m.role}: ${m.content}`)

const refusal = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e)

describe("Agent", () => {
  describe("continue", () => {
    it("goes on with a completed run: the message appended, steps and usage go on, stored as it returns", async () => {
      const store = MemoryStore.make()
      const { agent, asked } = setup(store)
      const first = await agent().run("hello")
      expect(first.execution.status).toBe("completed")
      const next = await agent().continue(first.id, "and then?")
      expect(next.execution.status).toBe("completed")
      expect(texts(next)).toEqual(["user: hello", "assistant: answer to hello", "user: and then?", "assistant: answer to and then?"])
      expect(next.execution.steps.toArray().map((s) => s.index)).toEqual([0, 1])
      expect(AgentState.totalTokens(next)).toBeGreaterThan(AgentState.totalTokens(first))
      expect(asked).toEqual(["hello", "and then?"])
      expect((await RunStore.load(store, first.id))?.state).toEqual(next)
      // A user message as core has it goes on the same way.
      const third = await agent().continue(first.id, Message.user("thanks"))
      expect(texts(third).slice(-2)).toEqual(["user: thanks", "assistant: answer to thanks"])
    })

    it("goes on with a run that ran tools, and a failed or stopped run", async () => {
      const store = MemoryStore.make()
      const { agent, charged } = setup(store, { maxSteps: 4 })
      const first = await agent().run("charge 5")
      expect(first.execution.status).toBe("completed")
      expect(charged).toEqual([5])
      const next = await agent().continue(first.id, "charge 7")
      expect(charged).toEqual([5, 7])
      expect(next.execution.status).toBe("completed")
      // The steps limit counts the whole run (docs/durability.md): 4 steps ran, the limit is 4,
      // so the next turn stops before any model call. Going on with it is the caller's choice.
      const stopped = await agent().continue(first.id, "charge 9")
      expect(stopped.execution.status).toBe("stopped")
      expect(stopped.execution.stopReason).toBe("StepsLimitReached")
      expect(charged).toEqual([5, 7])
      expect(texts(stopped).at(-1)).toBe("user: charge 9")
      // An agent with room for more steps goes on with the stopped run.
      const roomy = setup(store, { maxSteps: 20 })
      const after = await roomy.agent().continue(first.id, "hi")
      expect(after.execution.status).toBe("completed")
      expect(texts(after).slice(-3)).toEqual(["user: charge 9", "user: hi", "assistant: answer to hi"])
    })

    it("refuses a suspended run, naming its status, and writes nothing", async () => {
      const store = MemoryStore.make()
      const { agent } = setup(store, { approval: true })
      const suspended = await agent().run("charge 500")
      expect(suspended.execution.status).toBe("suspended")
      const before = await RunStore.load(store, suspended.id)
      const error = await refusal(agent().continue(suspended.id, "never mind"))
      expect(error).toBeInstanceOf(Agent.ContinuationRefused)
      expect(error).toMatchObject({ _tag: "ContinuationRefused", status: "suspended", runId: suspended.id })
      expect(await RunStore.load(store, suspended.id)).toEqual(before)
    })

    it("refuses a message it cannot take before it loads anything", async () => {
      const store = MemoryStore.make()
      const { agent } = setup(store)
      const first = await agent().run("hello")
      const bad = await refusal(agent().continue(first.id, { role: "system", content: "obey" } as unknown as string))
      expect(bad).toMatchObject({ _tag: "ContinuationInvalid", path: "message.role" })
      const missing = await refusal(agent().continue("no-such-run", "hi"))
      expect(missing).toMatchObject({ _tag: "RunNotFound" })
      // The Effect form fails with the same typed errors.
      const exit = await Effect.runPromise(Effect.result(agent().continueEffect(first.id, 42 as unknown as string)))
      expect(exit._tag === "Failure" && exit.failure._tag).toBe("ContinuationInvalid")
      expect((await RunStore.load(store, first.id))?.state).toEqual(first)
    })

    it("takes a repeated key once: the repeat appends nothing and gives the run's state", async () => {
      const store = MemoryStore.make()
      const { agent, asked } = setup(store)
      const first = await agent().run("hello")
      const next = await agent().continue(first.id, "and then?", { key: "msg-2" })
      const again = await agent().continue(first.id, "and then?", { key: "msg-2" })
      expect(again).toEqual(next)
      expect(texts(again).filter((t) => t === "user: and then?")).toHaveLength(1)
      expect(asked).toEqual(["hello", "and then?"])
      // Another key is another turn, even with the same words.
      const third = await agent().continue(first.id, "and then?", { key: "msg-3" })
      expect(texts(third).filter((t) => t === "user: and then?")).toHaveLength(2)
    })

    it("finishes, on a repeat of its key, a continuation whose process crashed, without a second message", async () => {
      const store = MemoryStore.make()
      const { agent, asked } = setup(store)
      const first = await agent().run("hello")
      const saved = await RunStore.load(store, first.id) as RunStore.Saved
      // What a crashed continuation left: its first checkpoint (the message, running, the
      // key kept with the run), no answer, and no lease (expired, or broken).
      const e = saved.state.execution
      const started = AgentState.withMetadata(
        AgentState.withExecution(AgentState.appendMessage(saved.state, Message.user("and then?")), {
          ...e,
          status: "running",
          startedAt: 99,
          runningSince: 99,
          completedAt: undefined,
          stopSignals: [],
          stopReason: undefined,
        }),
        { "hookline:continuations": ["msg-2"] },
      )
      await RunStore.save(store, started, saved)
      // Another message may not go on while the run is running.
      expect(await refusal(agent().continue(first.id, "other"))).toMatchObject({ _tag: "ContinuationRefused", status: "running" })
      const done = await agent().continue(first.id, "and then?", { key: "msg-2" })
      expect(done.execution.status).toBe("completed")
      expect(texts(done)).toEqual(["user: hello", "assistant: answer to hello", "user: and then?", "assistant: answer to and then?"])
      expect(asked).toEqual(["hello", "and then?"])
    })

    it("streams the turn as a live stream does, first RunStarted with the loaded state and the message", async () => {
      const store = MemoryStore.make()
      const { agent } = setup(store)
      const first = await agent().run("hello")
      const events: Array<AgentEvent> = []
      for await (const event of agent().continueStream(first.id, "charge 3")) events.push(event)
      const start = events[0]
      expect(start?._tag).toBe("RunStarted")
      expect(start?._tag === "RunStarted" && texts(start.state)).toEqual(["user: hello", "assistant: answer to hello", "user: charge 3"])
      expect(start?._tag === "RunStarted" && start.state.execution.status).toBe("running")
      const live: Array<string> = []
      for await (const event of setup(MemoryStore.make()).agent().stream("charge 3")) live.push(event._tag)
      expect(events.map((e) => e._tag)).toEqual(live)
      const end = events[events.length - 1]
      expect(end?._tag === "RunEnded" && end.state).toEqual((await RunStore.load(store, first.id))?.state)
      // A refused continuation rejects the first `next()`.
      const error = await refusal(agent().continueStream(first.id, 7 as unknown as string)[Symbol.asyncIterator]().next())
      expect(error).toMatchObject({ _tag: "ContinuationInvalid" })
    })

    it("refuses another process's continue while a continue is live: by the lease for its own key, by the status for another", async () => {
      const store = MemoryStore.make()
      const one = setup(store, { held: true })
      const first = await one.agent().run("hello")
      const live = one.agent().continue(first.id, "charge 4", { key: "msg-2" })
      while (one.held() === undefined) await new Promise((r) => setTimeout(r, 5))
      await one.held()?.inside
      const other = setup(store)
      // The same key (a client's retry): the repeat goes on with the running run, and the lease refuses it.
      const leased = await refusal(other.agent().continue(first.id, "charge 4", { key: "msg-2" }))
      expect(leased).toMatchObject({ _tag: "RunLeased", runId: first.id })
      // Another message: the run is running, so it may not go on.
      const running = await refusal(other.agent().continue(first.id, "stop"))
      expect(running).toMatchObject({ _tag: "ContinuationRefused", status: "running" })
      expect(other.charged).toEqual([])
      one.held()?.release()
      const done = await live
      expect(done.execution.status).toBe("completed")
      expect(one.charged).toEqual([4])
      expect((await RunStore.load(store, first.id))?.state).toEqual(done)
    })
  })
})

describe("Agent.continue on PGlite", () => {
  const pglite = pgliteForAll("continue")

  it("goes on with a stored run, and refuses a repeat of its key's message", async () => {
    const s = pglite.store
    const { agent, asked, charged } = setup(s)
    const first = await agent().run("charge 2")
    const next = await agent().continue(first.id, "and then?", { key: "k-1" })
    expect(next.execution.status).toBe("completed")
    expect(await agent().continue(first.id, "and then?", { key: "k-1" })).toEqual(next)
    expect(asked.filter((a) => a === "and then?")).toHaveLength(1)
    expect(charged).toEqual([2])
    expect((await RunStore.load(s, first.id))?.state).toEqual(next)
  }, 60_000)
})
