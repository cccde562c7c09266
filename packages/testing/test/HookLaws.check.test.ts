import { Effect } from "effect"
import { pipe } from "effect/Function"
import { describe, expect, it } from "vitest"
import { Guards, Hook, HookContext, HookStack, HookTriggers } from "@hookline/core"
import { HookLaws } from "@hookline/testing"
import * as H from "./hooks.js"

describe("HookLaws.check", () => {
  it("passes a well-behaved hook and reports the laws it checked, per trigger", () => {
    const report = HookLaws.check(H.denyShell, { idempotent: true, independentOf: [H.tagTenant] })
    expect(report.laws.map((l) => l.law)).toEqual([
      "immutable", "keepsTrigger", "returnsFrozen", "deterministic", "noHiddenState", "blockStaysBlocked", "idempotent", "commutes",
    ])
    expect(report.laws.find((l) => l.law === "blockStaysBlocked")?.triggers).toEqual(["BeforeToolUse", "AfterToolUse"])
  })

  it("takes the options a hook is registered with", () => {
    const options = { triggers: HookTriggers.of("BeforeToolUse"), priority: 200, name: "policy:deny_shell" }
    const report = HookLaws.check(H.denyShell, options)
    expect(report.laws.every((l) => l.triggers.join() === "BeforeToolUse")).toBe(true)
    const failure = H.failureOf(() => HookLaws.check(H.liftsBlock, options))
    expect(failure.message).toMatch(/^HookLaws\.blockStaysBlocked failed for "policy:deny_shell" on BeforeToolUse/)
  })

  it("passes a guard declared as one", () => {
    HookLaws.check(Guards.stepsLimit(20), { triggers: "BeforeStep", guard: { source: Guards.names.steps }, idempotent: true })
  })

  // Each violator is caught by `check` with its own law: the first law broken is reported.
  it.each([
    ["immutable", H.mutatesMetadata, {}],
    ["keepsTrigger", H.dropsTrigger, {}],
    ["returnsFrozen", H.spreadsUnfrozen, {}],
    ["deterministic", H.readsClock, {}],
    ["blockStaysBlocked", H.liftsBlock, {}],
    ["idempotent", H.appendsNote, { idempotent: true }],
    ["commutes", H.appendsA, { independentOf: H.appendsB }],
    ["guardStaysFired", H.togglingGuard, { triggers: "BeforeStep", guard: { source: "guard:toggle" } }],
  ] as const)("reports %s first for its violator", (law, hook, options) => {
    const failure = H.failureOf(() => HookLaws.check(hook, options as HookLaws.CheckOptions))
    expect(failure.law).toBe(law)
    expect(failure.message.startsWith(`HookLaws.${law} failed`)).toBe(true)
  })

  it("does not check what a hook did not declare", () => {
    HookLaws.check(H.appendsNote)
    HookLaws.check(H.appendsA)
  })
})

describe("HookLaws.checkStack", () => {
  it("passes the default guards, and reports the triggers it checked", () => {
    const report = HookLaws.checkStack(Guards.useGuards(), { guard: true, idempotent: true })
    expect(report.checked).toEqual([{
      trigger: "BeforeStep",
      hooks: ["guard:steps_limit", "guard:token_limit", "guard:time_limit"],
      laws: ["immutable", "keepsTrigger", "returnsFrozen", "deterministic", "noHiddenState", "guardStaysFired", "idempotent"],
    }])
    expect(report.skipped).toEqual([])
  })

  it("checks every trigger with hooks, and names the trigger where a law broke", () => {
    const stack = pipe(
      Guards.useGuards({ maxSteps: 3, finishReasons: ["length"] }),
      HookStack.with(H.denyShell, { triggers: "BeforeToolUse", name: "policy:deny_shell", priority: 100 }),
      HookStack.with(H.readsClock, { triggers: "AfterToolUse", name: "log:stamp" }),
    )
    const failure = H.failureOf(() => HookLaws.checkStack(stack))
    expect(failure.message).toMatch(/^HookLaws\.deterministic failed for "stack \[log:stamp\]" on AfterToolUse: .*metadata\.at/)

    const report = HookLaws.checkStack(HookStack.without(stack, "log:stamp"))
    expect(report.checked.map((c) => c.trigger)).toEqual(["BeforeStep", "BeforeToolUse", "AfterStep"])
  }, 60_000) // three triggers, every law: slow on a shared 2-core machine

  it("checks the stack's guarantees: the dispatcher keeps a block and freezes what a hook spread", () => {
    // Each hook alone breaks a law; the stack restores the block and freezes the output.
    const stack = pipe(
      HookStack.empty,
      HookStack.with(H.denyShell, { triggers: HookTriggers.of("BeforeToolUse"), priority: 10, name: "policy:deny_shell" }),
      HookStack.with(H.liftsBlock, { triggers: HookTriggers.of("BeforeToolUse", "AfterToolUse"), name: "bad:lift" }),
      HookStack.with(H.spreadsUnfrozen, { triggers: HookTriggers.of("BeforeToolUse"), name: "bad:spread" }),
    )
    HookLaws.checkStack(stack)
    expect(H.failureOf(() => HookLaws.check(H.liftsBlock)).law).toBe("blockStaysBlocked")
  })

  it("reports a hook that fails the dispatch", () => {
    const stack = HookStack.with(HookStack.empty, H.throwsOnShell, { triggers: "BeforeToolUse", name: "policy:throws" })
    const failure = H.failureOf(() => HookLaws.checkStack(stack, { arbitraries: { toolNames: ["shell"] } }))
    expect(failure.reason).toContain('hook "policy:throws" failed on BeforeToolUse: shell is not allowed')
  })

  it("skips triggers with an effectful hook, and says why", () => {
    const stack = pipe(
      Guards.useGuards(),
      HookStack.with(Hook.effect((ctx: HookContext) => Effect.succeed(ctx)), { triggers: "BeforeInference", name: "cache:lookup" }),
    )
    const report = HookLaws.checkStack(stack)
    expect(report.skipped).toEqual([{
      trigger: "BeforeInference",
      reason: 'effectful hook "cache:lookup": the laws are checked on pure hooks (HookStack.run)',
    }])
    expect(report.checked.map((c) => c.trigger)).toEqual(["BeforeStep"])
  })

  it("requires a declared guard to fire on some trigger, not on each", () => {
    const stack = pipe(
      Guards.useGuards({ maxTokens: null, maxExecutionTime: null }),
      HookStack.with(H.tagTenant, { triggers: "AfterToolUse", name: "tag" }),
    )
    HookLaws.checkStack(stack, { guard: { source: Guards.names.steps } })
    const failure = H.failureOf(() => HookLaws.checkStack(stack, { guard: { source: "guard:nobody" } }))
    expect(failure.message).toMatch(/^HookLaws\.guardStaysFired failed for "stack": it was never exercised/)
  }, 60_000)
})
