import { describe, expect, it } from "vitest"
import * as t from "io-ts"
import { AgentBuilder, Tool, UseContextConfig, UseDriver, UseTools } from "@hookline/agent"
import { Summarization, UseSummarization } from "@hookline/middleware"
import { ScriptedDriver } from "@hookline/testing"

// Each result is about 100 tokens (400 characters).
const fetchPage = Tool.make({ name: "fetch_page", parameters: t.type({ n: t.number }), execute: ({ n }) => `page ${n}: ${"lorem ".repeat(66)}` })
const call = (n: number) => ScriptedDriver.toolCalls([{ name: "fetch_page", arguments: { n } }])

describe("Summarization", () => {
  describe("UseSummarization", () => {
    it("summarizes the older part past the token count, for the model's view only, and keeps the summary in the state", async () => {
      const summarizer = ScriptedDriver.make([ScriptedDriver.text("SUMMARY-1"), ScriptedDriver.text("SUMMARY-2")])
      const driver = ScriptedDriver.make([call(1), call(2), call(3), call(4), call(5), ScriptedDriver.text("done")])
      const final = await AgentBuilder.make(
        UseDriver(driver),
        UseTools([fetchPage]),
        UseContextConfig({ systemPrompt: "You read pages." }),
        UseSummarization({ driver: summarizer, maxTokens: 300, keep: 2 }),
      ).run("read five pages")

      expect(final.execution.status).toBe("completed")
      // The state keeps every message.
      expect(final.context.messages.length).toBe(12)
      // The first call that went past 300 tokens got a summary and the latest messages.
      const first = driver.requests.findIndex((r) => r.systemPrompt.includes("SUMMARY-1"))
      expect(first).toBeGreaterThan(0)
      expect(driver.requests[first]?.systemPrompt).toBe("You read pages.\n\nSummary of the earlier conversation:\nSUMMARY-1")
      expect(driver.requests[first]?.messages.length).toBeLessThan(first * 2 + 1)
      expect(driver.requests[first]?.messages.at(0)?.role).not.toBe("tool")
      // The summarizer read the older messages, tool results included.
      const asked = summarizer.requests[0]?.messages.at(0)?.content ?? ""
      expect(asked).toContain("user: read five pages")
      expect(asked).toContain("tool fetch_page: page 1")
      expect(summarizer.requests[0]?.systemPrompt).toBe(Summarization.defaultPrompt)
      // The summary is in the state, with how many messages it covers.
      const kept = Summarization.summaryOf(final)
      expect(kept?.text).toMatch(/^SUMMARY-/)
      expect(kept!.count).toBeGreaterThan(0)
      // Every request stayed under the limit once summarized, or carried a summary.
      for (const request of driver.requests.slice(first)) {
        expect(request.systemPrompt).toContain("Summary of the earlier conversation")
      }
    })

    it("sends the request as it is when the summarizer fails", async () => {
      const summarizer = ScriptedDriver.make([ScriptedDriver.failure("overloaded"), ScriptedDriver.failure("overloaded"), ScriptedDriver.failure("overloaded")])
      const driver = ScriptedDriver.make([call(1), call(2), call(3), ScriptedDriver.text("done")])
      const final = await AgentBuilder.make(
        UseDriver(driver),
        UseTools([fetchPage]),
        UseSummarization({ driver: summarizer, maxTokens: 150, keep: 1 }),
      ).run("go")
      expect(final.execution.status).toBe("completed")
      expect(summarizer.requests.length).toBeGreaterThan(0)
      expect(driver.requests.at(-1)?.messages.length).toBe(final.context.messages.length - 1)
      expect(Summarization.summaryOf(final)).toBeUndefined()
    })

    it("refuses bad options", () => {
      expect(() => UseSummarization({ driver: {} as never, maxTokens: 10 })).toThrow(/options\.driver/)
      expect(() => UseSummarization({ driver: ScriptedDriver.make([]), maxTokens: 0 })).toThrow(/options\.maxTokens/)
    })
  })
})
