import { describe, expect, it } from "vitest"
import { HookTrigger, HookTriggers } from "@hookline/core"
import { isDeepFrozen } from "./arbitraries.js"

// DESIGN.md, Triggers: the ten triggers in the order the loop reaches them.
const designTriggers = [
  "BeforeExecution",
  "BeforeStep",
  "BeforeInference",
  "AfterInference",
  "BeforeToolUse",
  "AfterToolUse",
  "AfterStep",
  "OnStop",
  "AfterExecution",
  "OnError",
] as const

describe("HookTriggers", () => {
  describe("all", () => {
    it("has the ten triggers of the design, in the loop's order", () => {
      expect(HookTriggers.all).toEqual(designTriggers)
      expect(Object.isFrozen(HookTriggers.all)).toBe(true)
    })
  })

  describe("of", () => {
    it("removes duplicates", () => {
      expect(HookTriggers.of("AfterStep", "AfterStep", "BeforeStep", "AfterStep")).toEqual(["BeforeStep", "AfterStep"])
    })

    it("orders the triggers as the loop reaches them", () => {
      expect(HookTriggers.of("OnError", "AfterToolUse", "BeforeExecution")).toEqual(["BeforeExecution", "AfterToolUse", "OnError"])
    })

    it("gives the empty set for no triggers", () => {
      expect(HookTriggers.of()).toEqual([])
    })

    it("returns a frozen set", () => {
      expect(Object.isFrozen(HookTriggers.of("OnStop"))).toBe(true)
    })
  })

  describe("single-trigger sets", () => {
    it("hold exactly their trigger", () => {
      expect(HookTriggers.beforeExecution).toEqual(["BeforeExecution"])
      expect(HookTriggers.beforeStep).toEqual(["BeforeStep"])
      expect(HookTriggers.beforeInference).toEqual(["BeforeInference"])
      expect(HookTriggers.afterInference).toEqual(["AfterInference"])
      expect(HookTriggers.beforeToolUse).toEqual(["BeforeToolUse"])
      expect(HookTriggers.afterToolUse).toEqual(["AfterToolUse"])
      expect(HookTriggers.afterStep).toEqual(["AfterStep"])
      expect(HookTriggers.onStop).toEqual(["OnStop"])
      expect(HookTriggers.afterExecution).toEqual(["AfterExecution"])
      expect(HookTriggers.onError).toEqual(["OnError"])
      expect(HookTriggers.none).toEqual([])
    })
  })

  describe("union", () => {
    it("joins two sets without duplicates, in the loop's order", () => {
      expect(HookTriggers.union(HookTriggers.of("OnStop", "BeforeStep"), HookTriggers.of("BeforeStep", "BeforeExecution")))
        .toEqual(["BeforeExecution", "BeforeStep", "OnStop"])
    })
  })

  describe("has", () => {
    it("tells whether a trigger is in the set", () => {
      expect(HookTriggers.has(HookTriggers.of("OnStop"), "OnStop")).toBe(true)
      expect(HookTriggers.has(HookTriggers.of("OnStop"), "OnError")).toBe(false)
    })
  })
})

describe("HookTrigger", () => {
  describe("all", () => {
    it("is the same list as HookTriggers.all", () => {
      expect(HookTrigger.all).toEqual(designTriggers)
    })
  })

  describe("isHookTrigger", () => {
    it("accepts the ten triggers and rejects anything else", () => {
      expect(designTriggers.every(HookTrigger.isHookTrigger)).toBe(true)
      expect(HookTrigger.isHookTrigger("BeforeTool")).toBe(false)
      expect(HookTrigger.isHookTrigger("toString")).toBe(false)
      expect(HookTrigger.isHookTrigger(undefined)).toBe(false)
    })
  })

  describe("fields", () => {
    it("matches the table of DESIGN.md", () => {
      expect(HookTrigger.fields).toEqual({
        BeforeExecution: [],
        BeforeStep: [],
        BeforeInference: ["request"],
        AfterInference: ["request", "response"],
        BeforeToolUse: ["toolCall"],
        AfterToolUse: ["toolCall", "toolExecution"],
        AfterStep: [],
        OnStop: [],
        AfterExecution: [],
        OnError: ["errors"],
      })
    })

    // Only the record is frozen: `HookTrigger.fields.BeforeStep.push("request")` (through a
    // cast) succeeds and changes the shared, module-level table for every importer.
    it("is frozen deeply", () => {
      expect(isDeepFrozen(HookTrigger.fields)).toBe(true)
    })
  })

  describe("constants", () => {
    it("are their own names", () => {
      expect(HookTrigger.BeforeToolUse).toBe("BeforeToolUse")
      expect(HookTrigger.OnError).toBe("OnError")
    })
  })
})
