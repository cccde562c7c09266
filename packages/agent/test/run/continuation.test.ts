// A conversation that goes on, as pure functions (run/continuation.ts, issue 26).
import { AgentError, AgentState, Message, Step, StopReason, StopSignal, Usage } from "@hookline/core"
import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { startKeyed } from "../../src/Agent.js"
import * as Continuation from "../../src/run/continuation.js"

const ended = (status: AgentState.ExecutionStatus): AgentState => {
  let state = AgentState.make({ id: "run", messages: [Message.user("hi"), Message.assistant("hello")] })
  state = AgentState.withStatus(state, "running", 10)
  state = AgentState.appendStep(state, Step.make({ index: 0, startedAt: 10, completedAt: 20 }))
  state = AgentState.withExecution(state, { ...state.execution, usage: Usage.make(7, 3) })
  state = AgentState.addError(state, AgentError.inferenceFailed("flaky"))
  state = AgentState.withStopSignal(state, StopSignal.make(StopReason.StepsLimitReached, "Step limit reached: 1/1", "guard:steps_limit"))
  state = AgentState.withExecutionMetadata(state, { counter: 1 })
  state = AgentState.withStopReason(state, StopReason.StepsLimitReached)
  return AgentState.withStatus(state, status, 30)
}

const checked = (message: unknown, key?: unknown): Continuation.Checked => {
  const result = Continuation.check(message, key)
  if (Result.isFailure(result)) throw new Error(result.failure.message)
  return result.success
}

describe("Continuation.check", () => {
  it.each([
    { name: "a string", message: "and then?", key: undefined, content: "and then?" },
    { name: "a user message", message: { role: "user", content: "and then?" }, key: "m-2", content: "and then?" },
    { name: "an empty string", message: "", key: undefined, content: "" },
    { name: "content at the bound", message: "x".repeat(Continuation.maxContent), key: "k".repeat(Continuation.maxKey), content: "x".repeat(Continuation.maxContent) },
  ])("takes $name", ({ message, key, content }) => {
    const result = checked(message, key)
    expect(result.message).toEqual({ role: "user", content })
    expect(Object.isFrozen(result.message)).toBe(true)
    expect(result.key).toBe(key)
  })

  it.each([
    { name: "a number", message: 42, key: undefined, path: "message" },
    { name: "null", message: null, key: undefined, path: "message" },
    { name: "an array", message: ["hi"], key: undefined, path: "message" },
    { name: "an assistant message", message: { role: "assistant", content: "x", toolCalls: [] }, key: undefined, path: "message.role" },
    { name: "a message with no role", message: { content: "x" }, key: undefined, path: "message.role" },
    { name: "content that is not a string", message: { role: "user", content: { text: "x" } }, key: undefined, path: "message.content" },
    { name: "content over the bound", message: "x".repeat(Continuation.maxContent + 1), key: undefined, path: "message" },
    { name: "a user message with content over the bound", message: { role: "user", content: "x".repeat(Continuation.maxContent + 1) }, key: undefined, path: "message.content" },
    { name: "a key that is not a string", message: "hi", key: 7, path: "key" },
    { name: "an empty key", message: "hi", key: "", path: "key" },
    { name: "a key over the bound", message: "hi", key: "k".repeat(Continuation.maxKey + 1), path: "key" },
    {
      name: "a message whose getter throws",
      message: Object.defineProperty({ role: "user" }, "content", { get: () => { throw new Error("boom") } }),
      key: undefined,
      path: "message.content",
    },
  ])("refuses $name, naming $path", ({ message, key, path }) => {
    const result = Continuation.check(message, key)
    expect(Result.isFailure(result)).toBe(true)
    if (Result.isFailure(result)) {
      expect(result.failure._tag).toBe("ContinuationInvalid")
      expect(result.failure.path).toBe(path)
      expect(result.failure.message.startsWith(`${path}: `)).toBe(true)
      // Bounded: never the whole value.
      expect(result.failure.message.length).toBeLessThan(200)
    }
  })
})

describe("Continuation.plan", () => {
  it.each(["completed", "stopped", "failed"] as const)("a %s run goes on: the message appended, running, steps, usage and errors kept", (status) => {
    const state = ended(status)
    const result = Continuation.plan(state, checked("and then?"))
    expect(Result.isSuccess(result)).toBe(true)
    if (!Result.isSuccess(result)) return
    expect(result.success._tag).toBe("Run")
    const next = result.success.state
    expect(next.context.messages.toArray()).toEqual([...state.context.messages.toArray(), { role: "user", content: "and then?" }])
    expect(next.execution.status).toBe("running")
    expect(next.execution.steps).toBe(state.execution.steps)
    expect(next.execution.usage).toBe(state.execution.usage)
    expect(next.execution.errors).toBe(state.execution.errors)
    expect(next.execution.metadata).toBe(state.execution.metadata)
    expect(next.execution.stopSignals).toEqual([])
    expect(next.execution.stopReason).toBeUndefined()
    expect(next.execution.startedAt).toBeUndefined()
    expect(next.execution.completedAt).toBeUndefined()
    expect(next.execution.runningSince).toBeUndefined()
    expect(next.execution.continuationRequested).toBe(false)
    expect(next.execution.pendingCalls).toBeUndefined()
    expect(next.execution.suspendedStep).toBeUndefined()
    // The stored state is not changed.
    expect(state.execution.status).toBe(status)
    expect(state.context.messages.length).toBe(2)
  })

  it.each(["running", "suspended", "pending"] as const)("a %s run is refused, naming its status", (status) => {
    const state = AgentState.withStatus(AgentState.make({ id: "run", messages: [Message.user("hi")] }), status, 1)
    const result = Continuation.plan(state, checked("and then?"))
    expect(Result.isFailure(result)).toBe(true)
    if (Result.isFailure(result)) {
      expect(result.failure._tag).toBe("ContinuationRefused")
      expect(result.failure.status).toBe(status)
      expect(result.failure.runId).toBe("run")
      expect(result.failure.message).toContain(status)
    }
  })

  it("keeps the key with the run, and a repeat of it is Done on a finished run and Resume on a running one", () => {
    const first = Continuation.plan(ended("completed"), checked("and then?", "m-2"))
    if (!Result.isSuccess(first)) throw new Error("refused")
    const taken = first.success.state
    expect(Continuation.keysOf(taken)).toEqual(["m-2"])
    // Still running (a crash, or a live process): the repeat goes on with the run as stored.
    const running = Continuation.plan(taken, checked("and then?", "m-2"))
    expect(Result.isSuccess(running) && running.success).toEqual({ _tag: "Resume", state: taken })
    // Finished: a no-op, whatever the message says now.
    const done = AgentState.withStatus(taken, "completed", 40)
    const repeat = Continuation.plan(done, checked("something else", "m-2"))
    expect(Result.isSuccess(repeat) && repeat.success).toEqual({ _tag: "Done", state: done })
    // Suspended in the turn that key started: still the same turn, a no-op.
    const suspended = AgentState.withStatus(taken, "suspended", 40)
    const waiting = Continuation.plan(suspended, checked("and then?", "m-2"))
    expect(Result.isSuccess(waiting) && waiting.success._tag).toBe("Done")
    // A new key is a new turn.
    const next = Continuation.plan(done, checked("more", "m-3"))
    expect(Result.isSuccess(next) && Continuation.keysOf(next.success.state)).toEqual(["m-2", "m-3"])
  })

  it("keeps only the latest keys", () => {
    let state = ended("completed")
    for (let i = 0; i < Continuation.keptKeys + 3; i++) {
      const result = Continuation.plan(state, checked(`m${i}`, `k${i}`))
      if (!Result.isSuccess(result)) throw new Error("refused")
      state = AgentState.withStatus(result.success.state, "completed", i)
    }
    const keys = Continuation.keysOf(state)
    expect(keys.length).toBe(Continuation.keptKeys)
    expect(keys[0]).toBe("k3")
    expect(keys[keys.length - 1]).toBe(`k${Continuation.keptKeys + 2}`)
  })

  it("reads only string keys from a stored run's metadata", () => {
    const state = AgentState.withMetadata(ended("completed"), { [Continuation.keysField]: ["a", 1, null, "b"] })
    expect(Continuation.keysOf(state)).toEqual(["a", "b"])
    expect(Continuation.keysOf(AgentState.withMetadata(ended("completed"), { [Continuation.keysField]: "a" }))).toEqual([])
  })

  it("startKeyed: a run started with a key takes a continue with the same key as a repeat", () => {
    const started = startKeyed(AgentState.make({ id: "run", messages: [Message.user("hi")] }), "m-1")
    if (!Result.isSuccess(started)) throw new Error("refused")
    expect(Continuation.keysOf(started.success)).toEqual(["m-1"])
    const done = AgentState.withStatus(started.success, "completed", 40)
    expect(Result.isSuccess(Continuation.plan(done, checked("hi", "m-1"))) && Continuation.plan(done, checked("hi", "m-1"))).toMatchObject({ success: { _tag: "Done" } })
    const bad = startKeyed(AgentState.make({ id: "run" }), "")
    expect(Result.isFailure(bad) && bad.failure).toMatchObject({ _tag: "ContinuationInvalid", path: "key" })
  })
})
