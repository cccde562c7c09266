// Every hook hookline ships obeys the laws of hooks (@hookline/testing's HookLaws):
// the guards, the stacks Guards.useGuards builds, and ApplyContextConfigHook.
import { pipe } from "effect/Function"
import { describe, expect, it } from "vitest"
import { Guards, HookStack, HookTriggers, StopReason } from "@hookline/core"
import { ApplyContextConfigHook, ContextConfig } from "@hookline/agent"
import { HookLaws } from "@hookline/testing"

const guards = [
  ["stepsLimit", Guards.stepsLimit(Guards.defaults.maxSteps), Guards.names.steps, StopReason.StepsLimitReached, "BeforeStep"],
  ["stepsLimit(0)", Guards.stepsLimit(0), Guards.names.steps, StopReason.StepsLimitReached, "BeforeStep"],
  ["tokenLimit", Guards.tokenLimit(Guards.defaults.maxTokens), Guards.names.tokens, StopReason.TokenLimitReached, "BeforeStep"],
  ["timeLimit", Guards.timeLimit(Guards.defaults.maxExecutionTime), Guards.names.time, StopReason.TimeLimitReached, "BeforeStep"],
  ["finishReason", Guards.finishReason(["length", "content-filter"]), Guards.names.finishReason, StopReason.FinishReasonReceived, "AfterStep"],
] as const

describe("built-in hooks obey HookLaws", () => {
  describe("Guards", () => {
    it.each(guards)("%s is a guard that stays fired, idempotent, and independent of the context config", (_, hook, source, reason, trigger) => {
      HookLaws.check(hook, {
        name: source,
        triggers: trigger,
        guard: { source, reason },
        idempotent: true,
        independentOf: [ApplyContextConfigHook({ systemPrompt: "Be brief.", responseFormat: { type: "text" } })],
      })
    })

    it("finishReason with no reasons is off: it obeys the universal laws and never fires", () => {
      HookLaws.check(Guards.finishReason([]), { triggers: "AfterStep", idempotent: true })
      expect(HookLaws.verify(HookLaws.laws.guardStaysFired(), Guards.finishReason([]), { triggers: "AfterStep" })?.reason)
        .toMatch(/^it was never exercised/)
    })

    it("obey the universal laws on every trigger, not only their own", () => {
      for (const [name, hook] of guards) HookLaws.check(hook, { name })
    }, 60_000) // four guards, every law, every trigger: seconds on a loaded 2-core machine
  })

  describe("Guards.useGuards", () => {
    it.each<readonly [string, Guards.GuardOptions]>([
      ["the defaults", {}],
      ["tight limits and finish reasons", { maxSteps: 2, maxTokens: 1_000, maxExecutionTime: "1 second", finishReasons: ["stop"] }],
      ["some guards off", { maxSteps: null, maxTokens: null, finishReasons: ["length"] }],
    ])("builds a stack that obeys the laws: %s", (_, options) => {
      const report = HookLaws.checkStack(Guards.useGuards(options), { guard: true, idempotent: true })
      expect(report.skipped).toEqual([])
      expect(report.checked.length).toBeGreaterThan(0)
    })

    it("with the context config, as AgentBuilder composes them", () => {
      const stack = pipe(
        Guards.useGuards({ maxSteps: 3, finishReasons: ["length"] }),
        HookStack.with(ApplyContextConfigHook({ systemPrompt: "Be brief." }), {
          triggers: HookTriggers.beforeStep,
          priority: ContextConfig.priority,
          name: ContextConfig.name,
        }),
      )
      const report = HookLaws.checkStack(stack, { guard: true, idempotent: true })
      expect(report.checked.map((c) => [c.trigger, c.hooks])).toEqual([
        ["BeforeStep", ["guard:steps_limit", "guard:token_limit", "guard:time_limit", "context:config"]],
        ["AfterStep", ["guard:finish_reason"]],
      ])
    })
  })

  describe("ApplyContextConfigHook", () => {
    it.each([
      ["a system prompt", { systemPrompt: "You are terse." }],
      ["a response format", { responseFormat: { type: "json" as const, schema: { type: "object" }, name: "answer" } }],
      ["both", { systemPrompt: "Answer in JSON.", responseFormat: { type: "text" as const } }],
      ["an empty prompt (nothing to apply)", { systemPrompt: "  " }],
      ["nothing", {}],
    ])("with %s obeys the laws and is idempotent", (_, config) => {
      HookLaws.check(ApplyContextConfigHook(config), {
        name: ContextConfig.name,
        triggers: HookTriggers.beforeStep,
        idempotent: true,
        independentOf: [Guards.stepsLimit(3), Guards.tokenLimit(1_000)],
      })
    })
  })
})
