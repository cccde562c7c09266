import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { Guards, Hook, HookContext, HookTrigger, StopReason } from "@hookline/core"
import { Arbitraries, HookLaws } from "@hookline/testing"
import * as H from "./hooks.js"

// Well-behaved hooks are there to show no false alarm: fewer runs each keeps the suite fast.
const quick = { numRuns: 40 }

// Each law: well-behaved hooks pass it, and its violators fail it, with the law's name
// at the head of the message and what went wrong on the shrunk counterexample.

describe("HookLaws", () => {
  describe("immutable", () => {
    it("passes hooks that build new data", () => {
      for (const hook of [Hook.identity, H.denyShell, H.tagTenant, H.lastTwo, H.appendsNote]) HookLaws.immutable(hook, quick)
    })

    it("catches a hook that writes into its input, naming the path it wrote", () => {
      const failure = H.failureOf(() => HookLaws.immutable(H.mutatesMetadata))
      expect(failure.message).toMatch(/^HookLaws\.immutable failed for "mutatesMetadata" on \w+: it mutated its input: metadata\.touched was added/)
      expect(failure.message).toContain("Cannot add property touched, object is not extensible")
      expect(failure.law).toBe("immutable")
    })

    it("catches a push into a nested array", () => {
      const failure = H.failureOf(() => HookLaws.immutable(H.mutatesSignals))
      expect(failure.reason).toMatch(/it mutated its input: state\.execution\.stopSignals\[\d+\] was added/)
    })

    it("catches a write whose TypeError the hook swallows", () => {
      const failure = H.failureOf(() => HookLaws.immutable(H.mutatesQuietly))
      expect(failure.reason).toContain('it mutated its input (seen on an unfrozen copy): state.id changed from "a" to "changed"')
    })
  })

  describe("deterministic", () => {
    it("passes pure hooks", () => {
      for (const hook of [Hook.identity, H.denyShell, H.tagTenant, H.lastTwo, Guards.timeLimit(1_000)]) HookLaws.deterministic(hook, quick)
    })

    it("catches a hook that reads the clock", () => {
      const failure = H.failureOf(() => HookLaws.deterministic(H.readsClock))
      expect(failure.message).toMatch(/^HookLaws\.deterministic failed for "readsClock"/)
      expect(failure.reason).toContain("two runs on equal contexts gave different results: metadata.at is")
      expect(failure.reason).toContain("does it read the clock")
    })

    it("catches new Date(), performance.now(), Math.random(), crypto.randomUUID() and state kept between calls", () => {
      expect(H.failureOf(() => HookLaws.deterministic(H.readsDate)).reason).toContain("metadata.day")
      expect(H.failureOf(() => HookLaws.deterministic(H.readsUptime)).reason).toContain("metadata.uptime")
      expect(H.failureOf(() => HookLaws.deterministic(H.timesItself)).reason).toContain("metadata.tookMs is 1 in one run but 997 in the other")
      expect(H.failureOf(() => HookLaws.deterministic(H.drawsId)).reason).toContain("metadata.requestId")
      expect(H.failureOf(() => HookLaws.deterministic(H.drawsRandom)).reason).toContain("metadata")
      expect(H.failureOf(() => HookLaws.deterministic(H.counts())).reason).toMatch(/metadata\.calls is \d+ in one run but \d+ in the other/)
    })

    it("detects state hidden in a closure: the same context gives another result after other contexts ran", () => {
      const cache = H.failureOf(() => HookLaws.deterministic(H.closureCache(), { triggers: ["BeforeInference", "AfterInference"] }))
      expect(cache.law).toBe("noHiddenState")
      expect(cache.message).toMatch(/^HookLaws\.noHiddenState failed for "closureCache|^HookLaws\.noHiddenState failed for "hook"/)
      expect(cache.reason).toMatch(/^the same context gave a different result after other contexts ran: response/)
      expect(cache.reason).toContain("a cache or a counter in a closure")
      expect(cache.counterexample?.context.trigger).toBe("BeforeInference")
      // Two equal inputs in a row, with nothing in between, cannot see it.
      fc.assert(fc.property(Arbitraries.hookContext("BeforeInference"), (ctx) => {
        expect(HookLaws.laws.deterministic.check(H.closureCache(), ctx)).toBeUndefined()
      }), quick)
    })

    it("puts the real clock and random source back, pass or fail", () => {
      const { Date: RealDate, Math: { random } } = globalThis
      const now = performance.now
      H.failureOf(() => HookLaws.deterministic(H.readsClock))
      H.failureOf(() => HookLaws.deterministic(() => {
        throw new Error("boom")
      }))
      expect(globalThis.Date).toBe(RealDate)
      expect(Math.random).toBe(random)
      expect(performance.now).toBe(now)
      expect(Math.abs(Date.now() - new RealDate().getTime())).toBeLessThan(1_000)
      expect(crypto.randomUUID()).not.toBe(crypto.randomUUID())
    })
  })

  describe("keepsTrigger", () => {
    it("passes hooks that return a context of the same trigger", () => {
      for (const hook of [Hook.identity, H.denyShell, H.tagTenant]) HookLaws.keepsTrigger(hook, quick)
    })

    it("catches a hook that drops the trigger", () => {
      const failure = H.failureOf(() => HookLaws.keepsTrigger(H.dropsTrigger))
      expect(failure.message).toMatch(/^HookLaws\.keepsTrigger failed for "dropsTrigger" on BeforeExecution: it dropped the trigger \(was BeforeExecution\)/)
    })

    it("catches a hook that changes the trigger", () => {
      const failure = H.failureOf(() => HookLaws.keepsTrigger(H.changesTrigger))
      expect(failure.reason).toBe("it changed the trigger from BeforeExecution to AfterStep")
      expect(failure.trigger).toBe("BeforeExecution")
    })

    it("catches a hook that returns no context, or one without a trigger", () => {
      expect(H.failureOf(() => HookLaws.keepsTrigger(H.returnsNothing)).reason).toBe("it returned undefined, not a HookContext")
      const withoutTrigger = ((ctx: HookContext) => {
        const { trigger: _, ...rest } = ctx
        return Object.freeze(rest)
      }) as unknown as Hook
      expect(H.failureOf(() => HookLaws.keepsTrigger(withoutTrigger)).reason).toMatch(/^it dropped the trigger/)
    })
  })

  describe("returnsFrozen", () => {
    it("passes hooks that build with HookContext and AgentState", () => {
      for (const hook of [Hook.identity, H.denyShell, H.tagTenant, H.lastTwo, H.appendsNote, H.redactOutput]) HookLaws.returnsFrozen(hook, quick)
    })

    it("catches a hook that returns a context spread by hand", () => {
      const failure = H.failureOf(() => HookLaws.returnsFrozen(H.spreadsUnfrozen))
      expect(failure.message).toMatch(/^HookLaws\.returnsFrozen failed for "spreadsUnfrozen" on BeforeExecution: it returned unfrozen data at the root/)
    })

    it("names the first unfrozen path below a frozen root", () => {
      const nested: Hook = (ctx) => Object.freeze({ ...ctx, metadata: { ...ctx.metadata } })
      expect(H.failureOf(() => HookLaws.returnsFrozen(nested)).reason).toMatch(/^it returned unfrozen data at metadata /)
    })
  })

  describe("blockStaysBlocked", () => {
    it("passes hooks that leave blocks alone, or use the HookContext functions (which keep them)", () => {
      for (const hook of [Hook.identity, H.denyShell, H.redactOutput, H.tagTenant]) HookLaws.blockStaysBlocked(hook, quick)
      HookLaws.blockStaysBlocked((ctx) => HookContext.withToolResult(ctx, "cached"))
      HookLaws.blockStaysBlocked((ctx) => HookContext.withToolExecutionBlocked(ctx, "another reason"))
    })

    it("catches a hook that spreads toolExecutionBlocked: false", () => {
      const failure = H.failureOf(() => HookLaws.blockStaysBlocked(H.liftsBlock))
      expect(failure.message).toMatch(/^HookLaws\.blockStaysBlocked failed for "liftsBlock" on BeforeToolUse: it lifted the block/)
      // The report shows the blocked context the hook was given.
      expect(failure.counterexample?.context.toolExecutionBlocked).toBe(true)
      expect(failure.message).toContain('"status": "blocked"')
    })

    it("catches a hook that rewords the block", () => {
      const failure = H.failureOf(() => HookLaws.blockStaysBlocked(H.rewordsBlock))
      expect(failure.reason).toMatch(/^it changed the block's reason from ".*" to "reworded"$/)
    })

    it("says nothing about triggers without tool calls", () => {
      HookLaws.blockStaysBlocked(H.liftsBlock, { triggers: ["BeforeStep", "AfterStep"] })
    })
  })

  describe("guardStaysFired", () => {
    it("passes the built-in guards, declared by source and reason", () => {
      HookLaws.guardStaysFired(Guards.stepsLimit(20), { triggers: "BeforeStep", source: Guards.names.steps, reason: StopReason.StepsLimitReached })
      HookLaws.guardStaysFired(Guards.tokenLimit(32_768), { triggers: "BeforeStep", source: Guards.names.tokens })
      HookLaws.guardStaysFired(Guards.timeLimit("300 seconds"), { triggers: "BeforeStep", source: Guards.names.time })
      HookLaws.guardStaysFired(Guards.finishReason(["length"]), { triggers: "AfterStep", source: Guards.names.finishReason })
    })

    it("catches a guard that removes its signal when it runs again", () => {
      const failure = H.failureOf(() => HookLaws.guardStaysFired(H.togglingGuard, { triggers: "BeforeStep", source: "guard:toggle" }))
      expect(failure.message).toMatch(/^HookLaws\.guardStaysFired failed for "togglingGuard" on BeforeStep/)
      expect(failure.reason).toBe('it fired (StepsLimitReached from "guard:toggle"), then dropped that signal when run again on its own output')
    })

    it("catches a guard that drops its signal later in the run", () => {
      const failure = H.failureOf(() => HookLaws.guardStaysFired(H.forgetfulGuard, { triggers: "AfterStep" }))
      expect(failure.reason).toMatch(/^it fired \(FinishReasonReceived from "guard:forgetful"\), then dropped that signal on a later state \(1 more step\(s\)/)
    })

    it("fails when the guard never fires: a law that never applied proves nothing", () => {
      const failure = H.failureOf(() =>
        HookLaws.guardStaysFired(Guards.stepsLimit(5), { triggers: "BeforeStep", source: "guard:misspelled" })
      )
      expect(failure.message).toMatch(/^HookLaws\.guardStaysFired failed for "guard": it was never exercised/)
      expect(failure.counterexample).toBeUndefined()
    })
  })

  describe("idempotent", () => {
    it("passes hooks that settle after one run", () => {
      for (const hook of [H.denyShell, H.tagTenant, H.lastTwo, H.redactOutput, Guards.stepsLimit(3)]) HookLaws.idempotent(hook, quick)
    })

    it("catches a hook that appends every time", () => {
      const failure = H.failureOf(() => HookLaws.idempotent(H.appendsNote))
      expect(failure.message).toMatch(/^HookLaws\.idempotent failed for "appendsNote" on BeforeExecution: applying it twice differs from applying it once: state\.context\.messages \(length\) is 2 after two runs but 1 after one/)
    })
  })

  describe("commutes", () => {
    it("passes hooks that touch different things", () => {
      HookLaws.commutes(H.tagTenant, H.denyShell)
      HookLaws.commutes(Guards.stepsLimit(3), H.lastTwo)
    })

    it("catches two hooks whose order shows", () => {
      const failure = H.failureOf(() => HookLaws.commutes(H.appendsA, H.appendsB))
      expect(failure.message).toMatch(/^HookLaws\.commutes failed for "appendsA" on BeforeExecution: it does not commute with appendsB: state\.context\.messages\[0\]\.content is "a" when it runs first but "b" when appendsB runs first/)
      expect(failure.message).toContain("HookLaws.commutes(hook, other, { seed:")
    })
  })

  describe("every law", () => {
    it("reports a hook that throws on an expected condition", () => {
      const failure = H.failureOf(() => HookLaws.keepsTrigger(H.throwsOnShell, { triggers: "BeforeToolUse" }))
      expect(failure.reason).toBe("it threw Error: shell is not allowed (a pure hook returns data for expected conditions: a block, a stop signal)")
      expect(failure.counterexample?.context.toolCall?.name).toBe("shell")
    })

    it("shrinks the counterexample and gives the seed and path that replay it", () => {
      const failure = H.failureOf(() => HookLaws.immutable(H.mutatesMetadata, { seed: 1234 }))
      const ctx = failure.counterexample?.context
      expect(ctx?.state.context.messages.length).toBe(0)
      expect(ctx?.state.execution.steps.length).toBe(0)
      expect(failure.seed).toBe(1234)
      expect(failure.message).toContain(`Replay: HookLaws.immutable(hook, { seed: 1234, path: ${JSON.stringify(failure.path)} })`)
      expect(failure.message).toContain("Counterexample:\n  context: {")

      const replayed = H.failureOf(() => HookLaws.immutable(H.mutatesMetadata, { seed: failure.seed, path: failure.path }))
      expect(replayed.reason).toBe(failure.reason)
      expect(replayed.counterexample?.context).toEqual(ctx)
      expect(replayed.message).toContain("Property failed after 1 test(s)")
    })

    it("runs on the triggers given, and on custom contexts", () => {
      const onlyAfterStep: Hook = (ctx) => (ctx.trigger === "AfterStep" ? ctx : H.readsClock(ctx))
      HookLaws.deterministic(onlyAfterStep, { triggers: "AfterStep" })
      expect(H.failureOf(() => HookLaws.deterministic(onlyAfterStep, { triggers: ["AfterStep", "OnStop"] })).trigger).toBe("OnStop")

      const state = fc.sample(Arbitraries.agentState(), { numRuns: 1, seed: 3 })[0]!
      const contexts = fc.constant(HookContext.make({ trigger: "OnStop", state, createdAt: 0 }))
      const failure = H.failureOf(() => HookLaws.deterministic(H.readsClock, { contexts, numRuns: 1 }))
      expect(failure.counterexample?.context.state).toBe(state)
    })
  })

  describe("laws (as data)", () => {
    it("runs one case inside any fast-check property", () => {
      fc.assert(
        fc.property(Arbitraries.hookContext("BeforeToolUse"), (ctx) => {
          expect(HookLaws.laws.keepsTrigger.check(H.denyShell, ctx)).toBeUndefined()
          expect(HookLaws.laws.blockStaysBlocked.check(H.denyShell, ctx, "earlier")).toBeUndefined()
          expect(HookLaws.laws.blockStaysBlocked.check(H.liftsBlock, ctx, "earlier")).toMatch(/^it lifted the block/)
          expect(HookLaws.laws.idempotent.check(H.appendsNote, ctx)).toMatch(/^applying it twice/)
        }),
        { numRuns: 20 },
      )
    })

    it("verify returns the failure instead of throwing", () => {
      expect(HookLaws.verify(HookLaws.laws.immutable, H.denyShell)).toBeUndefined()
      expect(HookLaws.verify(HookLaws.laws.immutable, H.mutatesMetadata)).toBeInstanceOf(HookLaws.LawFailed)
    })

    it("names and describes each law", () => {
      expect(HookLaws.universal.map((l) => l.name)).toEqual(["immutable", "keepsTrigger", "returnsFrozen", "deterministic", "noHiddenState", "blockStaysBlocked"])
      expect(HookLaws.laws.blockStaysBlocked.appliesTo(HookTrigger.BeforeToolUse)).toBe(true)
      expect(HookLaws.laws.blockStaysBlocked.appliesTo(HookTrigger.BeforeStep)).toBe(false)
    })
  })
})

describe("HookLaws and the run's context", () => {
  // Marks the run's context as seen: a write into the caller's value.
  const marksRunContext: Hook = (ctx) => {
    if (typeof ctx.runContext === "object" && ctx.runContext !== null) (ctx.runContext as Record<string, unknown>)["seen"] = true
    return ctx
  }

  it("generates contexts with a run context, so a hook that writes into it is caught", () => {
    for (const seed of [1325622588, 42, 7]) {
      const failure = H.failureOf(() => HookLaws.immutable(marksRunContext, { seed }))
      expect(failure.law).toBe("immutable")
      // The counterexample shows the run's context the hook wrote into.
      expect(failure.message).toMatch(/"runContext": [[{]/)
    }
  })

  const { viewersNoShell, callers: runContext } = H
  type Caller = H.Caller
  const isCaller = (u: unknown): boolean =>
    typeof u === "object" && u !== null && ((u as { role?: unknown }).role === "admin" || (u as { role?: unknown }).role === "viewer")

  it("checks a hook that reads the run context under the shape the options give, seeing each value", () => {
    const seen = new Set<string>()
    const observed: Hook<Caller> = (ctx) => (seen.add(ctx.runContext.role), viewersNoShell(ctx))
    const report = HookLaws.check(observed, { triggers: HookTrigger.BeforeToolUse, name: "policy:viewers_no_shell", arbitraries: { runContext, toolNames: ["shell"] }, numRuns: 40 })
    expect(report.laws.map((l) => l.law)).toContain("deterministic")
    expect([...seen].sort()).toEqual(["admin", "viewer"])
  })

  // Every law, the declared ones included, calls a Hook<C> only with run contexts of C.
  const onlyCallers = (calls: Array<unknown>): Hook<Caller> => (ctx) => (calls.push(ctx.runContext), viewersNoShell(ctx))
  const declared = { idempotent: true, independentOf: [viewersNoShell], guard: false, numRuns: 15 } as const

  it("calls the hook only with run contexts of the generator's shape", () => {
    const calls: Array<unknown> = []
    HookLaws.check(onlyCallers(calls), { ...declared, arbitraries: { runContext, toolNames: ["shell"] } })
    expect(calls.length).toBeGreaterThan(0)
    expect(calls.filter((c) => !isCaller(c))).toEqual([])
  })

  it("calls the hook only with run contexts of the given contexts' shape", () => {
    const calls: Array<unknown> = []
    const contexts = Arbitraries.hookContextOf(HookTrigger.all, { runContext, toolNames: ["shell"] })
    HookLaws.check(onlyCallers(calls), { ...declared, contexts })
    expect(calls.length).toBeGreaterThan(0)
    expect(calls.filter((c) => !isCaller(c))).toEqual([])
  })

  it("calls an effectful hook only with run contexts of the generator's shape", async () => {
    const calls: Array<unknown> = []
    const pure = onlyCallers(calls)
    const effectful = Hook.promise(async (ctx: HookContext<Caller>) => pure(ctx))
    await HookLaws.checkEffect(effectful, { ...declared, contexts: Arbitraries.hookContextOf(HookTrigger.all, { runContext }) })
    expect(calls.length).toBeGreaterThan(0)
    expect(calls.filter((c) => !isCaller(c))).toEqual([])
  })
})
