import { pipe } from "effect/Function"
import { setAutoFreeze } from "immer"
import { describe, expect, it } from "vitest"
import {
  AgentError,
  AgentState,
  AppendLog,
  InferenceResponse,
  Message,
  Step,
  StopSignal,
  Usage,
} from "@hookline/core"
import { isDeepFrozen } from "./arbitraries.js"

const hi = Message.user("hi")
const hello = Message.assistant("hello")
const state = AgentState.make({
  id: "s1",
  systemPrompt: "be brief",
  messages: [hi, hello],
  contextMetadata: { topic: "greeting" },
  metadata: { team: "a", limits: { soft: 1 } },
})
const stop = StopSignal.make("StopRequested", "enough", "hook:a")
const step = (index: number, inputTokens: number, outputTokens: number) =>
  Step.make({
    index,
    startedAt: 10 * index,
    completedAt: 10 * index + 5,
    response: InferenceResponse.make({ text: `answer ${index}`, usage: Usage.make(inputTokens, outputTokens) }),
  })

describe("AgentState", () => {
  describe("make", () => {
    it("freezes the state deeply, plain inputs included", () => {
      const made = AgentState.make({
        messages: [{ role: "assistant", content: "x", toolCalls: [{ id: "c", name: "t", arguments: { a: [1] } }] }],
        contextMetadata: { nested: { list: [1, 2] } },
        metadata: { deep: { deeper: { deepest: true } } },
        responseFormat: { type: "json", schema: { type: "object", properties: { a: { type: "string" } } } },
      })
      expect(isDeepFrozen(made)).toBe(true)
    })

    it("draws a fresh id when none is given", () => {
      const a = AgentState.make()
      const b = AgentState.make()
      expect(a.id).not.toBe("")
      expect(a.id).not.toBe(b.id)
    })

    it("keeps a given id and parent id", () => {
      const made = AgentState.make({ id: "child", parentId: "parent" })
      expect(made.id).toBe("child")
      expect(made.parentId).toBe("parent")
    })

    it("starts with a pending, empty execution", () => {
      const { execution } = AgentState.make()
      expect(execution.status).toBe("pending")
      expect(execution.steps.length).toBe(0)
      expect(execution.stopSignals).toEqual([])
      expect(execution.errors).toEqual([])
      expect(execution.usage).toEqual({ inputTokens: 0, outputTokens: 0 })
      expect(execution.continuationRequested).toBe(false)
      expect(execution.startedAt).toBeUndefined()
      expect(execution.completedAt).toBeUndefined()
    })

    it("holds the messages in an AppendLog", () => {
      expect(AppendLog.isAppendLog(state.context.messages)).toBe(true)
      expect([...state.context.messages]).toEqual([hi, hello])
    })
  })

  describe("isAgentState", () => {
    it("recognizes states and rejects other values", () => {
      expect(AgentState.isAgentState(state)).toBe(true)
      expect(AgentState.isAgentState({ id: "x" })).toBe(false)
      expect(AgentState.isAgentState(null)).toBe(false)
    })
  })

  describe("update", () => {
    it("returns the original state when no changes are made", () => {
      expect(AgentState.update(state, (draft) => void draft.context.systemPrompt.length)).toBe(state)
    })

    it("returns the original state when a field is set to its current value", () => {
      expect(AgentState.update(state, (draft) => {
        draft.context.systemPrompt = "be brief"
        draft.metadata["team"] = "a"
      })).toBe(state)
    })

    it("applies the recipe", () => {
      const next = AgentState.update(state, (draft) => {
        draft.metadata["team"] = "b"
      })
      expect(next.metadata).toEqual({ team: "b", limits: { soft: 1 } })
    })

    it("leaves the input unchanged", () => {
      const before = JSON.stringify(state)
      AgentState.update(state, (draft) => {
        draft.metadata["team"] = "b"
        draft.context.systemPrompt = "changed"
      })
      expect(JSON.stringify(state)).toBe(before)
    })

    it("does structural sharing", () => {
      const next = AgentState.update(state, (draft) => {
        draft.metadata["team"] = "b"
      })
      expect(next).not.toBe(state)
      expect(next.context).toBe(state.context)
      expect(next.context.messages).toBe(state.context.messages)
      expect(next.execution).toBe(state.execution)
      expect(next.metadata["limits"]).toBe(state.metadata["limits"])
    })

    it("freezes the result deeply", () => {
      const next = AgentState.update(state, (draft) => {
        draft.metadata["added"] = { nested: [1, { two: 2 }] }
      })
      expect(isDeepFrozen(next)).toBe(true)
    })

    it("freezes the result even when immer's auto-freeze is turned off globally", () => {
      setAutoFreeze(false)
      try {
        const next = AgentState.update(state, (draft) => {
          draft.metadata["added"] = { nested: [1, { two: 2 }] }
        })
        expect(Object.isFrozen(next)).toBe(true)
        expect(isDeepFrozen(next)).toBe(true)
      } finally {
        setAutoFreeze(true)
      }
    })

    it("replaces the history through AppendLog.append in a recipe and shares the old one", () => {
      const m = Message.user("again")
      const next = AgentState.update(state, (draft) => {
        draft.context.messages = AppendLog.append(draft.context.messages, m)
      })
      expect([...next.context.messages]).toEqual([hi, hello, m])
      expect(next.context.messages.at(0)).toBe(hi)
      expect(state.context.messages.length).toBe(2)
    })

    // immer does not look inside an AppendLog, so AppendLog.append freezes what it appends.
    it("freezes a plain message appended through AppendLog.append in a recipe", () => {
      const next = AgentState.update(state, (draft) => {
        draft.context.messages = AppendLog.append(draft.context.messages, { role: "user", content: "plain" })
      })
      expect(isDeepFrozen(next)).toBe(true)
    })

    it("gives the same result data-first and data-last", () => {
      const recipe = (draft: { metadata: Record<string, unknown> }) => {
        draft.metadata["team"] = "c"
      }
      expect(pipe(state, AgentState.update(recipe))).toEqual(AgentState.update(state, recipe))
    })
  })

  describe("withContext", () => {
    it("returns the original state when given its own context", () => {
      expect(AgentState.withContext(state, state.context)).toBe(state)
    })

    it("freezes a plain context deeply and shares the rest", () => {
      const next = AgentState.withContext(state, { ...state.context, metadata: { a: { b: [1] } } })
      expect(isDeepFrozen(next)).toBe(true)
      expect(next.execution).toBe(state.execution)
      expect(next.context.messages).toBe(state.context.messages)
    })
  })

  describe("withExecution", () => {
    it("returns the original state when given its own execution", () => {
      expect(AgentState.withExecution(state, state.execution)).toBe(state)
    })

    it("freezes a plain execution deeply and shares the context", () => {
      const next = AgentState.withExecution(state, { ...state.execution, stopSignals: [{ ...stop }] })
      expect(isDeepFrozen(next)).toBe(true)
      expect(next.context).toBe(state.context)
    })
  })

  describe("appendMessage", () => {
    const m = Message.user("more")

    it("returns a new state with the message last", () => {
      const next = AgentState.appendMessage(state, m)
      expect(next).not.toBe(state)
      expect(next.context.messages.length).toBe(3)
      expect(AgentState.lastMessage(next)).toBe(m)
    })

    it("leaves the input unchanged", () => {
      AgentState.appendMessage(state, m)
      expect(state.context.messages.length).toBe(2)
      expect(AgentState.lastMessage(state)).toBe(hello)
    })

    it("shares the execution, the metadata and the rest of the context", () => {
      const next = AgentState.appendMessage(state, m)
      expect(next.execution).toBe(state.execution)
      expect(next.metadata).toBe(state.metadata)
      expect(next.context.metadata).toBe(state.context.metadata)
    })

    it("shares the old history: every old item is the same reference", () => {
      const next = AgentState.appendMessage(state, m)
      expect(next.context.messages.at(0)).toBe(hi)
      expect(next.context.messages.at(1)).toBe(hello)
    })

    it("freezes a plain message deeply", () => {
      const next = AgentState.appendMessage(state, {
        role: "assistant",
        content: "x",
        toolCalls: [{ id: "c", name: "t", arguments: { path: ["a"] } }],
      })
      expect(isDeepFrozen(next)).toBe(true)
    })

    it("keeps a newer state unchanged when an older state is appended to", () => {
      const a = AgentState.appendMessage(state, Message.user("a"))
      const b = AgentState.appendMessage(state, Message.user("b"))
      expect(AgentState.lastMessage(a)?.content).toBe("a")
      expect(AgentState.lastMessage(b)?.content).toBe("b")
    })

    it("gives the same result data-first and data-last", () => {
      expect(pipe(state, AgentState.appendMessage(m))).toEqual(AgentState.appendMessage(state, m))
    })
  })

  describe("appendMessages", () => {
    it("appends the messages in order", () => {
      const a = Message.user("a")
      const b = Message.assistant("b")
      const next = AgentState.appendMessages(state, [a, b])
      expect([...next.context.messages]).toEqual([hi, hello, a, b])
      expect(next.context.messages.at(0)).toBe(hi)
      expect(state.context.messages.length).toBe(2)
    })

    it("returns the original state when there is nothing to append", () => {
      expect(AgentState.appendMessages(state, [])).toBe(state)
    })

    it("gives the same result data-first and data-last", () => {
      const ms = [Message.user("a"), Message.user("b")]
      expect(pipe(state, AgentState.appendMessages(ms))).toEqual(AgentState.appendMessages(state, ms))
    })
  })

  describe("withSystemPrompt", () => {
    it("returns the original state when the prompt is unchanged", () => {
      expect(AgentState.withSystemPrompt(state, "be brief")).toBe(state)
    })

    it("replaces the prompt and shares the history", () => {
      const next = AgentState.withSystemPrompt(state, "be thorough")
      expect(next.context.systemPrompt).toBe("be thorough")
      expect(next.context.messages).toBe(state.context.messages)
      expect(state.context.systemPrompt).toBe("be brief")
    })

    it("gives the same result data-first and data-last", () => {
      expect(pipe(state, AgentState.withSystemPrompt("x"))).toEqual(AgentState.withSystemPrompt(state, "x"))
    })
  })

  describe("withResponseFormat", () => {
    it("sets the response format, frozen", () => {
      const next = AgentState.withResponseFormat(state, { type: "json", schema: { type: "object" } })
      expect(next.context.responseFormat).toEqual({ type: "json", schema: { type: "object" } })
      expect(isDeepFrozen(next)).toBe(true)
    })

    it("returns the original state when the format is the same reference", () => {
      expect(AgentState.withResponseFormat(state, undefined)).toBe(state)
      const json = AgentState.withResponseFormat(state, { type: "text" })
      expect(AgentState.withResponseFormat(json, json.context.responseFormat)).toBe(json)
    })

    it("clears the format with undefined", () => {
      const json = AgentState.withResponseFormat(state, { type: "text" })
      expect(AgentState.withResponseFormat(json, undefined).context.responseFormat).toBeUndefined()
    })
  })

  describe("withMetadata", () => {
    it("merges the entries into the metadata", () => {
      const next = AgentState.withMetadata(state, { team: "b", extra: [1] })
      expect(next.metadata).toEqual({ team: "b", limits: { soft: 1 }, extra: [1] })
      expect(state.metadata).toEqual({ team: "a", limits: { soft: 1 } })
    })

    it("returns the original state when every value is unchanged", () => {
      expect(AgentState.withMetadata(state, { team: "a" })).toBe(state)
      expect(AgentState.withMetadata(state, { limits: state.metadata["limits"]! })).toBe(state)
      expect(AgentState.withMetadata(state, {})).toBe(state)
    })

    it("shares the context and the execution", () => {
      const next = AgentState.withMetadata(state, { team: "b" })
      expect(next.context).toBe(state.context)
      expect(next.execution).toBe(state.execution)
    })

    it("freezes new values deeply", () => {
      expect(isDeepFrozen(AgentState.withMetadata(state, { deep: { a: [{ b: 1 }] } }))).toBe(true)
    })

    it("gives the same result data-first and data-last", () => {
      expect(pipe(state, AgentState.withMetadata({ k: 1 }))).toEqual(AgentState.withMetadata(state, { k: 1 }))
    })
  })

  describe("withStopSignal", () => {
    it("adds the signal", () => {
      const next = AgentState.withStopSignal(state, stop)
      expect(next.execution.stopSignals).toEqual([stop])
      expect(state.execution.stopSignals).toEqual([])
    })

    it("returns the original state when a signal with the same reason and source is there", () => {
      const once = AgentState.withStopSignal(state, stop)
      expect(AgentState.withStopSignal(once, StopSignal.make("StopRequested", "another message", "hook:a"))).toBe(once)
    })

    it("keeps signals of the same reason from different sources", () => {
      const next = pipe(
        state,
        AgentState.withStopSignal(stop),
        AgentState.withStopSignal(StopSignal.make("StopRequested", "enough", "hook:b")),
      )
      expect(next.execution.stopSignals.map((s) => s.source)).toEqual(["hook:a", "hook:b"])
    })

    it("shares the context", () => {
      expect(AgentState.withStopSignal(state, stop).context).toBe(state.context)
    })

    it("gives the same result data-first and data-last", () => {
      expect(pipe(state, AgentState.withStopSignal(stop))).toEqual(AgentState.withStopSignal(state, stop))
    })
  })

  describe("addError", () => {
    const error = AgentError.unknownTool("c1", "nope")

    it("appends the error after the earlier ones", () => {
      const other = AgentError.aborted()
      const next = AgentState.addError(AgentState.addError(state, error), other)
      expect(next.execution.errors).toEqual([error, other])
      expect(state.execution.errors).toEqual([])
    })

    it("freezes a plain error deeply", () => {
      expect(isDeepFrozen(AgentState.addError(state, { _tag: "Aborted", message: "stop" }))).toBe(true)
    })

    it("gives the same result data-first and data-last", () => {
      expect(pipe(state, AgentState.addError(error))).toEqual(AgentState.addError(state, error))
    })
  })

  describe("appendStep", () => {
    it("appends the step", () => {
      const s0 = step(0, 3, 4)
      const next = AgentState.appendStep(state, s0)
      expect(AgentState.stepCount(next)).toBe(1)
      expect(AgentState.lastStep(next)).toBe(s0)
      expect(AgentState.stepCount(state)).toBe(0)
    })

    it("adds the step's usage to the run's", () => {
      const next = pipe(state, AgentState.appendStep(step(0, 3, 4)), AgentState.appendStep(step(1, 10, 20)))
      expect(next.execution.usage).toEqual({ inputTokens: 13, outputTokens: 24 })
    })

    it("shares the context and the earlier steps", () => {
      const one = AgentState.appendStep(state, step(0, 1, 1))
      const two = AgentState.appendStep(one, step(1, 1, 1))
      expect(two.context).toBe(state.context)
      expect(two.execution.steps.at(0)).toBe(one.execution.steps.at(0))
    })

    it("freezes a plain step deeply", () => {
      const plain = JSON.parse(JSON.stringify(step(0, 1, 2))) as Step
      expect(isDeepFrozen(AgentState.appendStep(state, plain))).toBe(true)
    })

    // Step.make freezes only its root; appendStep's deepFreeze stops at a frozen
    // object, so a response given to Step.make as plain data stays mutable.
    it("freezes a step made by Step.make from a plain response", () => {
      const s = Step.make({
        index: 0,
        startedAt: 0,
        response: { text: "", toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, finishReason: "stop", modelId: "m", metadata: {} },
      })
      expect(isDeepFrozen(AgentState.appendStep(state, s))).toBe(true)
    })

    it("gives the same result data-first and data-last", () => {
      const s0 = step(0, 3, 4)
      expect(pipe(state, AgentState.appendStep(s0))).toEqual(AgentState.appendStep(state, s0))
    })
  })

  describe("withStatus", () => {
    it("sets startedAt when the run starts", () => {
      const next = AgentState.withStatus(state, "running", 100)
      expect(next.execution.status).toBe("running")
      expect(next.execution.startedAt).toBe(100)
      expect(next.execution.completedAt).toBeUndefined()
    })

    it("sets startedAt only once, and runningSince on every start (the time limit counts from it)", () => {
      const running = AgentState.withStatus(state, "running", 100)
      expect(running.execution.runningSince).toBe(100)
      const again = AgentState.withStatus(running, "running", 200)
      expect(again.execution.startedAt).toBe(100)
      expect(again.execution.runningSince).toBe(200)
      expect(AgentState.withStatus(again, "running", 200)).toBe(again)
      expect(AgentState.withStatus(again, "running")).toBe(again)
      // A final status keeps the start of the last run call.
      expect(AgentState.withStatus(again, "completed", 300).execution.runningSince).toBe(200)
    })

    it.each(["completed", "stopped", "failed"] as const)("sets completedAt on the final status %s", (status) => {
      const next = pipe(state, AgentState.withStatus("running", 100), AgentState.withStatus(status, 250))
      expect(next.execution.status).toBe(status)
      expect(next.execution.completedAt).toBe(250)
      expect(next.execution.startedAt).toBe(100)
    })

    it("sets no time without a clock reading", () => {
      const next = AgentState.withStatus(state, "completed")
      expect(next.execution.status).toBe("completed")
      expect(next.execution.completedAt).toBeUndefined()
    })

    it("returns the original state when the status is unchanged and no time is given", () => {
      expect(AgentState.withStatus(state, "pending")).toBe(state)
    })

    it("gives the same result data-first and data-last", () => {
      expect(pipe(state, AgentState.withStatus("running", 7))).toEqual(AgentState.withStatus(state, "running", 7))
      expect(pipe(state, AgentState.withStatus("failed"))).toEqual(AgentState.withStatus(state, "failed"))
    })
  })

  describe("withContinuationRequested", () => {
    it("sets and clears the flag", () => {
      const on = AgentState.withContinuationRequested(state, true)
      expect(on.execution.continuationRequested).toBe(true)
      expect(AgentState.withContinuationRequested(on, false).execution.continuationRequested).toBe(false)
    })

    it("returns the original state when the flag is unchanged", () => {
      expect(AgentState.withContinuationRequested(state, false)).toBe(state)
    })
  })

  describe("clearStopSignals", () => {
    it("removes every stop signal", () => {
      const stopped = pipe(state, AgentState.withStopSignal(stop), AgentState.withStopSignal(StopSignal.make("Completed", "", "loop")))
      const cleared = AgentState.clearStopSignals(stopped)
      expect(cleared.execution.stopSignals).toEqual([])
      expect(stopped.execution.stopSignals.length).toBe(2)
    })

    it("returns the original state when there are no signals", () => {
      expect(AgentState.clearStopSignals(state)).toBe(state)
    })
  })

  describe("stepCount", () => {
    it("counts the steps", () => {
      expect(AgentState.stepCount(state)).toBe(0)
      expect(AgentState.stepCount(pipe(state, AgentState.appendStep(step(0, 1, 1)), AgentState.appendStep(step(1, 1, 1))))).toBe(2)
    })
  })

  describe("lastStep", () => {
    it("returns the last step, or undefined when there is none", () => {
      const s1 = step(1, 1, 1)
      expect(AgentState.lastStep(state)).toBeUndefined()
      expect(AgentState.lastStep(pipe(state, AgentState.appendStep(step(0, 1, 1)), AgentState.appendStep(s1)))).toBe(s1)
    })
  })

  describe("totalTokens", () => {
    it("adds input and output tokens of the whole run", () => {
      expect(AgentState.totalTokens(state)).toBe(0)
      expect(AgentState.totalTokens(pipe(state, AgentState.appendStep(step(0, 3, 4)), AgentState.appendStep(step(1, 10, 20))))).toBe(37)
    })
  })

  describe("lastMessage", () => {
    it("returns the last message, or undefined when there is none", () => {
      expect(AgentState.lastMessage(state)).toBe(hello)
      expect(AgentState.lastMessage(AgentState.make())).toBeUndefined()
    })
  })
})
