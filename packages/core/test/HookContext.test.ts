import { pipe } from "effect/Function"
import { describe, expect, it } from "vitest"
import {
  AgentError,
  AgentState,
  AppendLog,
  HookContext,
  InferenceRequest,
  InferenceResponse,
  Message,
  StopSignal,
  ToolCall,
  ToolExecution,
  Usage,
} from "@hookline/core"
import { isDeepFrozen } from "./arbitraries.js"

const state = AgentState.make({
  id: "s",
  messages: [Message.user("one"), Message.assistant("two"), Message.user("three")],
})
const call = ToolCall.make({ id: "c1", name: "shell", arguments: { cmd: "ls" } })
const beforeTool = HookContext.make({ trigger: "BeforeToolUse", state, createdAt: 100, toolCall: call })
const ran = ToolExecution.success(call, { files: ["a", "b"] }, 90, 95)
const afterTool = HookContext.make({ trigger: "AfterToolUse", state, createdAt: 100, toolCall: call, toolExecution: ran })
const request = InferenceRequest.make({
  systemPrompt: "sys",
  messages: state.context.messages,
  tools: [{ name: "shell", description: "runs a command", parameters: { type: "object" } }],
})
const beforeInference = HookContext.make({ trigger: "BeforeInference", state, createdAt: 100, request })
const response = InferenceResponse.make({ text: "cached", usage: Usage.make(1, 2) })
const afterInference = HookContext.make({ trigger: "AfterInference", state, createdAt: 100, request, response })
const failed = AgentError.inferenceFailed("boom", { status: 500 })
const onError = HookContext.make({ trigger: "OnError", state, createdAt: 100, errors: [failed] })
const onStop = HookContext.make({ trigger: "OnStop", state, createdAt: 100 })
const stop = StopSignal.make("StopRequested", "enough", "hook:a")

describe("HookContext", () => {
  describe("make", () => {
    it("freezes the context deeply, plain inputs included", () => {
      const ctx = HookContext.make({
        trigger: "AfterToolUse",
        state,
        createdAt: 1,
        toolCall: { id: "c", name: "t", arguments: { deep: { list: [1] } } },
        toolExecution: {
          status: "success",
          toolCall: { id: "c", name: "t", arguments: { deep: { list: [1] } } },
          output: { x: [1, { y: 2 }] },
          startedAt: 0,
          completedAt: 1,
        },
        metadata: { a: { b: [1] } },
      })
      expect(isDeepFrozen(ctx)).toBe(true)
    })

    it("shares a frozen state as is", () => {
      expect(beforeTool.state).toBe(state)
    })

    it("takes updatedAt from createdAt and starts with no errors", () => {
      expect(beforeTool.updatedAt).toBe(100)
      expect(beforeTool.errors).toEqual([])
      expect(beforeTool.toolExecutionBlocked).toBe(false)
    })

    it("derives the block from a blocked tool execution", () => {
      const ctx = HookContext.make({
        trigger: "AfterToolUse",
        state,
        createdAt: 1,
        toolCall: call,
        toolExecution: ToolExecution.blocked(call, "no", 1),
      })
      expect(ctx.toolExecutionBlocked).toBe(true)
      expect(HookContext.isToolExecutionBlocked(ctx)).toBe(true)
    })
  })

  describe("isHookContext", () => {
    it("recognizes contexts and rejects states and other values", () => {
      expect(HookContext.isHookContext(beforeTool)).toBe(true)
      expect(HookContext.isHookContext(state)).toBe(false)
      expect(HookContext.isHookContext("ctx")).toBe(false)
    })
  })

  describe("hasErrors", () => {
    it("tells whether the context carries errors", () => {
      expect(HookContext.hasErrors(onError)).toBe(true)
      expect(HookContext.hasErrors(onStop)).toBe(false)
    })
  })

  describe("withState", () => {
    it("returns the original context when given its own state", () => {
      expect(HookContext.withState(beforeTool, state)).toBe(beforeTool)
    })

    it("replaces the state and shares every other field", () => {
      const next = AgentState.appendMessage(state, Message.user("four"))
      const ctx = HookContext.withState(beforeTool, next)
      expect(ctx.state).toBe(next)
      expect(ctx.toolCall).toBe(beforeTool.toolCall)
      expect(ctx.metadata).toBe(beforeTool.metadata)
      expect(beforeTool.state).toBe(state)
    })

    it("gives the same result data-first and data-last", () => {
      const next = AgentState.withSystemPrompt(state, "x")
      expect(pipe(beforeTool, HookContext.withState(next))).toEqual(HookContext.withState(beforeTool, next))
    })
  })

  describe("updateState", () => {
    it("returns the original context when the recipe changes nothing", () => {
      expect(HookContext.updateState(beforeTool, (draft) => void draft.id)).toBe(beforeTool)
    })

    it("applies the recipe to the state", () => {
      const ctx = HookContext.updateState(beforeTool, (draft) => {
        draft.metadata["seen"] = true
      })
      expect(ctx.state.metadata).toEqual({ seen: true })
      expect(ctx.state.context).toBe(state.context)
      expect(isDeepFrozen(ctx)).toBe(true)
    })
  })

  describe("withRequest", () => {
    it("accepts a plain array of messages and makes it an AppendLog", () => {
      const window = request.messages.slice(-2)
      const ctx = HookContext.withRequest(beforeInference, { ...request, messages: window })
      expect(AppendLog.isAppendLog(ctx.request?.messages)).toBe(true)
      expect(ctx.request?.messages.length).toBe(2)
      expect(ctx.request?.messages.at(0)).toBe(window[0])
      expect(ctx.request?.messages.at(1)).toBe(window[1])
    })

    it("keeps the other fields of the request", () => {
      const ctx = HookContext.withRequest(beforeInference, { ...request, messages: request.messages.slice(-1) })
      expect(ctx.request?.systemPrompt).toBe("sys")
      expect(ctx.request?.tools).toBe(request.tools)
    })

    it("does not persist the edit into the state", () => {
      const ctx = HookContext.withRequest(beforeInference, { ...request, messages: [] })
      expect(ctx.state).toBe(state)
      expect(ctx.state.context.messages.length).toBe(3)
    })

    it("uses a frozen request as is", () => {
      const other = InferenceRequest.make({ systemPrompt: "other" })
      expect(HookContext.withRequest(beforeInference, other).request).toBe(other)
    })

    it("returns the original context when given its own request", () => {
      expect(HookContext.withRequest(beforeInference, request)).toBe(beforeInference)
    })

    // isInferenceRequest only checks "frozen with AppendLog messages", so a frozen partial
    // input (allowed by InferenceRequestInput) is taken as a whole request: tools, options
    // and systemPrompt stay undefined although InferenceRequest says they are always there.
    it("fills the defaults of a frozen partial input", () => {
      const ctx = HookContext.withRequest(beforeInference, Object.freeze({ messages: state.context.messages }))
      expect(ctx.request?.tools).toEqual([])
      expect(ctx.request?.options).toEqual({})
      expect(ctx.request?.systemPrompt).toBe("")
    })

    it("freezes a plain request deeply", () => {
      const ctx = HookContext.withRequest(beforeInference, {
        messages: [{ role: "user", content: "x" }],
        tools: [{ name: "t", description: "", parameters: { properties: { a: { type: "string" } } } }],
        options: { stopSequences: ["\n"], providerOptions: { x: { y: 1 } } },
      })
      expect(isDeepFrozen(ctx)).toBe(true)
    })
  })

  describe("withResponse", () => {
    it("sets the response (a cache hit at BeforeInference)", () => {
      const ctx = HookContext.withResponse(beforeInference, response)
      expect(ctx.response).toBe(response)
      expect(beforeInference.response).toBeUndefined()
    })

    it("keeps an answer a journal replayed replayed when it rewrites it", () => {
      const replayed = HookContext.withResponse(afterInference, InferenceResponse.asReplayed(InferenceResponse.make({ text: "from the journal" })))
      const ctx = HookContext.withResponse(replayed, InferenceResponse.make({ text: "[redacted]" }))
      expect(ctx.response?.text).toBe("[redacted]")
      expect(InferenceResponse.isReplayed(ctx.response!)).toBe(true)
      expect(InferenceResponse.isReplayed(HookContext.withResponse(afterInference, InferenceResponse.make({ text: "x" })).response!)).toBe(false)
    })

    it("rewrites the response at AfterInference", () => {
      const rewritten = InferenceResponse.make({ text: "rewritten" })
      const ctx = HookContext.withResponse(afterInference, rewritten)
      expect(ctx.response?.text).toBe("rewritten")
      expect(ctx.request).toBe(request)
    })

    it("returns the original context when given its own response", () => {
      expect(HookContext.withResponse(afterInference, response)).toBe(afterInference)
    })

    it("gives the same result data-first and data-last", () => {
      expect(pipe(beforeInference, HookContext.withResponse(response))).toEqual(HookContext.withResponse(beforeInference, response))
    })
  })

  describe("withToolCall", () => {
    it("replaces the tool call, frozen", () => {
      const ctx = HookContext.withToolCall(beforeTool, { ...call, arguments: { cmd: "pwd" } })
      expect(ctx.toolCall?.arguments).toEqual({ cmd: "pwd" })
      expect(isDeepFrozen(ctx)).toBe(true)
      expect(beforeTool.toolCall).toBe(call)
    })

    it("returns the original context when given its own tool call", () => {
      expect(HookContext.withToolCall(beforeTool, call)).toBe(beforeTool)
    })
  })

  describe("withToolArguments", () => {
    it("replaces the arguments and keeps the id and name", () => {
      const ctx = HookContext.withToolArguments(beforeTool, { cmd: "pwd" })
      expect(ctx.toolCall).toEqual({ id: "c1", name: "shell", arguments: { cmd: "pwd" } })
    })

    it("returns the original context when there is no tool call", () => {
      expect(HookContext.withToolArguments(onStop, { a: 1 })).toBe(onStop)
    })

    it("returns the original context when the arguments are the same reference", () => {
      expect(HookContext.withToolArguments(beforeTool, call.arguments)).toBe(beforeTool)
    })
  })

  describe("withToolExecutionBlocked", () => {
    it("blocks the call with the reason", () => {
      const ctx = HookContext.withToolExecutionBlocked(beforeTool, "not allowed")
      expect(ctx.toolExecutionBlocked).toBe(true)
      expect(ctx.toolExecution?.status).toBe("blocked")
      expect(ctx.toolExecution !== undefined && ToolExecution.isBlocked(ctx.toolExecution) ? ctx.toolExecution.reason : undefined)
        .toBe("not allowed")
      expect(ctx.toolExecution?.toolCall).toBe(call)
      expect(beforeTool.toolExecutionBlocked).toBe(false)
    })

    it("keeps the first block", () => {
      const first = HookContext.withToolExecutionBlocked(beforeTool, "first")
      expect(HookContext.withToolExecutionBlocked(first, "second")).toBe(first)
    })

    it("returns the original context when there is no tool call", () => {
      expect(HookContext.withToolExecutionBlocked(onStop, "no")).toBe(onStop)
    })

    it("gives the same result data-first and data-last", () => {
      expect(pipe(beforeTool, HookContext.withToolExecutionBlocked("no"))).toEqual(HookContext.withToolExecutionBlocked(beforeTool, "no"))
    })
  })

  describe("a block", () => {
    const blocked = HookContext.withToolExecutionBlocked(beforeTool, "not allowed")

    it("cannot be lifted by withToolExecution", () => {
      expect(HookContext.withToolExecution(blocked, ToolExecution.success(call, "ok", 100))).toBe(blocked)
    })

    it("cannot be lifted by withToolResult", () => {
      expect(HookContext.withToolResult(blocked, "ok")).toBe(blocked)
    })

    it("keeps the tool call: withToolCall and withToolArguments return the same context", () => {
      expect(HookContext.withToolCall(blocked, ToolCall.make({ id: "c1", name: "other" }))).toBe(blocked)
      expect(HookContext.withToolArguments(blocked, { cmd: "rm" })).toBe(blocked)
    })

    it("survives unrelated changes", () => {
      const ctx = pipe(blocked, HookContext.withMetadata({ k: 1 }), HookContext.withStopSignal(stop))
      expect(ctx.toolExecutionBlocked).toBe(true)
      expect(ctx.toolExecution).toBe(blocked.toolExecution)
    })
  })

  describe("withToolExecution", () => {
    it("sets the execution", () => {
      const ctx = HookContext.withToolExecution(beforeTool, ran)
      expect(ctx.toolExecution).toBe(ran)
      expect(ctx.toolExecutionBlocked).toBe(false)
    })

    it("blocks when given a blocked execution", () => {
      const ctx = HookContext.withToolExecution(beforeTool, ToolExecution.blocked(call, "no", 100))
      expect(ctx.toolExecutionBlocked).toBe(true)
    })

    it("returns the original context when given its own execution", () => {
      expect(HookContext.withToolExecution(afterTool, ran)).toBe(afterTool)
    })
  })

  describe("withToolResult", () => {
    it("creates a success execution at BeforeToolUse (a short-circuit)", () => {
      const ctx = HookContext.withToolResult(beforeTool, { cached: true })
      expect(ctx.toolExecution).toEqual({ status: "success", toolCall: call, output: { cached: true }, startedAt: 100, completedAt: 100 })
      expect(ctx.toolExecutionBlocked).toBe(false)
      expect(isDeepFrozen(ctx)).toBe(true)
    })

    it("rewrites the output at AfterToolUse and keeps the times", () => {
      const ctx = HookContext.withToolResult(afterTool, "[redacted]")
      expect(ctx.toolExecution).toEqual({ status: "success", toolCall: call, output: "[redacted]", startedAt: 90, completedAt: 95 })
      expect(afterTool.toolExecution).toBe(ran)
    })

    it("keeps a replayed result replayed when it rewrites it (a redaction)", () => {
      const replayed = HookContext.make({ trigger: "AfterToolUse", state, createdAt: 100, toolCall: call, toolExecution: ToolExecution.asReplayed(ran) })
      const ctx = HookContext.withToolResult(replayed, "[redacted]")
      expect(ctx.toolExecution?.status === "success" && ctx.toolExecution.output).toBe("[redacted]")
      expect(ToolExecution.isReplayed(ctx.toolExecution!)).toBe(true)
      expect(ToolExecution.isReplayed(HookContext.withToolResult(afterTool, "[redacted]").toolExecution!)).toBe(false)
    })

    it("deep-freezes a hand-built rewrite of a replayed result (fast-check seed 664235012)", () => {
      const replayed = HookContext.make({ trigger: "AfterToolUse", state, createdAt: 100, toolCall: call, toolExecution: ToolExecution.asReplayed(ran) })
      const plain = JSON.parse(JSON.stringify({ ...ran, output: { rows: [1, 2] } })) as ToolExecution.ToolExecution
      expect(isDeepFrozen(HookContext.withToolExecution(replayed, plain))).toBe(true)
      const replayedAnswer = HookContext.withResponse(afterInference, InferenceResponse.asReplayed(InferenceResponse.make({ text: "from the journal" })))
      const plainAnswer = JSON.parse(JSON.stringify(InferenceResponse.make({ text: "x", usage: Usage.make(1, 2) }))) as InferenceResponse.InferenceResponse
      expect(isDeepFrozen(HookContext.withResponse(replayedAnswer, plainAnswer))).toBe(true)
    })

    it("turns a failure into a success at AfterToolUse", () => {
      const failure = ToolExecution.failure(call, AgentError.toolFailed("c1", "shell", "exit 1"), 90, 95)
      const ctx = HookContext.withToolResult(HookContext.withToolExecution(beforeTool, failure), "fallback")
      expect(ctx.toolExecution?.status).toBe("success")
    })

    it("returns the original context when the output is unchanged", () => {
      const once = HookContext.withToolResult(beforeTool, "same")
      expect(HookContext.withToolResult(once, "same")).toBe(once)
    })

    it("returns the original context when there is no tool call", () => {
      expect(HookContext.withToolResult(onStop, "x")).toBe(onStop)
    })

    it("gives the same result data-first and data-last", () => {
      expect(pipe(afterTool, HookContext.withToolResult("r"))).toEqual(HookContext.withToolResult(afterTool, "r"))
    })
  })

  describe("withStopSignal", () => {
    it("persists the signal into the state", () => {
      const ctx = HookContext.withStopSignal(beforeTool, stop)
      expect(ctx.state.execution.stopSignals).toEqual([stop])
      expect(ctx.state.context).toBe(state.context)
      expect(beforeTool.state.execution.stopSignals).toEqual([])
    })

    it("returns the original context when the same signal is there", () => {
      const once = HookContext.withStopSignal(beforeTool, stop)
      expect(HookContext.withStopSignal(once, stop)).toBe(once)
    })

    it("gives the same result data-first and data-last", () => {
      expect(pipe(onStop, HookContext.withStopSignal(stop))).toEqual(HookContext.withStopSignal(onStop, stop))
    })
  })

  describe("requestContinuation", () => {
    it("sets continuationRequested without a message, data-first", () => {
      const ctx = HookContext.requestContinuation(onStop)
      expect(ctx.state.execution.continuationRequested).toBe(true)
      expect(ctx.state.context.messages).toBe(state.context.messages)
    })

    it("sets continuationRequested without a message, data-last", () => {
      const ctx = pipe(onStop, HookContext.requestContinuation())
      expect(ctx.state.execution.continuationRequested).toBe(true)
      expect(ctx.state.context.messages).toBe(state.context.messages)
    })

    it("appends a user message when given one, data-first", () => {
      const ctx = HookContext.requestContinuation(onStop, "more")
      expect(ctx.state.execution.continuationRequested).toBe(true)
      expect(AgentState.lastMessage(ctx.state)).toEqual(Message.user("more"))
      expect(ctx.state.context.messages.length).toBe(4)
    })

    it("appends a user message when given one, data-last", () => {
      const ctx = pipe(onStop, HookContext.requestContinuation("more"))
      expect(ctx.state.execution.continuationRequested).toBe(true)
      expect(AgentState.lastMessage(ctx.state)).toEqual(Message.user("more"))
    })

    it("gives equal results in both call forms", () => {
      expect(pipe(onStop, HookContext.requestContinuation("more"))).toEqual(HookContext.requestContinuation(onStop, "more"))
      expect(pipe(onStop, HookContext.requestContinuation())).toEqual(HookContext.requestContinuation(onStop))
    })

    it("leaves the input unchanged", () => {
      HookContext.requestContinuation(onStop, "more")
      expect(onStop.state).toBe(state)
      expect(state.execution.continuationRequested).toBe(false)
      expect(state.context.messages.length).toBe(3)
    })

    it("returns the original context when continuation is already requested and no message is given", () => {
      const once = HookContext.requestContinuation(onStop)
      expect(HookContext.requestContinuation(once)).toBe(once)
    })
  })

  describe("withMetadata", () => {
    it("merges the entries into the context's metadata, not the state's", () => {
      const ctx = HookContext.withMetadata(onStop, { traced: true })
      expect(ctx.metadata).toEqual({ traced: true })
      expect(ctx.state).toBe(state)
    })

    it("returns the original context when every value is unchanged", () => {
      const once = HookContext.withMetadata(onStop, { traced: true })
      expect(HookContext.withMetadata(once, { traced: true })).toBe(once)
      expect(HookContext.withMetadata(onStop, {})).toBe(onStop)
    })
  })

  describe("withErrors", () => {
    it("replaces the errors", () => {
      const other = AgentError.aborted()
      const ctx = HookContext.withErrors(onError, [other])
      expect(ctx.errors).toEqual([other])
      expect(onError.errors).toEqual([failed])
    })

    it("returns the original context when given its own errors", () => {
      expect(HookContext.withErrors(onError, onError.errors)).toBe(onError)
    })
  })

  describe("markErrorsHandled", () => {
    it("empties the errors", () => {
      const ctx = HookContext.markErrorsHandled(onError)
      expect(ctx.errors).toEqual([])
      expect(HookContext.hasErrors(ctx)).toBe(false)
      expect(onError.errors.length).toBe(1)
    })

    it("returns the original context when there are no errors", () => {
      expect(HookContext.markErrorsHandled(onStop)).toBe(onStop)
    })
  })

  describe("structural sharing", () => {
    it("shares the state, request and response across context-only changes", () => {
      const ctx = pipe(afterInference, HookContext.withMetadata({ a: 1 }))
      expect(ctx.state).toBe(afterInference.state)
      expect(ctx.request).toBe(afterInference.request)
      expect(ctx.response).toBe(afterInference.response)
      expect(ctx.trigger).toBe("AfterInference")
      expect(ctx.createdAt).toBe(100)
    })
  })
})
