import { describe, expect, it } from "vitest"
import { AgentError, ToolCall, ToolExecution } from "@hookline/core"
import { isDeepFrozen } from "./arbitraries.js"

const call = ToolCall.make({ id: "c1", name: "search", arguments: { q: "x" } })

describe("ToolExecution", () => {
  describe("success", () => {
    it("builds a frozen success and freezes the output deeply", () => {
      const e = ToolExecution.success(call, { hits: [{ title: "a" }] }, 10, 20)
      expect(e).toEqual({ status: "success", toolCall: call, output: { hits: [{ title: "a" }] }, startedAt: 10, completedAt: 20 })
      expect(isDeepFrozen(e)).toBe(true)
    })

    it("completes when it started unless told otherwise", () => {
      expect(ToolExecution.success(call, null, 10).completedAt).toBe(10)
    })

    // The constructor freezes only its root: a plain tool call stays mutable, and every
    // later deepFreeze (HookContext.make, withToolExecution, appendStep) stops at the frozen root.
    it("freezes a plain tool call deeply", () => {
      const e = ToolExecution.success({ id: "c1", name: "search", arguments: { q: ["x"] } }, "ok", 10)
      expect(isDeepFrozen(e)).toBe(true)
    })
  })

  describe("failure", () => {
    it("builds a frozen failure", () => {
      const e = ToolExecution.failure(call, AgentError.toolFailed("c1", "search", "boom"), 10, 20)
      expect(e.status).toBe("failure")
      expect(isDeepFrozen(e)).toBe(true)
    })
  })

  describe("blocked", () => {
    it("builds a frozen blocked execution that starts and completes at once", () => {
      const e = ToolExecution.blocked(call, "not allowed", 10)
      expect(e).toEqual({ status: "blocked", toolCall: call, reason: "not allowed", startedAt: 10, completedAt: 10 })
      expect(isDeepFrozen(e)).toBe(true)
    })
  })

  describe("isSuccess", () => {
    it("is true only for a success", () => {
      expect(ToolExecution.isSuccess(ToolExecution.success(call, 1, 0))).toBe(true)
      expect(ToolExecution.isSuccess(ToolExecution.blocked(call, "no", 0))).toBe(false)
    })
  })

  describe("isBlocked", () => {
    it("is true only for a blocked execution", () => {
      expect(ToolExecution.isBlocked(ToolExecution.blocked(call, "no", 0))).toBe(true)
      expect(ToolExecution.isBlocked(ToolExecution.success(call, 1, 0))).toBe(false)
    })
  })

  describe("content", () => {
    it("renders a string output as is", () => {
      expect(ToolExecution.content(ToolExecution.success(call, "plain \"text\"", 0))).toBe("plain \"text\"")
    })

    it("renders other JSON output as JSON text", () => {
      expect(ToolExecution.content(ToolExecution.success(call, { a: [1, "b"] }, 0))).toBe("{\"a\":[1,\"b\"]}")
      expect(ToolExecution.content(ToolExecution.success(call, 42, 0))).toBe("42")
      expect(ToolExecution.content(ToolExecution.success(call, null, 0))).toBe("null")
      expect(ToolExecution.content(ToolExecution.success(call, false, 0))).toBe("false")
    })

    it("renders a failure with the error's message", () => {
      const error = AgentError.toolFailed("c1", "search", "boom")
      expect(ToolExecution.content(ToolExecution.failure(call, error, 0))).toContain(error.message)
    })

    it("renders a block with its reason", () => {
      expect(ToolExecution.content(ToolExecution.blocked(call, "not allowed", 0))).toContain("not allowed")
    })
  })

  describe("toMessage", () => {
    it("makes a success a tool message that is not an error", () => {
      const m = ToolExecution.toMessage(ToolExecution.success(call, { n: 1 }, 0))
      expect(m).toEqual({ role: "tool", toolCallId: "c1", toolName: "search", content: "{\"n\":1}", isError: false })
      expect(Object.isFrozen(m)).toBe(true)
    })

    it("makes a failure an error tool message", () => {
      const e = ToolExecution.failure(call, AgentError.toolTimedOut("c1", "search", 500), 0)
      const m = ToolExecution.toMessage(e)
      expect(m.isError).toBe(true)
      expect(m.role).toBe("tool")
      expect(m.toolCallId).toBe("c1")
      expect(m.content).toBe(ToolExecution.content(e))
    })

    it("makes a block an error tool message carrying the reason", () => {
      const m = ToolExecution.toMessage(ToolExecution.blocked(call, "not allowed", 0))
      expect(m.isError).toBe(true)
      expect(m.toolName).toBe("search")
      expect(m.content).toContain("not allowed")
    })
  })
})
