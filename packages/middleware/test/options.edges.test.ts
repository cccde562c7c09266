// The built-ins' options are checked where they enter (branch edges3): each bad value is
// a HooklineError(InvalidConfiguration) naming its path, thrown when the capability or the
// hook is made; never a TypeError, never a value accepted at the build that fails every
// run, never a limit that silently does not apply. The property test in
// options.prop.test.ts generates these classes over every built-in.
import { AgentBuilder, Tool, UseDriver, UseTools } from "@hookline/agent"
import { AgentError, Codecs, Json } from "@hookline/core"
import { ScriptedDriver } from "@hookline/testing"
import { Duration } from "effect"
import * as t from "io-ts"
import { describe, expect, it } from "vitest"
import {
  Approval,
  ClearToolResults,
  CostBudget,
  Fallback,
  ModelCallLimit,
  PiiRedaction,
  Retry,
  Summarization,
  Timeout,
  ToolCallLimit,
  UseApproval,
  UsePiiRedaction,
  UseSlidingWindow,
  UseToolCallLimit,
} from "../src/index.js"

const invalidAt = (f: () => unknown): AgentError.InvalidConfiguration => {
  try {
    f()
  } catch (error) {
    if (error instanceof AgentError.HooklineError && error.error._tag === "InvalidConfiguration") return error.error
    throw error
  }
  throw new Error("expected a HooklineError(InvalidConfiguration), but nothing was thrown")
}

const maxItems = Codecs.defaultLimits.maxItems
const long = "x".repeat(Json.maxStringLength + 1)
const driver = () => ScriptedDriver.make([ScriptedDriver.text("ok")])

describe("ToolCallLimit's perTool", () => {
  it("refuses null, naming it (it threw a TypeError)", () => {
    expect(invalidAt(() => ToolCallLimit.make({ perTool: null as never })).path).toBe("options.perTool")
  })

  it("holds a limit on a tool named __proto__ (the entry was dropped and the tool ran unlimited)", async () => {
    const ran: Array<string> = []
    const proto = Tool.make({ name: "__proto__", parameters: t.type({}), execute: () => (ran.push("__proto__"), "ok") })
    const perTool = JSON.parse('{"__proto__": 1}') as Record<string, number>
    const calls = ScriptedDriver.toolCalls([{ name: "__proto__", arguments: {} }, { name: "__proto__", arguments: {} }])
    const final = await AgentBuilder.make(
      UseDriver(ScriptedDriver.make([calls, ScriptedDriver.text("done")])),
      UseTools([proto]),
      UseToolCallLimit({ total: 10, perTool }),
    ).run("go")
    expect(ran).toEqual(["__proto__"])
    expect([...final.context.messages].filter((m) => m.role === "tool" && m.isError)).toHaveLength(1)
  })

  it("takes a perTool with only __proto__ as a limit (it was refused as 'expected total, perTool or both')", () => {
    expect(() => ToolCallLimit.make({ perTool: JSON.parse('{"__proto__": 1}') as Record<string, number> })).not.toThrow()
  })
})

describe("UseSlidingWindow's errors", () => {
  it.each([
    ["a bigint", 10n],
    ["a cycle", (() => {
      const o: Record<string, unknown> = {}
      o["self"] = o
      return o
    })()],
  ])("names maxMessages for %s (JSON.stringify threw a TypeError)", (_, value) => {
    expect(invalidAt(() => UseSlidingWindow({ maxMessages: value as never })).path).toBe("maxMessages")
  })

  it("shows an excerpt of a bad value, not all of it", () => {
    expect(invalidAt(() => UseSlidingWindow({ maxMessages: "y".repeat(1_000_000) as never })).message.length).toBeLessThan(500)
  })
})

describe("Approval's options", () => {
  it.each([
    ["payload that is not a function", { tools: ["x"], payload: {} }, "payload"],
    ["reason that is neither a string nor a function", { tools: ["x"], reason: 42 }, "reason"],
    ["misspelt key (expireIn: the approval would never expire)", { tools: ["x"], expireIn: "1 hour" }, "expireIn"],
    ["reason past Json.maxStringLength", { tools: ["x"], reason: long }, "reason"],
  ])("refuses a %s, naming it", (_, options, path) => {
    expect(invalidAt(() => Approval.make(options as never)).path).toBe(path)
    expect(invalidAt(() => UseApproval(options as never)).path).toBe(path)
  })

  it.each([
    ["a misspelt unit ({ hour: 2 })", { hour: 2 }],
    ["a RegExp", /2 hours/g],
    ["a Date", new Date(0)],
    ["a unit that is not a number ({ hours: \"2\" })", { hours: "2" }],
    ["a negative unit", { hours: -1 }],
  ])("refuses an expiresIn of %s (Effect read an unknown key or a non-plain object as 0 ms, the approval expiring at once, and coerced a string)", (_, expiresIn) => {
    expect(invalidAt(() => Approval.make({ tools: ["x"], expiresIn: expiresIn as never })).path).toBe("expiresIn")
  })

  it("still takes a duration object, a Duration, a string and a number", () => {
    for (const expiresIn of [{ hours: 2, minutes: 30 }, {}, Duration.hours(2), "2 hours", 5_000]) {
      expect(() => Approval.make({ tools: ["x"], expiresIn: expiresIn as never })).not.toThrow()
    }
  })

  it("refuses options that are not an object (it threw a TypeError)", () => {
    expect(invalidAt(() => Approval.make(null as never)).path).toBe("")
  })

  it("refuses a misspelt key of forTool", () => {
    const refund = Tool.make({ name: "refund", parameters: t.type({ amount: t.number }), execute: () => "ok" })
    expect(invalidAt(() => Approval.forTool(refund, { expireIn: "1 hour" } as never)).path).toBe("expireIn")
  })
})

describe("lists with holes", () => {
  const hole = <A>(...items: ReadonlyArray<A>): Array<A> => {
    const out: Array<A> = []
    out.length = 1
    out.push(...items)
    return out
  }
  it.each([
    ["fallbackModels' models", () => Fallback.fallbackModels(hole(driver())), "fallbackModels.models[0]"],
    ["toolRetry's tools", () => Retry.toolRetry({ tools: hole("search") }), "toolRetry.tools[0]"],
    ["modelRetry's statuses", () => Retry.modelRetry({ statuses: hole(500) }), "modelRetry.statuses[0]"],
    ["toolTimeout's tools", () => Timeout.toolTimeout({ ms: 5, tools: hole("search") }), "toolTimeout.tools[0]"],
    ["ClearToolResults' exclude", () => ClearToolResults.make({ exclude: hole("plan") }), "options.exclude[0]"],
    ["Approval's tools", () => Approval.make({ tools: hole("refund") }), "tools[0]"],
  ])("refuses a hole in %s, naming it (it was skipped)", (_, make, path) => {
    expect(invalidAt(make).path).toBe(path)
  })
})

describe("lists past the codecs' maxItems", () => {
  it.each([
    ["PiiRedaction's kinds", () => UsePiiRedaction({ kinds: Array(maxItems + 1).fill("email") }), "options.kinds"],
    ["modelRetry's statuses", () => Retry.modelRetry({ statuses: Array(maxItems + 1).fill(500) }), "modelRetry.statuses"],
    ["toolRetry's tools", () => Retry.toolRetry({ tools: Array(maxItems + 1).fill("search") }), "toolRetry.tools"],
  ])("refuses %s, naming the limit", (_, make, path) => {
    const error = invalidAt(make)
    expect(error.path).toBe(path)
    expect(error.message).toContain(`at most ${maxItems} items (the maxItems limit)`)
  })

  it("refuses a sparse array of 2^32 - 1 slots before reading it (it ran for minutes, then the heap ran out)", () => {
    expect(invalidAt(() => UsePiiRedaction({ kinds: new Array(2 ** 32 - 1) })).path).toBe("options.kinds")
    expect(invalidAt(() => ClearToolResults.make({ exclude: new Array(2 ** 32 - 1) })).path).toBe("options.exclude")
  })
})

describe("texts past Json.maxStringLength", () => {
  it.each([
    ["ModelCallLimit's message", () => ModelCallLimit.make({ max: 0, onLimit: "answer", message: long }), "options.message"],
    ["ClearToolResults' placeholder", () => ClearToolResults.make({ placeholder: long }), "options.placeholder"],
    ["Summarization's prompt", () => Summarization.make({ driver: driver(), maxTokens: 10, prompt: long }), "options.prompt"],
  ])("refuses %s when it is made (the state holds no longer string: every run would fail)", (_, make, path) => {
    const error = invalidAt(make)
    expect(error.path).toBe(path)
    expect(error.message).toContain(`${Json.maxStringLength}`)
  })

  it("holds CostBudget's currency to the same bound (not a defect: its stop message is cut; one rule for every text)", () => {
    expect(invalidAt(() => CostBudget.make({ maxCost: 1, prices: {}, currency: long })).path).toBe("options.currency")
  })

  it("takes ModelCallLimit's message at the bound", () => {
    expect(() => ModelCallLimit.make({ max: 0, onLimit: "answer", message: "m".repeat(Json.maxStringLength) })).not.toThrow()
  })
})

describe("PiiRedaction", () => {
  it("still names a kind it does not know", () => {
    expect(invalidAt(() => PiiRedaction.make({ kinds: ["ssn" as never] })).path).toBe("options.kinds[0]")
  })
})
