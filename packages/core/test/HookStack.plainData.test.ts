// A hook's return is held, in what it changed, to the rule the agent's entry holds a
// caller's state to: plain data (no Proxy, no accessor, no hidden property, no odd
// prototype), and strings within Json.maxStringLength.
import { describe, expect, it } from "vitest"
import { AgentError, AgentState, Hook, HookContext, HookStack, Json, Message } from "@hookline/core"
import { caught } from "./caught.js"

const state = AgentState.make({ id: "s", messages: [Message.user("hi")] })
const stepCtx = HookContext.make({ trigger: "BeforeStep", state, createdAt: 100 })


const run = (hook: Hook) => HookStack.run(HookStack.with(HookStack.empty, hook, { triggers: "BeforeStep", name: "odd" }), stepCtx)

const withStateMetadata = (metadata: unknown): Hook => (ctx) =>
  ({ ...ctx, state: { ...ctx.state, metadata } }) as unknown as HookContext.HookContext

const getter = Object.defineProperty({}, "a", { get: () => 1, enumerable: true })
const arrayGetter = Object.defineProperty([0], 0, { get: () => 1, enumerable: true })
const hidden = Object.defineProperty({ a: 1 }, "b", { value: 2, enumerable: false })
class Odd {
  a = 1
}

export const oddValues: ReadonlyArray<readonly [string, unknown, RegExp]> = [
  ["an own getter", { x: getter }, /accessor/],
  ["a getter at an array index", { x: arrayGetter }, /accessor/],
  ["a Proxy", { x: new Proxy({ a: 1 }, {}) }, /Proxy/],
  ["a class instance", { x: new Odd() }, /prototype|expected a JSON value/],
  ["an object with an odd prototype", { x: Object.create({ inherited: 1 }) as object }, /prototype|expected a JSON value/],
  ["an array with an odd prototype", { x: Object.setPrototypeOf([1], Object.create(Array.prototype) as object) as unknown }, /prototype/],
  ["a hidden property", { x: hidden }, /hidden/],
]

describe("a hook's return holds plain data in what it changed", () => {
  for (const [name, value, what] of oddValues) {
    it(`refuses ${name} in the state's metadata, naming the hook`, () => {
      const error = caught(() => run(withStateMetadata(value)))
      expect(error).toMatchObject({ _tag: "HookFailed", hook: "odd", trigger: "BeforeStep" })
      expect(error.message).toMatch(what)
      expect(error.message).toContain("state.metadata")
    })
    it(`refuses ${name} frozen in the context's metadata`, () => {
      const error = caught(() => run((ctx) => Object.freeze({ ...ctx, metadata: Object.freeze(value) }) as unknown as HookContext.HookContext))
      expect(error).toMatchObject({ _tag: "HookFailed", hook: "odd" })
      expect(error.message).toMatch(what)
    })
  }

  it("refuses a getter on a shell it returned (the state)", () => {
    const error = caught(() =>
      run((ctx) => {
        const st = { ...ctx.state }
        const metadata = ctx.state.metadata
        Object.defineProperty(st, "metadata", { get: () => metadata, enumerable: true })
        return { ...ctx, state: st } as unknown as HookContext.HookContext
      })
    )
    expect(error).toMatchObject({ _tag: "HookFailed", hook: "odd" })
    expect(error.message).toMatch(/accessor/)
  })

  it("refuses a Proxy over the context it returned", () => {
    const error = caught(() => run((ctx) => new Proxy({ ...ctx, metadata: { a: 1 } }, {}) as HookContext.HookContext))
    expect(error).toMatchObject({ _tag: "HookFailed", hook: "odd" })
    expect(error.message).toMatch(/Proxy/)
  })

  it("refuses a hidden property on the execution it returned", () => {
    const error = caught(() =>
      run((ctx) => {
        const execution = Object.defineProperty({ ...ctx.state.execution }, "secret", { value: "x".repeat(10), enumerable: false })
        return { ...ctx, state: { ...ctx.state, execution } } as unknown as HookContext.HookContext
      })
    )
    expect(error).toMatchObject({ _tag: "HookFailed", hook: "odd" })
    expect(error.message).toMatch(/hidden/)
  })

  it("refuses a systemPrompt or parentId past Json.maxStringLength", () => {
    const long = "x".repeat(Json.maxStringLength + 1)
    const prompt = caught(() => run((ctx) => ({ ...ctx, state: { ...ctx.state, context: { ...ctx.state.context, systemPrompt: long } } })))
    expect(prompt).toMatchObject({ _tag: "HookFailed", hook: "odd" })
    expect(prompt.message).toContain("state.context.systemPrompt")
    const parent = caught(() => run((ctx) => ({ ...ctx, state: { ...ctx.state, parentId: long } })))
    expect(parent).toMatchObject({ _tag: "HookFailed", hook: "odd" })
    expect(parent.message).toContain("state.parentId")
  })

  it("still takes plain data, null-prototype objects and a string at the bound", () => {
    const bare = Object.assign(Object.create(null) as Record<string, Json.JsonValue>, { a: [1, { b: 2 }] })
    const out = run((ctx) => ({ ...ctx, metadata: { bare }, state: { ...ctx.state, parentId: "p".repeat(Json.maxStringLength) } }))
    expect(out.metadata["bare"]).toEqual({ a: [1, { b: 2 }] })
    expect(out.state.parentId?.length).toBe(Json.maxStringLength)
  })

  it("does not look at what the hook did not change", () => {
    expect(run((ctx) => ctx)).toBe(stepCtx)
  })
})
