import { describe, expect, it } from "vitest"
import * as t from "io-ts"
import { AgentBuilder, Tool, UseDriver, UseLoopOptions, UseTools } from "@hookline/agent"
import { PiiRedaction, UsePiiRedaction } from "@hookline/middleware"
import { HookLaws, ScriptedDriver } from "@hookline/testing"
import type { AgentState } from "@hookline/core"

const lookup = Tool.make({
  name: "lookup",
  parameters: t.type({}),
  execute: () => ({ name: "Ada", email: "ada@example.com", phone: "+44 20 7946 0958", notes: ["card 4111 1111 1111 1111"] }),
})

const everything = (state: AgentState) => JSON.stringify([...state.context.messages])

describe("PiiRedaction", () => {
  describe("redact", () => {
    it.each([
      ["mail ada.lovelace+x@mail.example.co.uk now", "mail [REDACTED:email] now"],
      ["call +1 (415) 555-0134 or 020 7946 0958", "call [REDACTED:phone] or [REDACTED:phone]"],
      ["card 4111-1111-1111-1111 ok", "card [REDACTED:card] ok"],
      ["order 4111 1111 1111 1112 stays (no Luhn)", "order 4111 1111 1111 1112 stays (no Luhn)"],
      ["key sk-proj-abcdefghijklmnopqrstuvwx1234", "key [REDACTED:apiKey]"],
      ["aws AKIAIOSFODNN7EXAMPLE", "aws [REDACTED:apiKey]"],
      ["gh ghp_abcdefghijklmnopqrstuvwxyz0123456789", "gh [REDACTED:apiKey]"],
      ["Authorization: Bearer abcdefghijklmnopqrstuvwxyz.123", "Authorization: [REDACTED:apiKey]"],
      ["version 1.2.3, on 2024-01-05, 42 items", "version 1.2.3, on 2024-01-05, 42 items"],
    ])("%s", (input, expected) => {
      expect(PiiRedaction.redact(input)).toBe(expected)
      expect(PiiRedaction.redact(expected)).toBe(expected)
    })

    it("checks card numbers with Luhn", () => {
      expect(PiiRedaction.luhn("4111111111111111")).toBe(true)
      expect(PiiRedaction.luhn("4111111111111112")).toBe(false)
      expect(PiiRedaction.luhn("79927398713")).toBe(true)
    })
  })

  describe("use", () => {
    it("redacts tool results before the model reads them and responses before they are committed", async () => {
      const driver = ScriptedDriver.make([
        ScriptedDriver.toolCalls([{ name: "lookup", arguments: {} }]),
        ScriptedDriver.text("Write to ada@example.com, key sk-ant-abcdefghijklmnopqrstuvwxyz"),
      ])
      const final = await AgentBuilder.make(UseDriver(driver), UseTools([lookup]), UsePiiRedaction()).run("who?")
      const seenByModel = JSON.stringify([...(driver.requests[1]?.messages ?? [])])
      expect(seenByModel).not.toContain("ada@example.com")
      expect(seenByModel).not.toContain("4111")
      expect(seenByModel).toContain("[REDACTED:email]")
      expect(seenByModel).toContain("[REDACTED:card]")
      expect(seenByModel).toContain("[REDACTED:phone]")
      expect(everything(final)).not.toContain("ada@example.com")
      expect(final.context.messages.at(-1)?.content).toBe("Write to [REDACTED:email], key [REDACTED:apiKey]")
    })

    it("keeps streamed text clean with textDeltas auto, not with live", async () => {
      const answer = () => ScriptedDriver.make([ScriptedDriver.text("mail me at bob@example.org", { chunks: ["mail me at bob@", "example.org"] })])
      const streamed = async (live: boolean) => {
        const agent = AgentBuilder.make(UseDriver(answer()), UsePiiRedaction(), ...(live ? [UseLoopOptions({ textDeltas: "live" })] : []))
        let text = ""
        for await (const event of agent.stream("hi")) if (event._tag === "TextDelta") text += event.text
        return text
      }
      expect(await streamed(false)).toBe("mail me at [REDACTED:email]")
      expect(await streamed(true)).toBe("mail me at bob@example.org")
    })

    it("refuses bad options", () => {
      expect(() => UsePiiRedaction({ kinds: ["ssn" as never] })).toThrow(/options\.kinds\[0\]/)
    })
  })

  describe("make", () => {
    it("obeys the laws of hooks and is idempotent", () => {
      HookLaws.check(PiiRedaction.make(), { name: PiiRedaction.name, triggers: ["AfterToolUse", "AfterInference"], idempotent: true })
    })
  })
})
