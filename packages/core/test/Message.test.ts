import { describe, expect, it } from "vitest"
import { Message, ToolCall } from "@hookline/core"
import { isDeepFrozen } from "./arbitraries.js"

describe("Message", () => {
  describe("system", () => {
    it("builds a frozen system message", () => {
      const m = Message.system("be brief")
      expect(m).toEqual({ role: "system", content: "be brief" })
      expect(Object.isFrozen(m)).toBe(true)
    })
  })

  describe("user", () => {
    it("builds a frozen user message", () => {
      const m = Message.user("hi")
      expect(m).toEqual({ role: "user", content: "hi" })
      expect(Object.isFrozen(m)).toBe(true)
    })
  })

  describe("assistant", () => {
    it("builds a frozen assistant message without tool calls", () => {
      const m = Message.assistant("hello")
      expect(m).toEqual({ role: "assistant", content: "hello", toolCalls: [] })
      expect(isDeepFrozen(m)).toBe(true)
    })

    it("freezes plain tool calls deeply", () => {
      const m = Message.assistant("", [{ id: "c1", name: "search", arguments: { q: ["a", { b: 1 }] } }])
      expect(m.toolCalls[0]).toEqual({ id: "c1", name: "search", arguments: { q: ["a", { b: 1 }] } })
      expect(isDeepFrozen(m)).toBe(true)
    })

    it("keeps frozen tool calls by reference", () => {
      const call = ToolCall.make({ id: "c1", name: "search" })
      expect(Message.assistant("", [call]).toolCalls[0]).toBe(call)
    })
  })

  describe("tool", () => {
    it("builds a frozen tool message that is not an error by default", () => {
      const m = Message.tool({ toolCallId: "c1", toolName: "search", content: "found" })
      expect(m).toEqual({ role: "tool", toolCallId: "c1", toolName: "search", content: "found", isError: false })
      expect(Object.isFrozen(m)).toBe(true)
    })

    it("keeps isError when given", () => {
      expect(Message.tool({ toolCallId: "c1", toolName: "search", content: "x", isError: true }).isError).toBe(true)
    })
  })

  describe("isAssistant", () => {
    it("is true only for assistant messages", () => {
      expect(Message.isAssistant(Message.assistant("a"))).toBe(true)
      expect(Message.isAssistant(Message.user("a"))).toBe(false)
      expect(Message.isAssistant(Message.tool({ toolCallId: "c", toolName: "t", content: "" }))).toBe(false)
    })
  })

  describe("isTool", () => {
    it("is true only for tool messages", () => {
      expect(Message.isTool(Message.tool({ toolCallId: "c", toolName: "t", content: "" }))).toBe(true)
      expect(Message.isTool(Message.system("a"))).toBe(false)
      expect(Message.isTool(Message.assistant("a"))).toBe(false)
    })
  })
})
