import { describe, expect, it } from "vitest"
import { AgentBuilder, UseDriver, UseGuards, UseHook } from "@hookline/agent"
import { HookContext, HookTrigger, StopSignal, Usage } from "@hookline/core"
import { CostBudget, UseCostBudget } from "@hookline/middleware"
import { HookLaws, ScriptedDriver } from "@hookline/testing"

const prices = { "model-a": { input: 1, output: 2 }, "model-b": { input: 10, output: 20, cachedInput: 1 } }

const keepGoing = UseHook(
  (ctx) => (ctx.state.execution.stopSignals.every((s) => s.reason === "Completed") ? HookContext.requestContinuation(ctx, "again") : ctx),
  { triggers: HookTrigger.OnStop, name: "test:keep_going" },
)

// A run that goes on until a guard stops it: the steps limit, or the budget.
const runBudget = (driver: ScriptedDriver, maxSteps: number, options: CostBudget.Options) =>
  AgentBuilder.make(UseDriver(driver), UseGuards({ maxSteps, maxTokens: null }), keepGoing, UseCostBudget(options)).run("go")

// Each answer costs 300,000 input and 100,000 output tokens of model-a: 0.3 + 0.2 = 0.5.
const answer = (modelId = "model-a") => ScriptedDriver.text("ok", { usage: Usage.make(300_000, 100_000), modelId })

describe("CostBudget", () => {
  describe("use", () => {
    it("stops the run once its cost reaches the budget", async () => {
      const driver = ScriptedDriver.make([answer(), answer(), answer(), answer()])
      const final = await runBudget(driver, 10, { maxCost: 1, prices, currency: "USD" })
      expect(driver.requests).toHaveLength(2)
      expect(final.execution.status).toBe("stopped")
      expect(StopSignal.highest(final.execution.stopSignals)).toEqual(
        StopSignal.make(CostBudget.stopReason, "Cost budget reached: 1/1 USD", CostBudget.name),
      )
      expect(CostBudget.cost(final, prices)).toBeCloseTo(1)
    })

    it("stops when a model has no price, unless unknown models are free", async () => {
      const run = (unknownModel: "stop" | "free") =>
        AgentBuilder.make(
          UseDriver(ScriptedDriver.make([answer("model-x"), answer("model-x"), answer("model-x")])),
          UseGuards({ maxSteps: 3, maxTokens: null }),
          keepGoing,
          UseCostBudget({ maxCost: 1, prices, unknownModel }),
        ).run("go")
      const stopped = await run("stop")
      expect(StopSignal.highest(stopped.execution.stopSignals)?.message).toContain("no price for the model \"model-x\"")
      const free = await run("free")
      expect(StopSignal.highest(free.execution.stopSignals)?.source).toBe("guard:steps_limit")
    })

    it("prices cached input tokens of a run at the cached price", async () => {
      // 1M input tokens of model-b, 900k of them cached: 0.1M * 10 + 0.9M * 1 = 1.9 a step
      // (10 a step at the input price): the budget of 5 lasts three steps, not one.
      const cachedAnswer = ScriptedDriver.text("ok", {
        usage: { inputTokens: 1_000_000, outputTokens: 0, cachedInputTokens: 900_000 },
        modelId: "model-b",
      })
      const driver = ScriptedDriver.make([cachedAnswer, cachedAnswer, cachedAnswer, cachedAnswer, cachedAnswer])
      const final = await AgentBuilder.make(
        UseDriver(driver),
        UseGuards({ maxSteps: 10, maxTokens: null }),
        keepGoing,
        UseCostBudget({ maxCost: 5, prices }),
      ).run("go")
      expect(driver.requests).toHaveLength(3)
      expect(final.execution.usage.cachedInputTokens).toBe(2_700_000)
      expect(StopSignal.highest(final.execution.stopSignals)?.message).toBe("Cost budget reached: 5.7/5")
      expect(CostBudget.cost(final, prices)).toBeCloseTo(5.7)
    })

    it("prices cached input tokens, never more of them than the input tokens", () => {
      const usage = Usage.make(1_000_000, 0, { cachedInputTokens: 600_000 })
      const step = { index: 0, response: { modelId: "model-b" }, usage } as never
      const priced = CostBudget.stepCost(step, new Map(Object.entries(prices)))
      expect(priced).toEqual({ cost: 400_000 * 10 / 1e6 + 600_000 * 1 / 1e6 })
      const overReported = { index: 0, response: { modelId: "model-b" }, usage: Usage.make(1_000, 0, { cachedInputTokens: 5_000 }) } as never
      expect(CostBudget.stepCost(overReported, new Map(Object.entries(prices)))).toEqual({ cost: 1_000 * 1 / 1e6 })
    })

    it("prices a dated model id (as OpenAI and Anthropic answer) by its undated entry", async () => {
      const table = { "gpt-4o-mini": { input: 1, output: 2 }, "claude-3-5-sonnet": { input: 10, output: 20 } }
      for (const modelId of ["gpt-4o-mini-2024-07-18", "claude-3-5-sonnet-20241022", "claude-3-5-sonnet@20240620"]) {
        const final = await runBudget(ScriptedDriver.make([answer(modelId), answer(modelId), answer(modelId)]), 3, { maxCost: 1_000, prices: table })
        // Priced, so the run goes on to the steps limit (no "no price for the model").
        expect(StopSignal.highest(final.execution.stopSignals)?.source).toBe("guard:steps_limit")
        expect(CostBudget.cost(final, table)).toBeGreaterThan(0)
      }
    })

    it("prefers an exact entry to the undated one, and never prices a different model by a shorter name", () => {
      const table = { "gpt-4o": { input: 5, output: 0 }, "gpt-4o-2024-05-13": { input: 7, output: 0 } }
      expect(CostBudget.priceOf(table, "gpt-4o-2024-05-13")?.input).toBe(7)
      expect(CostBudget.priceOf(table, "gpt-4o-2024-08-06")?.input).toBe(5)
      // gpt-4o-mini is not gpt-4o: no price rather than the wrong one.
      expect(CostBudget.priceOf(table, "gpt-4o-mini-2024-07-18")).toBeUndefined()
      // Not a date: kept as it is.
      expect(CostBudget.priceOf(table, "gpt-4o-2024-13-45")).toBeUndefined()
    })

    it("takes prices as a function of the model id", async () => {
      const seen: Array<string> = []
      const prices = (modelId: string) => (seen.push(modelId), modelId.startsWith("model-") ? { input: 1, output: 2 } : undefined)
      const driver = ScriptedDriver.make([answer("model-a-v2"), answer("model-a-v2"), answer("model-a-v2"), answer("model-a-v2")])
      const final = await runBudget(driver, 10, { maxCost: 1, prices, currency: "USD" })
      expect(driver.requests).toHaveLength(2)
      expect(StopSignal.highest(final.execution.stopSignals)?.message).toBe("Cost budget reached: 1/1 USD")
      expect(CostBudget.cost(final, prices)).toBeCloseTo(1)
      expect(seen).toContain("model-a-v2")
      const unpriced = await runBudget(ScriptedDriver.make([answer("other"), answer("other")]), 3, { maxCost: 1, prices })
      expect(StopSignal.highest(unpriced.execution.stopSignals)?.message).toContain("no price for the model \"other\"")
    })

    it("fails the run with a typed error naming the model when the price function gives a bad price", async () => {
      const final = await runBudget(ScriptedDriver.make([answer(), answer()]), 3, { maxCost: 1, prices: () => ({ input: -1, output: 2 }) })
      expect(final.execution.status).toBe("failed")
      expect(JSON.stringify(final.execution.errors)).toContain("options.prices(\\\"model-a\\\").input")
    })

    it("refuses bad options", () => {
      expect(() => UseCostBudget({ maxCost: -1, prices })).toThrow(/options\.maxCost/)
      expect(() => UseCostBudget({ maxCost: 1, prices: { m: { input: 1 } as never } })).toThrow(/options\.prices\.m\.output/)
    })
  })

  describe("make", () => {
    it("is a guard that stays fired and obeys the laws of hooks", { timeout: 120_000 }, () => {
      HookLaws.check(CostBudget.make({ maxCost: 0.001, prices: { unknown: { input: 1, output: 1 } }, unknownModel: "free" }), {
        name: CostBudget.name,
        triggers: "BeforeStep",
        idempotent: true,
        guard: { source: CostBudget.name },
      })
    })
  })
})
