import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { AgentError, AgentState, Codecs, Json, Message, ToolCall } from "@hookline/core"

const failureOf = <A>(result: Result.Result<A, AgentError.DecodeFailed>): AgentError.DecodeFailed => {
  if (Result.isSuccess(result)) throw new Error("expected a DecodeFailed")
  return result.failure
}

const encodedState = (messages: ReadonlyArray<unknown>) => ({
  ...(Codecs.encode(Codecs.AgentState, AgentState.make({ id: "s", messages: [Message.user("hi")] })) as object),
  context: { systemPrompt: "", messages, metadata: {} },
})

describe("Codecs (size limits and failing fast)", () => {
  describe("1e6 invalid messages", () => {
    const invalid = Array.from({ length: 1_000_000 }, () => ({ role: "robot", content: 1 }))

    it("fail with the maxItems limit, naming the path, before any message is read", () => {
      const error = failureOf(Codecs.decode(Codecs.AgentState, encodedState(invalid)))
      expect(error.path).toBe("context.messages")
      expect(error.message).toContain("expected at most 100000 items (the maxItems limit), got 1000000")
      expect(Codecs.defaultLimits.maxItems).toBe(100_000)
    })

    it("stop at the first bad message when the limit allows them: it is the only one read", () => {
      let reads = 0
      const counting = { get role() {
        reads++
        return "robot"
      }, content: "x" }
      const error = failureOf(Codecs.decode(Codecs.AgentState, encodedState(Array(1_000_000).fill(counting)), { maxItems: 2_000_000 }))
      expect(error.path).toBe("context.messages[0].role")
      expect(reads).toBe(1)
    })

    it("stop at the first bad field of a record", () => {
      let reads = 0
      const input = { id: 42, get context() {
        reads++
        return {}
      } }
      expect(failureOf(Codecs.decode(Codecs.AgentState, input)).path).toBe("id")
      expect(reads).toBe(0)
    })
  })

  describe("maxItems", () => {
    it("bounds JSON arrays and objects in metadata too", () => {
      const many = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`k${i}`, { i }]))
      const error = failureOf(Codecs.decode(Codecs.Metadata, { many }, { maxItems: 10 }))
      expect(error.path).toBe("many")
      expect(error.message).toContain("maxItems")
      expect(Result.isSuccess(Codecs.decode(Codecs.Metadata, { many }, { maxItems: 11 }))).toBe(true)
    })
  })

  describe("maxBytes", () => {
    it("refuses JSON text longer than the limit before parsing it, naming the limit", () => {
      const text = Codecs.toJson(Codecs.AgentState, AgentState.make({ messages: [Message.user("é".repeat(100))] }))
      const error = failureOf(Codecs.fromJson(Codecs.AgentState, text, { maxBytes: text.length + 50 }))
      expect(error.path).toBe("")
      expect(error.message).toContain("the maxBytes limit")
      expect(Result.isSuccess(Codecs.fromJson(Codecs.AgentState, text, { maxBytes: text.length + 100 }))).toBe(true)
      expect(failureOf(Codecs.fromJson(Codecs.AgentState, "x".repeat(101), { maxBytes: 100 })).message).toContain("maxBytes")
      expect(Codecs.defaultLimits.maxBytes).toBe(64 * 1024 * 1024)
    })
  })

  // One string may be as long as the engine allows (~1 GB): a caller's or a loaded
  // state with a 100 MB text passed the check. `repeat` makes a rope: no 100 MB here.
  describe("maxStringLength", () => {
    const long = (n = Codecs.defaultLimits.maxStringLength + 1) => "x".repeat(n)
    const withContent = (content: string) => Codecs.encode(Codecs.AgentState, AgentState.make({ id: "s", messages: [Message.user(content)] }))

    it("defaults to Json.maxStringLength, 32 Mi characters", () => {
      expect(Codecs.defaultLimits.maxStringLength).toBe(32 * 1024 * 1024)
      expect(Json.maxStringLength).toBe(Codecs.defaultLimits.maxStringLength)
    })

    const places: ReadonlyArray<readonly [string, (s: string) => unknown, string]> = [
      ["a message's text", (s) => withContent(s), "context.messages[0].content"],
      ["a 100 MB message text", () => withContent(long(100_000_000)), "context.messages[0].content"],
      ["the state's id", (s) => ({ ...(withContent("hi") as object), id: s }), "id"],
      ["the system prompt", (s) => ({ ...(withContent("hi") as object), context: { ...(withContent("hi") as any).context, systemPrompt: s } }), "context.systemPrompt"],
      ["a string in metadata", (s) => ({ ...(withContent("hi") as object), metadata: { note: [s] } }), "metadata.note[0]"],
      ["a key in metadata", (s) => ({ ...(withContent("hi") as object), metadata: { [s]: 1 } }), "metadata"],
      ["a tool call's arguments", (s) => Codecs.encode(Codecs.AgentState, AgentState.make({ id: "s", messages: [Message.assistant("", [ToolCall.make({ id: "c", name: "n", arguments: { q: "q" } })])] })), "context.messages[0].toolCalls[0].arguments.q"],
    ]

    it.each(places)("refuses %s past the limit, naming the path and the limit", (what, make, path) => {
      const input = what === "a tool call's arguments"
        ? JSON.parse(JSON.stringify(make(""))) as any
        : make(long())
      if (what === "a tool call's arguments") input.context.messages[0].toolCalls[0].arguments.q = long()
      const error = failureOf(Codecs.decode(Codecs.AgentState, input))
      expect(error.path.startsWith(path)).toBe(true)
      expect(error.message).toContain("the maxStringLength limit")
      expect(error.message.length).toBeLessThan(1_000)
      expect(Codecs.AgentState.is(input)).toBe(false)
    })

    it("takes a string at the limit, and a setting", () => {
      expect(Result.isSuccess(Codecs.decode(Codecs.AgentState, withContent(long(Codecs.defaultLimits.maxStringLength))))).toBe(true)
      const error = failureOf(Codecs.decode(Codecs.AgentState, withContent("abcdef"), { maxStringLength: 5 }))
      expect(error.path).toBe("context.messages[0].content")
      expect(error.message).toContain("expected a string of at most 5 characters (the maxStringLength limit), got 6")
      expect(Result.isSuccess(Codecs.decode(Codecs.AgentState, withContent("abcde"), { maxStringLength: 5 }))).toBe(true)
      expect(failureOf(Codecs.decode(Codecs.Metadata, { abcdef: 1 }, { maxStringLength: 5 })).path).toBe("abcdef")
    })
  })

  describe("is", () => {
    it("accepts a decoded value whose optional keys are absent", () => {
      const format = Codecs.decodeUnsafe(Codecs.ResponseFormat, { type: "json", schema: { type: "object" } })
      expect(Codecs.ResponseFormat.is(format)).toBe(true)
      expect(Codecs.ResponseFormat.is({ type: "json" })).toBe(true)
    })
  })
})
