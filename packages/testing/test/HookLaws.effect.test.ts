// The laws for effectful hooks: each law passes well-behaved Hook.promise and
// Hook.effect hooks and fails a deliberately bad one (issue 15: effectful hooks could
// not be law-checked at all).
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { Hook, type HookContext } from "@hookline/core"
import { HookLaws } from "@hookline/testing"
import * as H from "./hooks.js"

const quick = { numRuns: 20 }
// An async hook that does what a pure one does, after a real await.
const later = (hook: Hook.Hook) => Hook.promise(async (ctx) => {
  await new Promise((resolve) => setImmediate(resolve))
  return hook(ctx)
})

const failure = async (run: Promise<unknown>): Promise<HookLaws.LawFailed> => {
  try {
    await run
  } catch (error) {
    if (error instanceof HookLaws.LawFailed) return error
    throw error
  }
  throw new Error("expected a HookLaws.LawFailed")
}

describe("HookLaws.checkEffect", () => {
  it("passes well-behaved Hook.promise and Hook.effect hooks, and reports the laws it checked", async () => {
    const report = await HookLaws.checkEffect(later(H.denyShell), { ...quick, triggers: ["BeforeToolUse", "AfterToolUse"], idempotent: true })
    expect(report.laws.map((l) => l.law)).toEqual(["immutable", "keepsTrigger", "returnsFrozen", "deterministic", "noHiddenState", "blockStaysBlocked", "idempotent"])
    await HookLaws.checkEffect(Hook.effect((ctx) => Effect.succeed(H.tagTenant(ctx))), { ...quick, idempotent: true, name: "tag" })
    await HookLaws.checkEffect(Hook.when((ctx) => ctx.request !== undefined, later(H.lastTwo)), { ...quick, triggers: "BeforeInference" })
  }, 60_000)

  it("catches each law broken by an async hook", async () => {
    const cases: ReadonlyArray<readonly [HookLaws.LawName, Hook.EffectHook<unknown>, HookLaws.CheckOptions, RegExp]> = [
      ["immutable", later(H.mutatesMetadata), {}, /mutate/],
      ["keepsTrigger", later(H.changesTrigger), {}, /changed the trigger/],
      ["returnsFrozen", later(H.spreadsUnfrozen), {}, /unfrozen data at the root/],
      ["deterministic", later(H.counts()), {}, /metadata\.calls/],
      ["noHiddenState", later(H.closureCache()), { triggers: ["BeforeInference", "AfterInference"] }, /after other contexts ran: response/],
      ["blockStaysBlocked", later(H.liftsBlock), { triggers: "BeforeToolUse" }, /lifted the block/],
      ["idempotent", later(H.appendsNote), { idempotent: true }, /twice/],
    ]
    for (const [law, hook, options, reason] of cases) {
      const failed = await failure(HookLaws.checkEffect(hook, { ...options, name: law }))
      expect(failed.law).toBe(law)
      expect(failed.message).toMatch(new RegExp(`^HookLaws\\.${law} failed for "${law}"`))
      expect(failed.reason).toMatch(reason)
      expect(failed.message).toContain("Replay: HookLaws.checkEffect(hook, { seed:")
    }
  }, 60_000)

  it("reports a rejected promise or a failed Effect as a throw", async () => {
    const rejects = Hook.promise(async (ctx: HookContext) => {
      if (ctx.trigger === "BeforeStep") throw new Error("no model today")
      return ctx
    })
    expect((await failure(HookLaws.checkEffect(rejects, { triggers: "BeforeStep" }))).reason).toMatch(/threw Error: no model today/)
    const fails = Hook.effect(() => Effect.fail("denied"))
    expect((await failure(HookLaws.checkEffect(fails, { triggers: "BeforeStep" }))).reason).toMatch(/threw denied/)
  })
})
