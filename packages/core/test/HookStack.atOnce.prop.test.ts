import { Cause, Effect, Exit, Fiber } from "effect"
import { TestClock } from "effect/testing"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { AgentError, AgentState, Hook, HookContext, HookExecuted, HookStack, Message, StopSignal, type HookTrigger } from "../src/index.js"

// An Effect hook whose Effect is an Exit answers at once (stack/mixed.ts): the same
// stack, with those hooks made to wait (a yield first), must give the same context,
// errors and HookExecuted events (a counting clock: the same readings, in order).

type Does = "same" | "change" | "stop" | "throw" | "garbage" | "interrupt" | "abortSelf"
type Kind = "pure" | "exit" | "async"
interface Spec {
  readonly kind: Kind
  readonly does: Does
  readonly priority: number
  readonly onError: "fail" | "skip"
}

const state = AgentState.make({ id: "r", messages: [Message.user("hi")] })

// What a hook does to the context it is given (`i` names it).
const act = (does: Does, i: number, ctx: HookContext.HookContext): HookContext.HookContext => {
  switch (does) {
    case "same":
      return ctx
    case "change":
      return HookContext.withMetadata(ctx, { [`h${i}`]: i })
    case "stop":
      return HookContext.withStopSignal(ctx, StopSignal.make("StopRequested", `h${i}`, `h${i}`))
    case "throw":
      throw new Error(`boom ${i}`)
    case "garbage":
      return { not: "a context" } as unknown as HookContext.HookContext
    case "interrupt":
      return ctx
    case "abortSelf":
      // The hook stops its own run (as a hook aborting the run's signal does).
      Fiber.getCurrent()?.interruptUnsafe()
      return ctx
  }
}

// The Exit a hook answers with: a throw is a typed failure, and every third one a defect.
const exitOf = (spec: Spec, i: number, ctx: HookContext.HookContext): Effect.Effect<HookContext.HookContext, Error> => {
  if (spec.does === "interrupt") return Exit.failCause(Cause.interrupt()) as Exit.Exit<never, never>
  if (spec.does === "throw" && i % 3 === 0) throw new Error(`defect ${i}`)
  try {
    return Exit.succeed(act(spec.does, i, ctx))
  } catch (error) {
    return Exit.fail(error as Error)
  }
}

const hookOf = (spec: Spec, i: number, waits: boolean): Hook.AnyHook<Error> => {
  if (spec.kind === "pure") return (ctx) => act(spec.does, i, ctx)
  if (spec.kind === "exit" && !waits) return Hook.effect((ctx) => exitOf(spec, i, ctx))
  // Truly async: the answer comes after a yield to the scheduler.
  return Hook.effect((ctx) => Effect.flatMap(Effect.yieldNow, () => Effect.suspend(() => exitOf(spec, i, ctx))))
}

const stackOf = (specs: ReadonlyArray<Spec>, trigger: HookTrigger.HookTrigger, waits: boolean) =>
  specs.reduce(
    (stack: HookStack.HookStack<never>, spec, i) =>
      HookStack.with(stack, hookOf(spec, i, waits), { triggers: trigger, priority: spec.priority, onError: spec.onError, name: `h${i}` }),
    HookStack.empty,
  )

interface Seen {
  readonly atOnce: boolean
  readonly ctx?: HookContext.HookContext
  readonly errors?: ReadonlyArray<AgentError.HookFailed>
  readonly reached?: HookContext.HookContext | undefined
  readonly interrupted?: boolean
  readonly events: ReadonlyArray<HookExecuted.HookExecuted>
}

const outcome = (exit: Exit.Exit<HookContext.HookContext, AgentError.HookFailed>, events: ReadonlyArray<HookExecuted.HookExecuted>, atOnce: boolean): Seen => {
  if (Exit.isSuccess(exit)) return { atOnce, ctx: exit.value, events }
  const failure = exit.cause.reasons.find(Cause.isFailReason)
  if (failure === undefined) return { atOnce, interrupted: Cause.hasInterruptsOnly(exit.cause), events }
  return { atOnce, errors: HookStack.failuresOf(failure.error), reached: HookStack.contextAtFailure(failure.error), events }
}

// `interceptNow` with a counting clock, called in a fiber (as the loop calls it): at once
// when it can, else the Effect it gives.
const dispatchNow = async (stack: HookStack.HookStack<never>, ctx: HookContext.HookContext): Promise<Seen> => {
  const events: Array<HookExecuted.HookExecuted> = []
  let tick = 1_000
  let atOnce = false
  const exit = await Effect.runPromiseExit(Effect.suspend(() => {
    const out = stack.interceptNow(ctx, { sink: (e) => events.push(e), now: () => tick++ })
    atOnce = !Effect.isEffect(out) || Exit.isExit(out)
    return Effect.isEffect(out) ? out : Effect.succeed(out)
  }))
  return outcome(exit, events, atOnce)
}

// The Effect form, on a TestClock (every reading 0).
const intercepted = async (stack: HookStack.HookStack<never>, ctx: HookContext.HookContext): Promise<Seen> => {
  const events: Array<HookExecuted.HookExecuted> = []
  const exit = await Effect.runPromiseExit(
    HookStack.intercept(stack, ctx).pipe(
      Effect.provideService(HookExecuted.CurrentEventSink, (e: HookExecuted.HookExecuted) => events.push(e)),
      Effect.provide(TestClock.layer()),
    ),
  )
  return outcome(exit, events, false)
}

const spec: fc.Arbitrary<Spec> = fc.record({
  kind: fc.constantFrom<Kind>("pure", "exit", "exit", "async"),
  does: fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom<Does>("same", "change", "stop") },
    { weight: 3, arbitrary: fc.constantFrom<Does>("throw", "garbage") },
    { weight: 1, arbitrary: fc.constantFrom<Does>("interrupt", "abortSelf") },
  ),
  priority: fc.integer({ min: -2, max: 2 }),
  onError: fc.constantFrom("fail" as const, "skip" as const),
})
// A pure hook cannot interrupt.
const specs = fc.array(spec, { maxLength: 8 }).map((xs) => xs.map((s) => (s.kind === "pure" && (s.does === "interrupt" || s.does === "abortSelf") ? { ...s, does: "same" as const } : s)))
const trigger = fc.constantFrom<HookTrigger.HookTrigger>("BeforeStep", "AfterExecution")

const without = ({ atOnce: _, ...rest }: Seen) => rest

describe("HookStack", () => {
  describe("interceptNow", () => {
    it("answers as the Effect path does, at once when no hook waits", async () => {
      await fc.assert(
        fc.asyncProperty(specs, trigger, async (list, at) => {
          const ctx = HookContext.make({ trigger: at, state, createdAt: 1 })
          const fast = await dispatchNow(stackOf(list, at, false), ctx)
          const slow = await dispatchNow(stackOf(list, at, true), ctx)
          expect(without(fast)).toEqual(without(slow))
          // Nothing waits (no async hook, no interruption): the dispatch never needs a fiber.
          if (list.every((s) => s.kind !== "async" && s.does !== "interrupt" && s.does !== "abortSelf")) expect(fast.atOnce).toBe(true)
        }),
        { numRuns: 300 },
      )
    })

    it("gives what HookStack.intercept gives, events and times included", async () => {
      await fc.assert(
        fc.asyncProperty(specs.map((xs) => xs.filter((s) => s.does !== "abortSelf")), trigger, async (list, at) => {
          const ctx = HookContext.make({ trigger: at, state, createdAt: 1 })
          const stack = stackOf(list, at, false)
          const events: Array<HookExecuted.HookExecuted> = []
          const out = stack.interceptNow(ctx, { sink: (e) => events.push(e), now: () => 0 })
          const now = Effect.isEffect(out) ? outcome(await Effect.runPromiseExit(out), events, false) : { atOnce: false, ctx: out, events }

          expect(without(now)).toEqual(without(await intercepted(stack, ctx)))
        }),
        { numRuns: 150 },
      )
    })

    it("stops at a hook that interrupts its own fiber, as the runtime did", async () => {
      const ctx = HookContext.make({ trigger: "BeforeStep", state, createdAt: 1 })
      const ran: Array<string> = []
      const stack = HookStack.with(
        HookStack.with(HookStack.empty, Hook.effect((c) => {
          Fiber.getCurrent()?.interruptUnsafe()
          return Effect.succeed(c)
        }), { triggers: "BeforeStep", name: "x:stops" }),
        (c: HookContext.HookContext) => {
          ran.push("after")
          return c
        },
        { triggers: "BeforeStep", name: "x:after" },
      )
      const exit = await Effect.runPromiseExit(Effect.suspend(() => {
        const out = stack.interceptNow(ctx, { sink: undefined, now: () => 5 })
        return Effect.isEffect(out) ? out : Effect.succeed(out)
      }))
      expect(Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause)).toBe(true)
      expect(ran).toEqual([])
    })

    it("runs a hook that answers with Effect.succeed without a fiber", () => {
      const ctx = HookContext.make({ trigger: "BeforeStep", state, createdAt: 1 })
      const stack = HookStack.with(HookStack.empty, Hook.effect((c) => Effect.succeed(HookContext.withMetadata(c, { seen: true }))), { triggers: "BeforeStep" })
      const out = stack.interceptNow(ctx, { sink: undefined, now: () => 5 })
      expect(Effect.isEffect(out)).toBe(false)
      expect((out as HookContext.HookContext).metadata).toEqual({ seen: true })
      expect((out as HookContext.HookContext).updatedAt).toBe(5)
    })

    it("fails at once with the Exit of a HookFailed naming the hook", () => {
      const ctx = HookContext.make({ trigger: "BeforeStep", state, createdAt: 1 })
      const stack = HookStack.with(HookStack.empty, Hook.effect(() => Effect.fail(new Error("no"))), { triggers: "BeforeStep", name: "x:fails" })
      const out = stack.interceptNow(ctx, { sink: undefined, now: () => 5 })
      expect(Exit.isExit(out)).toBe(true)
      const exit = out as Exit.Exit<HookContext.HookContext, AgentError.HookFailed>
      expect(Exit.isFailure(exit) && exit.cause.reasons.find(Cause.isFailReason)?.error).toMatchObject({ _tag: "HookFailed", hook: "x:fails", trigger: "BeforeStep" })
    })
  })
})
