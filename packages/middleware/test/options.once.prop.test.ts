// Every built-in reads each field of the caller's options once, and uses what it
// checked (branch tidy4). A getter may answer differently the second time: the retry,
// timeout and fallback capabilities checked `name`/`priority`, then read them again from
// the caller's object for the stack (a name that passed was not the one registered, a
// second answer that was not a string was refused after all); UseApproval read them
// again after its check; UseModelRetry read every field twice.
import * as t from "io-ts"
import { AgentBuilder, Tool, UseDriver, UseTools } from "@hookline/agent"
import { HookStack, Json } from "@hookline/core"
import { ScriptedDriver } from "@hookline/testing"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  UseApproval,
  UseClearToolResults,
  UseCostBudget,
  UseFallbackModels,
  UseModelCallLimit,
  UseModelRetry,
  UseModelTimeout,
  UseOutput,
  UsePiiRedaction,
  UseSlidingWindow,
  UseSummarization,
  UseToolCallLimit,
  UseToolRetry,
  UseToolTimeout,
} from "../src/index.js"

const driver = ScriptedDriver.make([ScriptedDriver.text("ok")])
const refund = Tool.make({ name: "refund", description: "Refunds", parameters: t.type({ amount: t.number }), execute: () => "done" })

interface Built {
  readonly name: string
  readonly make: (options: Record<string, unknown>) => AgentBuilder.Capability
  readonly base: Record<string, unknown>
}

// The built-ins that take the caller's `name` and `priority` for their place in the stack.
const placed: ReadonlyArray<Built> = [
  { name: "UseModelRetry", make: (o) => UseModelRetry(o as never), base: { maxAttempts: 2 } },
  { name: "UseToolRetry", make: (o) => UseToolRetry(o as never), base: { tools: ["search"] } },
  { name: "UseModelTimeout", make: (o) => UseModelTimeout(o as never), base: { ms: 10 } },
  { name: "UseToolTimeout", make: (o) => UseToolTimeout(o as never), base: { ms: 10, tools: ["search"] } },
  { name: "UseFallbackModels", make: (o) => UseFallbackModels([driver], o as never), base: { when: () => true } },
  { name: "UseApproval", make: (o) => UseApproval(o as never), base: { tools: ["refund"] } },
  { name: "UseApproval.forTool", make: (o) => UseApproval.forTool(refund, o as never), base: { reason: "big" } },
  { name: "UseSlidingWindow", make: (o) => UseSlidingWindow(o as never), base: { maxMessages: 3 } },
]

// The others: their place is their own, every other field is the caller's.
const unplaced: ReadonlyArray<Built> = [
  { name: "UseToolCallLimit", make: (o) => UseToolCallLimit(o as never), base: { total: 5, perTool: { search: 2 }, onLimit: "stop" } },
  { name: "UseModelCallLimit", make: (o) => UseModelCallLimit(o as never), base: { max: 3, onLimit: "answer", message: "done" } },
  { name: "UseClearToolResults", make: (o) => UseClearToolResults(o), base: { keep: 1, placeholder: "[cleared]", exclude: ["search"] } },
  { name: "UsePiiRedaction", make: (o) => UsePiiRedaction(o as never), base: { kinds: ["email"], on: ["toolResults"] } },
  {
    name: "UseCostBudget",
    make: (o) => UseCostBudget(o as never),
    base: { maxCost: 1, prices: { m: { input: 1, output: 1 } }, unknownModel: "free", currency: "USD" },
  },
  { name: "UseSummarization", make: (o) => UseSummarization(o as never), base: { driver, maxTokens: 100, keep: 2, prompt: "Sum up." } },
  { name: "UseOutput", make: (o) => UseOutput(t.type({ a: t.string }), o) as unknown as AgentBuilder.Capability, base: { retries: 1 } },
]

// A later answer that is a throw, not a value.
const throws = Symbol("throws")

/**
 * `values` as an object of getters (own, enumerable, as an object literal's): each key
 * answers its first value, then `later`'s for that key on every later read (`throws`:
 * the getter throws); `reads` counts the reads of each key.
 */
const answering = (values: Record<string, unknown>, later: Record<string, unknown> = {}) => {
  const reads: Record<string, number> = {}
  const options: Record<string, unknown> = {}
  for (const key of Object.keys(values)) {
    reads[key] = 0
    Object.defineProperty(options, key, {
      enumerable: true,
      get: () => {
        reads[key] = reads[key]! + 1
        if (reads[key] === 1 || !(key in later)) return values[key]
        if (later[key] === throws) throw new Error(`${key} read twice`)
        return later[key]
      },
    })
  }
  return { options, reads }
}

/** The capability's hook or wrap as the stack registers it. */
const registered = (capability: AgentBuilder.Capability): { readonly name: string; readonly priority: number } => {
  switch (capability._tag) {
    case "UseHook":
      return HookStack.with(HookStack.empty, capability.hook, capability.options).registrations[0]!
    case "UseWrap":
      return HookStack.withWrap(HookStack.empty, capability.wrap, capability.options).wrapRegistrations[0]!
    default:
      throw new Error(`not a hook or a wrap: ${capability._tag}`)
  }
}

const longText = "x".repeat(Json.maxStringLength + 1)
const validName = fc.string({ minLength: 1, maxLength: 20 }).filter((s) => s.trim() !== "")
// What a getter answers the second time: past the bound, not a string, a throw, or another valid one.
const laterName = fc.oneof(fc.constant<unknown>(longText), fc.constantFrom<unknown>(42, null, "", "  ", {}, ["a"], throws), validName)
const laterPriority = fc.oneof(fc.constantFrom<unknown>(Number.NaN, Number.POSITIVE_INFINITY, "1", null, {}, throws), fc.integer())

describe("a built-in reads each option once and registers what it checked", () => {
  it.each(placed)("$name: a name and a priority whose getters answer otherwise the second time", ({ make, base }) => {
    fc.assert(
      fc.property(validName, fc.integer({ min: -1000, max: 1000 }), laterName, laterPriority, (name, priority, name2, priority2) => {
        const { options, reads } = answering({ ...base, name, priority }, { name: name2, priority: priority2 })
        const registration = registered(make(options))
        expect({ name: registration.name, priority: registration.priority }).toEqual({ name, priority })
        expect(reads).toEqual(Object.fromEntries(Object.keys(reads).map((key) => [key, 1])))
      }),
      { numRuns: 30 },
    )
  })

  it.each([...placed, ...unplaced])("$name: every field is read once", ({ make, base }) => {
    const { options, reads } = answering(base)
    registered(make(options))
    expect(reads).toEqual(Object.fromEntries(Object.keys(base).map((key) => [key, 1])))
  })
})

// The tool of `UseApproval.forTool` and the tools of `decode` are the caller's objects
// too (branch tidy5): `Tool.isTool` checked a tool's shape, then its `name` was read again
// for the registration and on every call asked about (`call.name !== tool.name`), so a
// getter that answered "refund" to the check and another name later let every refund run
// unasked. A tool is read once, field by field, when the hook is made.
describe("an approval reads its tool once", () => {
  const ran: Array<number> = []
  const real = Tool.make({
    name: "refund",
    description: "Refunds",
    parameters: t.type({ amount: t.number }),
    execute: ({ amount }) => (ran.push(amount), "done"),
  })
  // `real` with a `name` that answers "refund" the first time, then "other".
  const fickle = () => {
    const reads = { name: 0 }
    const tool: Record<string, unknown> = {}
    for (const key of Object.keys(real)) {
      if (key === "name") {
        Object.defineProperty(tool, key, { enumerable: true, get: () => (++reads.name === 1 ? "refund" : "other") })
      } else {
        tool[key] = (real as unknown as Record<string, unknown>)[key]
      }
    }
    return { tool: tool as unknown as Tool.Tool<{ amount: number }>, reads }
  }
  const refundOf = (amount: number) =>
    UseDriver(ScriptedDriver.make([ScriptedDriver.toolCalls([{ id: "r1", name: "refund", arguments: { amount } }]), ScriptedDriver.text("done")]))

  it("UseApproval.forTool: the name checked is the one registered and asked about", async () => {
    const { tool, reads } = fickle()
    const capability = UseApproval.forTool(tool, { when: (args) => args.amount > 100 })
    expect(registered(capability).name).toBe("approval:suspend:refund")
    const state = await AgentBuilder.make(refundOf(500), UseTools([real]), capability).run("refund")
    expect(state.execution.status).toBe("suspended")
    expect(state.execution.pendingCalls?.map((p) => p.toolCall.name)).toEqual(["refund"])
    expect(reads.name).toBe(1)
  })

  it("UseApproval's decode: the tool is keyed and decoded by the name read once", async () => {
    const { tool, reads } = fickle()
    const capability = UseApproval({ decode: [tool], when: (call) => (call.decoded as { amount: number } | undefined)?.amount === 500 })
    const state = await AgentBuilder.make(refundOf(500), UseTools([real]), capability).run("refund")
    expect(state.execution.status).toBe("suspended")
    expect(reads.name).toBe(1)
  })

  it.each([
    ["a revoked Proxy", () => { const p = Proxy.revocable({}, {}); p.revoke(); return p.proxy }, "tool"],
    ["a Proxy whose traps throw", () => new Proxy({}, { get: () => { throw new Error("no") }, has: () => { throw new Error("no") } }), "tool"],
    ["a name past Json.maxStringLength", () => ({ ...real, name: longText }), "tool.name"],
  ])("UseApproval.forTool refuses %s with InvalidConfiguration at its path", (_, make, path) => {
    expect(() => UseApproval.forTool(make() as never, {})).toThrow(expect.objectContaining({ error: expect.objectContaining({ _tag: "InvalidConfiguration", path }) }))
  })

  it.each([
    ["a revoked Proxy", () => { const p = Proxy.revocable({}, {}); p.revoke(); return p.proxy }, "decode[0]"],
    ["a name past Json.maxStringLength", () => ({ ...real, name: longText }), "decode[0].name"],
  ])("UseApproval's decode refuses %s with InvalidConfiguration at its path", (_, make, path) => {
    expect(() => UseApproval({ decode: [make() as never], when: () => true })).toThrow(expect.objectContaining({ error: expect.objectContaining({ _tag: "InvalidConfiguration", path }) }))
  })
})
