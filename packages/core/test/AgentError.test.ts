import { describe, expect, it } from "vitest"
import { AgentError, AgentState, StopReason, StopSignal, Truncation } from "@hookline/core"
import { hostileThrows } from "./hostile.js"

describe("AgentError", () => {
  describe("messageOf", () => {
    it.each(hostileThrows())("gives a text for %s, never a throw", (_, cause) => {
      const message = AgentError.messageOf(cause)
      expect(typeof message).toBe("string")
      expect(message.length).toBeGreaterThan(0)
    })

    it("reads the message of an Error, a string, and JSON of other values as before", () => {
      expect(AgentError.messageOf(new Error("boom"))).toBe("boom")
      expect(AgentError.messageOf("plain")).toBe("plain")
      expect(AgentError.messageOf({ code: 7 })).toBe('{"code":7}')
      expect(AgentError.messageOf(undefined)).toBe("undefined")
      expect(AgentError.messageOf(10n)).toBe("10")
    })

    it("reads a message getter once", () => {
      let reads = 0
      const cause = { get message() {
        reads++
        return "once"
      } }
      expect(AgentError.messageOf(cause)).toBe("once")
      expect(reads).toBe(1)
    })

    it("bounds a 5 MB message with the truncation marker", () => {
      const message = AgentError.messageOf(new Error("x".repeat(5_000_000)))
      expect(message.length).toBeLessThan(Truncation.defaultMaxLength + 100)
      expect(Truncation.of(message)).toEqual({ length: 5_000_000, limit: Truncation.defaultMaxLength })
    })
  })

  describe("constructors", () => {
    it("bound every message made from outside text: hookFailed, toolFailed, inferenceFailed, toolBlocked", () => {
      const huge = "y".repeat(5_000_000)
      const errors = [
        AgentError.hookFailed("h", "BeforeStep", new Error(huge)),
        AgentError.toolFailed("c", "t", huge),
        AgentError.inferenceFailed(huge),
        AgentError.toolBlocked("c", "t", huge),
      ]
      for (const error of errors) expect(error.message.length).toBeLessThan(Truncation.defaultMaxLength + 200)
      expect((errors[3] as AgentError.ToolBlocked).reason.length).toBeLessThan(Truncation.defaultMaxLength + 100)
    })

    it("keep a short message as it is", () => {
      expect(AgentError.inferenceFailed("short").message).toBe("short")
      const error = AgentError.toolFailed("c", "t", "short")
      expect(AgentError.bounded(error)).toBe(error)
    })
  })

  describe("a 5 MB error in the state", () => {
    it("is stored bounded, once as the error and once as the stop signal made from it", () => {
      const huge = { _tag: "InferenceFailed", message: "z".repeat(5_000_000), status: undefined, retryable: false } as const
      const state = AgentState.withStopSignal(
        AgentState.addError(AgentState.make(), huge),
        StopSignal.make(StopReason.ErrorForbade, huge.message, "loop"),
      )
      expect(JSON.stringify(state).length).toBeLessThan(3 * Truncation.defaultMaxLength)
      expect(Truncation.of(state.execution.errors[0]?.message)?.length).toBe(5_000_000)
      expect(Truncation.of(state.execution.stopSignals[0]?.message)?.length).toBe(5_000_000)
    })
  })
})
