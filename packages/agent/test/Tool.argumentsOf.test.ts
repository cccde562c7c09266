import { AgentError, Json, ToolCall } from "@hookline/core"
import * as t from "io-ts"
import { describe, expect, it } from "vitest"
import * as z from "zod"
import { Tool } from "@hookline/agent"

// A zod schema that coerces, and counts how often it decodes.
const counted = () => {
  let decodes = 0
  const amount = z.coerce.number().transform((n) => (decodes++, n))
  const tool = Tool.make({
    name: "refund",
    parameters: z.object({ amount, note: z.string().default("none") }),
    execute: ({ amount }) => amount,
  })
  return { tool, decodes: () => decodes }
}

describe("Tool", () => {
  describe("argumentsOf", () => {
    it("gives the arguments as the tool decodes them: coerced, transformed, with defaults", () => {
      const { tool } = counted()
      const call = ToolCall.make({ id: "c1", name: "refund", arguments: { amount: "500" } })
      expect(Tool.argumentsOf(tool, call)).toEqual({ amount: 500, note: "none" })
      // The call keeps the model's raw JSON.
      expect(call.arguments).toEqual({ amount: "500" })
    })

    it("decodes a frozen call once per tool, and an edited call (a new object) again", () => {
      const { tool, decodes } = counted()
      const call = ToolCall.make({ id: "c1", name: "refund", arguments: { amount: "500" } })
      const first = Tool.argumentsOf(tool, call)
      expect(Tool.argumentsOf(tool, call)).toBe(first)
      expect(decodes()).toBe(1)
      // A tool copied by the builder (its own maxOutputLength) shares the memo.
      expect(Tool.argumentsOf(Object.freeze({ ...tool, maxOutputLength: 10 }), call)).toBe(first)
      expect(decodes()).toBe(1)
      const edited = ToolCall.make({ ...call, arguments: { amount: "50" } })
      expect(Tool.argumentsOf(tool, edited)).toEqual({ amount: 50, note: "none" })
      expect(decodes()).toBe(2)
    })

    it("decodes a call that is not frozen each time (it could change)", () => {
      const { tool, decodes } = counted()
      const call = { id: "c1", name: "refund", arguments: { amount: "7" } } as ToolCall
      Tool.argumentsOf(tool, call)
      ;(call.arguments as { amount: string }).amount = "8"
      expect(Tool.argumentsOf(tool, call)).toEqual({ amount: 8, note: "none" })
      expect(decodes()).toBe(2)
    })

    it("is undefined for no call, another tool's call, and arguments that do not decode", () => {
      const { tool } = counted()
      expect(Tool.argumentsOf(tool, undefined)).toBeUndefined()
      expect(Tool.argumentsOf(tool, ToolCall.make({ id: "c1", name: "lookup", arguments: { amount: 1 } }))).toBeUndefined()
      expect(Tool.argumentsOf(tool, ToolCall.make({ id: "c1", name: "refund", arguments: { amount: "lots" } }))).toBeUndefined()
      // Text that is not JSON, and arguments too deep for any validator.
      expect(Tool.argumentsOf(tool, ToolCall.make({ id: "c1", name: "refund", arguments: "{amount: 5" }))).toBeUndefined()
      let deep: unknown = 1
      for (let i = 0; i < Json.maxDepth + 10; i++) deep = { a: deep }
      expect(Tool.argumentsOf(tool, { id: "c1", name: "refund", arguments: { amount: 1, deep } } as unknown as ToolCall)).toBeUndefined()
    })

    it("decodes with an io-ts codec, and is undefined when the codec refuses", () => {
      const add = Tool.make({ name: "add", parameters: t.type({ a: t.number, b: t.number }), execute: ({ a, b }) => a + b })
      expect(Tool.argumentsOf(add, ToolCall.make({ id: "c", name: "add", arguments: { a: 1, b: 2 } }))).toEqual({ a: 1, b: 2 })
      expect(Tool.argumentsOf(add, ToolCall.make({ id: "c", name: "add", arguments: { a: "1", b: 2 } }))).toBeUndefined()
    })

    it("refuses, naming the tool, a validator that answers asynchronously", () => {
      const slow = Tool.make({
        name: "slow",
        parameters: z.object({ a: z.number() }).refine(async () => true),
        execute: () => "ok",
      })
      let error: unknown
      try {
        Tool.argumentsOf(slow, ToolCall.make({ id: "c", name: "slow", arguments: { a: 1 } }))
      } catch (e) {
        error = e
      }
      expect(error).toBeInstanceOf(AgentError.HooklineError)
      expect((error as AgentError.HooklineError).error).toMatchObject({ _tag: "InvalidConfiguration", path: "parameters" })
      expect((error as AgentError.HooklineError).message).toContain('the tool "slow" validates its arguments asynchronously')
    })
  })
})
