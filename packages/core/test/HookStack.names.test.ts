import { describe, expect, it } from "vitest"
import { AgentError, type HookContext, HookStack, Json, WrapHook } from "../src/index.js"
import { caught } from "./caught.js"

// A hook's name reaches the state (a failing hook's HookFailed names it), its events and
// traces: it is held to the bound of every string that enters, when the stack is built.
const invalidAt = (f: () => unknown): AgentError.InvalidConfiguration => {
  const error = caught(f)
  if (error._tag !== "InvalidConfiguration") throw new Error(`expected InvalidConfiguration, got ${error._tag}`)
  return error
}

const observe = (ctx: HookContext) => ctx
const long = "x".repeat(Json.maxStringLength + 1)

describe("a hook's name", () => {
  it("is refused past Json.maxStringLength, naming the field", () => {
    const error = invalidAt(() => HookStack.with(HookStack.empty, observe, { triggers: "BeforeStep", name: long }))
    expect(error.path).toBe("name")
    expect(error.message).toContain(String(Json.maxStringLength))
    expect(error.message.length).toBeLessThan(1_000)
  })

  it("is kept at Json.maxStringLength", () => {
    const name = "x".repeat(Json.maxStringLength)
    const stack = HookStack.with(HookStack.empty, observe, { triggers: "BeforeStep", name })
    expect(HookStack.order(stack, "BeforeStep")).toEqual([name])
  })

  it("of a wrap hook is held to the same bound", () => {
    const wrap = WrapHook.inference((ctx, next) => next(ctx))
    const error = invalidAt(() => HookStack.withWrap(HookStack.empty, wrap, { name: long }))
    expect(error.path).toBe("name")
  })

  it("taken from the function is a string within the bound, else the position's", () => {
    const named = (name: unknown) => Object.defineProperty((ctx: HookContext) => ctx, "name", { value: name })
    for (const odd of [42, long, { toString: () => "x" }]) {
      const stack = HookStack.with(HookStack.empty, named(odd), { triggers: "BeforeStep" })
      expect(HookStack.order(stack, "BeforeStep")).toEqual(["hook#0"])
    }
    const stack = HookStack.with(HookStack.empty, named("audit"), { triggers: "BeforeStep" })
    expect(HookStack.order(stack, "BeforeStep")).toEqual(["audit"])
  })

  // The bound is `Json.withinMaxLength`'s, the one check of a caller's string (branch
  // tidy5): a function's own name at it is taken, one past it falls back to the position's.
  it("taken from the function is kept at Json.maxStringLength, the position's one past it", () => {
    const named = (name: string) => Object.defineProperty((ctx: HookContext) => ctx, "name", { value: name })
    const at = "x".repeat(Json.maxStringLength)
    const stack = HookStack.with(HookStack.with(HookStack.empty, named(at), { triggers: "BeforeStep" }), named(`${at}y`), { triggers: "BeforeStep" })
    expect(HookStack.order(stack, "BeforeStep")).toEqual([at, "hook#1"])
    expect(Json.withinMaxLength(at, () => { throw new Error("refused") })).toBe(at)
    expect(() => Json.withinMaxLength(`${at}y`, () => { throw new Error("refused") })).toThrow("refused")
  })
})
