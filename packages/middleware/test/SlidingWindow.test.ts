import fc from "fast-check"
import * as t from "io-ts"
import { describe, expect, it } from "vitest"
import { AgentError, AgentState, HookContext, InferenceRequest, Message, ToolCall } from "@hookline/core"
import { AgentBuilder, Tool, UseDriver, UseTools } from "@hookline/agent"
import { HookLaws, ScriptedDriver } from "@hookline/testing"
import { SlidingWindow, UseSlidingWindow } from "@hookline/middleware"

const call = (id: string) => ToolCall.make({ id, name: "add", arguments: {} })
const result = (id: string) => Message.tool({ toolCallId: id, toolName: "add", content: "4" })

// A history as a loop writes it: user turns, assistant tool rounds each followed by
// all their results, assistant answers; system messages anywhere.
const round: fc.Arbitrary<number | ReadonlyArray<Message>> = fc.oneof(
  fc.constant([Message.user("q")]),
  fc.constant([Message.assistant("a")]),
  fc.integer({ min: 1, max: 3 }),
  fc.constant([Message.system("s")]),
)
const history = fc.array(round, { maxLength: 12 }).map((rounds) => {
  let next = 0
  return rounds.flatMap((r): ReadonlyArray<Message> => {
    if (typeof r !== "number") return r
    const ids = Array.from({ length: r }, () => `call_${next++}`)
    return [Message.assistant("", ids.map(call)), ...ids.map(result)]
  })
})

/** Every tool result's call is in the messages, and every tool call has all its results. */
const pairsIntact = (messages: ReadonlyArray<Message>): boolean => {
  const calls = new Set(messages.flatMap((m) => (m.role === "assistant" ? m.toolCalls.map((c) => c.id) : [])))
  const results = new Set(messages.flatMap((m) => (m.role === "tool" ? [m.toolCallId] : [])))
  return [...calls].every((id) => results.has(id)) && [...results].every((id) => calls.has(id))
}

describe("SlidingWindow", () => {
  describe("window", () => {
    it("returns the messages themselves when they fit", () => {
      const messages = [Message.user("a"), Message.assistant("b")]
      expect(SlidingWindow.window(messages, 2)).toBe(messages)
    })

    it("never starts at a tool result whose call was cut", () => {
      const messages = [Message.user("q"), Message.assistant("", [call("c1"), call("c2")]), result("c1"), result("c2"), Message.assistant("done")]
      // The newest 3 start at result c1, whose call would be cut: the window starts after the round.
      expect(SlidingWindow.window(messages, 3)).toEqual([Message.assistant("done")])
      expect(SlidingWindow.window(messages, 4)).toEqual(messages.slice(1))
    })

    it("keeps the newest round whole when it alone is longer than the limit", () => {
      const messages = [Message.user("q"), Message.assistant("", [call("c1"), call("c2")]), result("c1"), result("c2")]
      expect(SlidingWindow.window(messages, 2)).toEqual(messages.slice(1))
    })

    it("keeps system messages wherever they are, uncounted", () => {
      const messages = [Message.system("rules"), Message.user("1"), Message.assistant("2"), Message.system("note"), Message.user("3")]
      expect(SlidingWindow.window(messages, 1)).toEqual([Message.system("rules"), Message.system("note"), Message.user("3")])
    })

    it("drops a tool call whose results are missing from a hand-written history", () => {
      const messages = [Message.user("q"), Message.assistant("", [call("c1")]), Message.user("again")]
      expect(SlidingWindow.window(messages, 2)).toEqual([Message.user("again")])
    })

    it("keeps pairs together, the system messages and the newest messages, within the limit", () => {
      fc.assert(
        fc.property(history, fc.integer({ min: 1, max: 8 }), (messages, max) => {
          const out = SlidingWindow.window(messages, max)
          expect(pairsIntact(out)).toBe(true)
          expect(out.filter((m) => m.role === "system")).toEqual(messages.filter((m) => m.role === "system"))
          const conversation = out.filter((m) => m.role !== "system")
          const all = messages.filter((m) => m.role !== "system")
          // A suffix of the conversation, never starting at a tool result.
          expect(conversation).toEqual(all.slice(all.length - conversation.length))
          expect(conversation[0]?.role).not.toBe("tool")
          // Within the limit, unless the newest round alone is longer.
          if (conversation.length > max) {
            expect(conversation[0]?.role).toBe("assistant")
            expect(conversation.slice(1).every((m) => m.role === "tool")).toBe(true)
          }
          // Nothing that fits is dropped: the window is as long as it can be.
          if (all.length <= max) expect(out).toBe(messages)
        }),
      )
    })
  })

  describe("make", () => {
    const hook = SlidingWindow.make({ maxMessages: 3 })

    it("obeys the hook laws, idempotent", () => {
      HookLaws.check(hook, { triggers: "BeforeInference", idempotent: true })
    })

    it("changes the request only, never the state", () => {
      const messages = [Message.user("1"), Message.assistant("2"), Message.user("3"), Message.assistant("4"), Message.user("5")]
      const state = AgentState.make({ id: "a", messages })
      const ctx = HookContext.make({ trigger: "BeforeInference", state, request: InferenceRequest.make({ systemPrompt: "Be terse.", messages }), createdAt: 0 })
      const out = hook(ctx)
      expect([...out.request!.messages]).toEqual(messages.slice(2))
      expect(out.request!.systemPrompt).toBe("Be terse.")
      expect(out.state).toBe(state)
    })

    it("refuses bad options, naming the key", () => {
      const error = (options: unknown) => {
        try {
          SlidingWindow.make(options as SlidingWindow.Options)
        } catch (e) {
          expect(e).toBeInstanceOf(AgentError.HooklineError)
          return (e as AgentError.HooklineError).error
        }
        throw new Error("no error")
      }
      expect(error({ maxMessages: 0 })).toMatchObject({ _tag: "InvalidConfiguration", path: "maxMessages" })
      expect(error({ maxMessages: 2.5 })).toMatchObject({ path: "maxMessages" })
      expect(error({ maxMessage: 3 })).toMatchObject({ path: "maxMessage" })
      expect(error({ maxMessages: 3, priority: Number.NaN })).toMatchObject({ path: "priority" })
      expect(error(undefined)).toMatchObject({ _tag: "InvalidConfiguration" })
      expect(() => UseSlidingWindow({ maxMessages: -1 })).toThrow(/maxMessages/)
    })
  })

  describe("UseSlidingWindow", () => {
    it("sends the model a window with whole tool rounds and keeps the whole history", async () => {
      const add = Tool.make({ name: "add", description: "Adds", parameters: t.type({ a: t.number, b: t.number }), execute: async ({ a, b }) => a + b })
      const driver = ScriptedDriver.make([
        ScriptedDriver.toolCalls([{ name: "add", arguments: { a: 1, b: 1 } }, { name: "add", arguments: { a: 2, b: 2 } }]),
        ScriptedDriver.toolCalls([{ name: "add", arguments: { a: 3, b: 3 } }, { name: "add", arguments: { a: 4, b: 4 } }]),
        ScriptedDriver.text("done"),
      ])
      const agent = AgentBuilder.make(UseDriver(driver), UseTools([add]), UseSlidingWindow({ maxMessages: 4 }))
      const final = await agent.run(AgentState.make({ id: "w", systemPrompt: "Be terse.", messages: [Message.user("add them")] }))
      expect(final.execution.status).toBe("completed")
      const sent = driver.requests.map((r) => [...r.messages])
      expect(sent.map((m) => m.length)).toEqual([1, 4, 3])
      for (const messages of sent) expect(pairsIntact(messages)).toBe(true)
      // The third call: the newest 4 would start at the cut round's second result.
      expect(sent[2]!.map((m) => m.role)).toEqual(["assistant", "tool", "tool"])
      expect(driver.requests.every((r) => r.systemPrompt === "Be terse.")).toBe(true)
      expect([...final.context.messages]).toHaveLength(8)
    })
  })
})
