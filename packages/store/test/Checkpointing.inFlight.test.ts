// A tool step's checkpoint in flight: sent at its AfterStep, awaited by the run's next
// store call (the next answer's journal entry, a tool's start, the run's end), so the
// next model call runs while the store commits it; no tool starts before the previous
// step's checkpoint and its own answer are acknowledged, and a refusal or a failure of
// that checkpoint surfaces at the next store call, one model call later.
import { AgentBuilder, Tool, UseDriver, UseHook, UseTools } from "@hookline/agent"
import { AgentState, Hook, HookContext, HookTriggers, Message, StopReason, StopSignal } from "@hookline/core"
import { ScriptedDriver } from "@hookline/testing"
import { Effect } from "effect"
import * as t from "io-ts"
import { describe, expect, it } from "vitest"
import { MemoryStore, RunStore, StoreError, UseCheckpoints } from "../src/index.js"

// `steps` steps of one tool call each, then an answer; each model call is logged.
const model = (steps: number, log: Array<string>, onCall?: (step: number) => void) =>
  ScriptedDriver.make([
    ScriptedDriver.respond((request) => {
      const step = request.messages.toArray().filter((m) => m.role === "assistant").length
      log.push(`model:${step}`)
      onCall?.(step)
      if (step >= steps) return ScriptedDriver.text("done")
      return ScriptedDriver.toolCalls([{ id: `s${step}`, name: "echo", arguments: { n: step } }])
    }),
  ], { repeatLast: true })

const echoTool = (log: Array<string>) =>
  Tool.make({
    name: "echo",
    parameters: t.type({ n: t.number }),
    execute: ({ n }, context) => {
      log.push(`tool:${context.toolCall.id}`)
      return n
    },
  })

// A MemoryStore seen through its Effects (a store that waits, as the SQL stores do), whose
// commits and journal writes are logged when sent and when acknowledged; `gate(seq)` may
// hold a commit until a promise settles.
const logged = (inner: RunStore.RunStore, log: Array<string>, gate?: (seq: number) => Promise<void> | undefined): RunStore.RunStore => ({
  ...inner,
  commit: (c) =>
    Effect.suspend(() => {
      log.push(`sent:${c.seq}`)
      const held = gate?.(c.seq)
      const commit = Effect.tap(inner.commit(c), () => Effect.sync(() => void log.push(`acked:${c.seq}`)))
      return held === undefined ? commit : Effect.andThen(Effect.promise(() => held), commit)
    }),
  journalPut: (runId, key, body) =>
    Effect.tap(inner.journalPut(runId, key, body), () => Effect.sync(() => void log.push(`journal:${key.split(":")[0]}`))),
})

// A gate the model's call of `step` opens; `fallback` opens it too after 20 s, so a loop
// that waits for the commit before that call fails its assertions instead of hanging.
const gateOpenedBy = (step: number) => {
  let open: () => void = () => {}
  const opened = new Promise<void>((resolve) => (open = resolve))
  const fallback = setTimeout(open, 20_000)
  return {
    opened,
    onCall: (s: number) => {
      if (s === step) open()
    },
    done: () => clearTimeout(fallback),
  }
}

const enough = StopReason.custom({ name: "Enough", priority: 100, kind: "hard" })

describe("UseCheckpoints, a step's checkpoint in flight", () => {
  it("calls the model while the step's checkpoint is in flight; the answer's entry and the tool wait for it; the run resolves after every commit", async () => {
    const seen: Array<string> = []
    const gate = gateOpenedBy(1)
    // The first tool step's checkpoint (seq 2) is held until the model is called again.
    const store = logged(MemoryStore.make(), seen, (seq) => (seq === 2 ? gate.opened : undefined))
    const agent = AgentBuilder.make(UseDriver(model(2, seen, gate.onCall)), UseTools([echoTool(seen)]), UseCheckpoints(store))
    const final = await agent.run(AgentState.make({ id: "in-flight", messages: [Message.user("go")] })).finally(gate.done)
    const log = [...seen]
    expect(final.execution.status).toBe("completed")
    const at = (entry: string) => log.indexOf(entry)
    // The step's checkpoint left at its AfterStep, before the next model call, and was
    // acknowledged after it.
    expect(at("sent:2")).toBeLessThan(at("model:1"))
    expect(at("model:1")).toBeLessThan(at("acked:2"))
    // The next answer's journal entry was written after that acknowledgement, and its tool
    // started after both.
    expect(log.slice(at("acked:2"), at("tool:s1") + 1)).toEqual(["acked:2", "journal:inference", "tool:s1"])
    // When the run resolved, every commit sent had been acknowledged.
    const sent = log.filter((e) => e.startsWith("sent:")).map((e) => e.slice(5))
    expect(log.filter((e) => e.startsWith("acked:")).map((e) => e.slice(6))).toEqual(sent)
    // Everything acknowledged is stored, and the store holds the run as it ended.
    expect((await RunStore.load(store, final.id))?.state).toEqual(final)
  }, 60_000)

  it("with every: \"step\", starts no tool before the previous step's checkpoint is acknowledged", async () => {
    const log: Array<string> = []
    const gate = gateOpenedBy(1)
    const store = logged(MemoryStore.make(), log, (seq) => (seq === 2 ? gate.opened : undefined))
    const agent = AgentBuilder.make(UseDriver(model(2, log, gate.onCall)), UseTools([echoTool(log)]), UseCheckpoints(store, { every: "step" }))
    const final = await agent.run(AgentState.make({ id: "in-flight-step", messages: [Message.user("go")] })).finally(gate.done)
    expect(final.execution.status).toBe("completed")
    expect(log.indexOf("model:1")).toBeLessThan(log.indexOf("acked:2"))
    expect(log.indexOf("acked:2")).toBeLessThan(log.indexOf("tool:s1"))
    expect((await RunStore.load(store, final.id))?.state).toEqual(final)
  }, 60_000)

  it("ends an aborted run only after the checkpoint in flight is acknowledged, and stores its end after it", async () => {
    const seen: Array<string> = []
    const abort = new AbortController()
    let open: () => void = () => {}
    const opened = new Promise<void>((resolve) => (open = resolve))
    const store = logged(MemoryStore.make(), seen, (seq) => (seq === 2 ? opened : undefined))
    // The second model call aborts the run while the first step's checkpoint is in
    // flight; that checkpoint is acknowledged a moment later.
    const agent = AgentBuilder.make(
      UseDriver(model(3, seen, (step) => {
        if (step !== 1) return
        abort.abort()
        setTimeout(open, 10)
      })),
      UseTools([echoTool(seen)]),
      UseCheckpoints(store),
    )
    const final = await agent.run(AgentState.make({ id: "in-flight-abort", messages: [Message.user("go")] }), { signal: abort.signal })
    const log = [...seen]
    expect(final.execution.status).toBe("stopped")
    expect(log.indexOf("acked:2")).toBeGreaterThan(log.indexOf("model:1"))
    expect(log.filter((e) => e.startsWith("acked:"))).toEqual(log.filter((e) => e.startsWith("sent:")).map((e) => `acked:${e.slice(5)}`))
    expect((await RunStore.load(store, final.id))?.state).toEqual(final)
  })

  it.each([
    ["a conflict", (runId: string) => StoreError.conflict(runId, 1, 2), "checkpoint conflict"],
    ["a store failure", () => StoreError.storeFailed("commit", new Error("the store is unreachable")), "the store is unreachable"],
  ] as const)("surfaces %s of the step's checkpoint at the next write: one model call more, none of its tools, its answer not journaled, the run fails naming it", async (_, error, says) => {
    const log: Array<string> = []
    const inner = MemoryStore.make()
    const store: RunStore.RunStore = { ...inner, commit: (c) => (c.seq === 2 ? Effect.fail(error(c.runId)) : inner.commit(c)) }
    const agent = AgentBuilder.make(UseDriver(model(3, log)), UseTools([echoTool(log)]), UseCheckpoints(store))
    const final = await agent.run(AgentState.make({ id: "in-flight-refused", messages: [Message.user("go")] }))
    expect(log).toEqual(["model:0", "tool:s0", "model:1"])
    expect(final.execution.status).toBe("failed")
    const failed = final.execution.errors.find((e) => e._tag === "HookFailed")
    expect(failed?._tag === "HookFailed" ? [failed.hook, failed.message.includes(says)] : undefined).toEqual(["store:journal_inference", true])
    // What was acknowledged stays: the first checkpoint, the first answer's entry and the
    // first step's result (written at the run's end); the second answer, which came only
    // because the step did not wait, is not journaled.
    const stored = await RunStore.load(inner, final.id)
    expect(stored?.state.execution.steps.length ?? 0).toBe(0)
    const journaled = (key: string) => Effect.runPromise(inner.journalGet(final.id, key))
    const startedAt = final.execution.startedAt ?? 0
    expect(await journaled(`inference:${startedAt}:0`)).toBeDefined()
    expect(await journaled(`tool:${startedAt}:s0`)).toBeDefined()
    expect(await journaled(`inference:${startedAt}:1`)).toBeUndefined()
  })

  it("ends a run stopped with the conflict when the run's end is the first write after the refused checkpoint", async () => {
    const log: Array<string> = []
    const inner = MemoryStore.make()
    const store: RunStore.RunStore = { ...inner, commit: (c) => (c.seq === 2 ? Effect.fail(StoreError.conflict(c.runId, 1, 2)) : inner.commit(c)) }
    // A BeforeStep hook stops the run before its second model call: nothing is written
    // between the first step's AfterStep and the run's end.
    const stopAtSecond = UseHook(
      Hook.effect((ctx) => Effect.succeed(ctx.state.execution.steps.length === 1 ? HookContext.withStopSignal(ctx, StopSignal.make(enough, "enough", "test")) : ctx)),
      { triggers: HookTriggers.of("BeforeStep"), name: "test:stop" },
    )
    const agent = AgentBuilder.make(UseDriver(model(3, log)), UseTools([echoTool(log)]), stopAtSecond, UseCheckpoints(store))
    const final = await agent.run(AgentState.make({ id: "in-flight-end", messages: [Message.user("go")] }))
    expect(log).toEqual(["model:0", "tool:s0"])
    expect(final.execution.status).toBe("stopped")
    expect(final.execution.stopSignals.map((s) => s.reason)).toEqual(["Enough", "CheckpointConflict"])
  })
})
