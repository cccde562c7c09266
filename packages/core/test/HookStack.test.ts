import { Effect, Exit, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { pipe } from "effect/Function"
import { describe, expect, it } from "vitest"
import { AgentError, AgentState, Hook, HookContext, HookExecuted, HookStack, HookTriggers, Message, type HookTrigger } from "@hookline/core"
import { caught } from "./caught.js"

const state = AgentState.make({ id: "s", messages: [Message.user("hi")] })
const stepCtx = HookContext.make({ trigger: "BeforeStep", state, createdAt: 100 })
const toolCtx = HookContext.make({ trigger: "BeforeToolUse", state, createdAt: 100, toolCall: { id: "c1", name: "shell", arguments: {} } })
const tag = (key: string): Hook => (ctx) => HookContext.withMetadata(ctx, { [key]: true })
const on = (trigger: HookTrigger, name: string, priority = 0) => ({ triggers: trigger, name, priority })

describe("HookStack", () => {
  describe("with", () => {
    it("returns a new stack and leaves the original unchanged", () => {
      const one = HookStack.with(HookStack.empty, tag("a"), on("BeforeStep", "a"))
      const two = HookStack.with(one, tag("b"), on("BeforeStep", "b"))
      expect(HookStack.order(one, "BeforeStep")).toEqual(["a"])
      expect(HookStack.order(two, "BeforeStep")).toEqual(["a", "b"])
    })

    it("runs higher priority first and keeps registration order among equals", () => {
      const stack = pipe(
        HookStack.empty,
        HookStack.with(tag("low"), on("BeforeStep", "low", -5)),
        HookStack.with(tag("first"), on("BeforeStep", "first", 10)),
        HookStack.with(tag("second"), on("BeforeStep", "second", 10)),
        HookStack.with(tag("mid"), on("BeforeStep", "mid", 0)),
      )
      expect(HookStack.order(stack, "BeforeStep")).toEqual(["first", "second", "mid", "low"])
    })

    it("names a hook after its function when no name is given", () => {
      const audit: Hook = (ctx) => ctx
      const stack = HookStack.with(HookStack.empty, audit, { triggers: HookTriggers.all })
      expect(HookStack.order(stack, "OnStop")).toEqual(["audit"])
    })

    it("rejects an unknown trigger with InvalidConfiguration naming it", () => {
      const error = caught(() => HookStack.with(HookStack.empty, tag("a"), { triggers: ["BeforeStep", "BeforeLunch" as "BeforeStep"] }))
      expect(error).toMatchObject({ _tag: "InvalidConfiguration", path: "triggers[1]" })
      expect(error.message).toContain("BeforeLunch")
    })

    it("rejects a priority that is not a finite number", () => {
      expect(caught(() => HookStack.with(HookStack.empty, tag("a"), { triggers: "BeforeStep", priority: Number.NaN })))
        .toMatchObject({ _tag: "InvalidConfiguration", path: "priority" })
      expect(caught(() => HookStack.with(HookStack.empty, tag("a"), { triggers: "BeforeStep", priority: "high" as unknown as number })))
        .toMatchObject({ _tag: "InvalidConfiguration", path: "priority" })
    })

    it("rejects an unknown option, naming it: a typo would leave the default silently", () => {
      const error = caught(() => HookStack.with(HookStack.empty, tag("a"), { triggers: "BeforeStep", priorty: 5 } as HookStack.HookOptions))
      expect(error).toMatchObject({ _tag: "InvalidConfiguration", path: "priorty" })
      expect(error.message).toContain("expected one of triggers, priority, name, onError")
    })

    it("rejects an unknown onError policy", () => {
      expect(caught(() => HookStack.with(HookStack.empty, tag("a"), { triggers: "BeforeStep", onError: "ignore" as "skip" })))
        .toMatchObject({ _tag: "InvalidConfiguration", path: "onError" })
    })

    it("rejects an empty trigger set and a hook that is not a hook", () => {
      expect(caught(() => HookStack.with(HookStack.empty, tag("a"), { triggers: [] })))
        .toMatchObject({ _tag: "InvalidConfiguration", path: "triggers" })
      expect(caught(() => HookStack.with(HookStack.empty, 42 as unknown as Hook, { triggers: "BeforeStep" })))
        .toMatchObject({ _tag: "InvalidConfiguration", path: "hook" })
    })
  })

  describe("without", () => {
    it("removes every hook of that name", () => {
      const stack = pipe(
        HookStack.empty,
        HookStack.with(tag("a"), on("BeforeStep", "audit")),
        HookStack.with(tag("b"), on("AfterStep", "audit")),
        HookStack.with(tag("c"), on("BeforeStep", "keep")),
        HookStack.without("audit"),
      )
      expect(HookStack.explain(stack).map((e) => [e.trigger, e.hooks.map((h) => h.name)])).toEqual([["BeforeStep", ["keep"]]])
    })

    it("returns the same stack when no hook has that name", () => {
      const stack = HookStack.with(HookStack.empty, tag("a"), on("BeforeStep", "a"))
      expect(HookStack.without(stack, "zzz")).toBe(stack)
    })
  })

  describe("concat", () => {
    it("places the second stack's hooks after the first's at equal priority", () => {
      const a = HookStack.with(HookStack.empty, tag("a"), on("BeforeStep", "a"))
      const b = HookStack.with(HookStack.empty, tag("b"), on("BeforeStep", "b"))
      expect(HookStack.order(HookStack.concat(a, b), "BeforeStep")).toEqual(["a", "b"])
      expect(HookStack.order(pipe(b, HookStack.concat(a)), "BeforeStep")).toEqual(["b", "a"])
    })
  })

  describe("explain", () => {
    it("lists the resolved order of each trigger that has hooks", () => {
      const stack = pipe(
        HookStack.empty,
        HookStack.with(tag("a"), { triggers: HookTriggers.of("BeforeStep", "AfterStep"), name: "a", onError: "skip" }),
        HookStack.with(Hook.effect((c) => Effect.succeed(c)), { triggers: "AfterStep", name: "e", priority: 5 }),
      )
      expect(HookStack.explain(stack)).toEqual([
        { trigger: "BeforeStep", hooks: [{ name: "a", priority: 0, onError: "skip", effectful: false, observer: false }] },
        {
          trigger: "AfterStep",
          hooks: [
            { name: "e", priority: 5, onError: "fail", effectful: true, observer: false },
            { name: "a", priority: 0, onError: "skip", effectful: false, observer: false },
          ],
        },
      ])
    })
  })

  describe("run", () => {
    it("passes each hook what the previous one returned", () => {
      const seen: Array<unknown> = []
      const stack = pipe(
        HookStack.empty,
        HookStack.with(tag("a"), on("BeforeStep", "a", 2)),
        HookStack.with(Hook.observe((ctx) => seen.push(ctx.metadata)), on("BeforeStep", "spy", 1)),
      )
      HookStack.run(stack, stepCtx)
      expect(seen).toEqual([{ a: true }])
    })

    it("runs only the hooks of the context's trigger", () => {
      const stack = pipe(HookStack.empty, HookStack.with(tag("a"), on("AfterStep", "a")))
      expect(HookStack.run(stack, stepCtx)).toBe(stepCtx)
    })

    it("returns the same context when every hook returns its input", () => {
      const stack = HookStack.with(HookStack.empty, Hook.observe(() => {}), on("BeforeStep", "noop"))
      expect(HookStack.run(stack, stepCtx)).toBe(stepCtx)
    })

    it("fails with HookIsEffectful naming the hook when the trigger has an effectful hook", () => {
      const stack = HookStack.with(HookStack.empty, Hook.effect((c) => Effect.succeed(c)), on("BeforeStep", "io:fetch"))
      expect(caught(() => HookStack.run(stack, stepCtx))).toMatchObject({ _tag: "HookIsEffectful", hook: "io:fetch", trigger: "BeforeStep" })
    })

    it("turns a throw into HookFailed naming the hook and the trigger", () => {
      const boom: Hook = () => {
        throw new Error("boom")
      }
      const stack = HookStack.with(HookStack.empty, boom, on("BeforeStep", "bad:hook"))
      const error = caught(() => HookStack.run(stack, stepCtx))
      expect(error).toMatchObject({ _tag: "HookFailed", hook: "bad:hook", trigger: "BeforeStep" })
      expect(error.message).toContain("boom")
    })

    it("skips a throwing hook under onError 'skip' and passes its input on", () => {
      const boom: Hook = () => {
        throw new Error("boom")
      }
      const stack = pipe(
        HookStack.empty,
        HookStack.with(boom, { triggers: "BeforeStep", name: "flaky", onError: "skip", priority: 1 }),
        HookStack.with(tag("after"), on("BeforeStep", "after")),
      )
      expect(HookStack.run(stack, stepCtx).metadata).toEqual({ after: true })
    })

    it("fails a hook that returns something that is not a context", () => {
      const stack = HookStack.with(HookStack.empty, (() => undefined) as unknown as Hook, on("BeforeStep", "void"))
      expect(caught(() => HookStack.run(stack, stepCtx))).toMatchObject({ _tag: "HookFailed", hook: "void" })
    })

    it("fails a hook that changes the trigger", () => {
      const stack = HookStack.with(HookStack.empty, (ctx) => ({ ...ctx, trigger: "AfterStep" as const }), on("BeforeStep", "liar"))
      const error = caught(() => HookStack.run(stack, stepCtx))
      expect(error).toMatchObject({ _tag: "HookFailed", hook: "liar" })
      expect(error.message).toContain("trigger")
    })

    it("freezes a context a hook built by hand", () => {
      const stack = HookStack.with(HookStack.empty, (ctx) => ({ ...ctx, metadata: { raw: [1] } }), on("BeforeStep", "raw"))
      const out = HookStack.run(stack, stepCtx)
      expect(Object.isFrozen(out)).toBe(true)
      expect(Object.isFrozen(out.metadata["raw"])).toBe(true)
    })

    it("freezes the new parts under a frozen shell a hook built by hand, before the next hook sees them", () => {
      // A frozen context (and a frozen state) over parts nobody froze: the shell alone
      // must not pass for deeply frozen data.
      const shell: Hook = (ctx) =>
        Object.freeze({
          ...ctx,
          metadata: { raw: [1] },
          state: Object.freeze({ ...ctx.state, metadata: { nested: { n: 1 } }, execution: Object.freeze({ ...ctx.state.execution, stopSignals: [{ reason: "StopRequested", message: "m", source: "s" }] }) }),
        }) as HookContext.HookContext
      const seen: Array<HookContext.HookContext> = []
      const watch: Hook = (ctx) => {
        seen.push(ctx)
        return ctx
      }
      const stack = pipe(HookStack.empty, HookStack.with(shell, on("BeforeStep", "shell", 1)), HookStack.with(watch, on("BeforeStep", "watch")))
      const out = HookStack.run(stack, stepCtx)
      for (const ctx of [seen[0] as HookContext.HookContext, out]) {
        expect(Object.isFrozen(ctx.metadata)).toBe(true)
        expect(Object.isFrozen(ctx.metadata["raw"])).toBe(true)
        expect(Object.isFrozen(ctx.state.metadata)).toBe(true)
        expect(Object.isFrozen(ctx.state.metadata["nested"])).toBe(true)
        expect(Object.isFrozen(ctx.state.execution.stopSignals)).toBe(true)
        expect(Object.isFrozen(ctx.state.execution.stopSignals[0])).toBe(true)
      }
      // Parts the hook did not touch are the input's, not copies.
      expect(out.state.context).toBe(stepCtx.state.context)
    })

    it("keeps a block that a later hook tries to lift", () => {
      const stack = pipe(
        HookStack.empty,
        HookStack.with((ctx) => HookContext.withToolExecutionBlocked(ctx, "policy"), on("BeforeToolUse", "deny", 10)),
        HookStack.with((ctx) => ({ ...ctx, toolExecutionBlocked: false, toolExecution: undefined }), on("BeforeToolUse", "lift")),
      )
      const out = HookStack.run(stack, toolCtx)
      expect(out.toolExecutionBlocked).toBe(true)
      expect(out.toolExecution).toMatchObject({ status: "blocked", reason: "policy" })
    })

    it("keeps a block that a later hook tries to turn into a result", () => {
      const stack = pipe(
        HookStack.empty,
        HookStack.with((ctx) => HookContext.withToolExecutionBlocked(ctx, "policy"), on("BeforeToolUse", "deny", 10)),
        HookStack.with(
          (ctx) => ({ ...ctx, toolExecution: { ...ctx.toolExecution!, status: "success" as const, output: "ok" } }) as HookContext,
          on("BeforeToolUse", "forge"),
        ),
      )
      expect(HookStack.run(stack, toolCtx).toolExecution).toMatchObject({ status: "blocked", reason: "policy" })
    })

    it("sends one HookExecuted event per hook to the sink, with its outcome", () => {
      const { sink, events } = HookExecuted.collect()
      const boom: Hook = () => {
        throw new Error("nope")
      }
      const stack = pipe(
        HookStack.empty,
        HookStack.with(tag("a"), on("BeforeStep", "changer", 3)),
        HookStack.with(Hook.identity, on("BeforeStep", "idle", 2)),
        HookStack.with(boom, { triggers: "BeforeStep", name: "flaky", priority: 1, onError: "skip" }),
      )
      let clock = 1_000
      HookStack.run(stack, stepCtx, { sink, now: () => (clock += 2) })
      expect(events.map((e) => [e.hook, e.trigger, e.outcome])).toEqual([
        ["changer", "BeforeStep", "changed"],
        ["idle", "BeforeStep", "unchanged"],
        ["flaky", "BeforeStep", "skipped"],
      ])
      expect(events[0]).toMatchObject({ _tag: "HookExecuted", startedAt: 1_002, durationMs: 2 })
      expect(events[2]?.error).toBe("nope")
    })

    it("reads the clock once between two hooks: one hook's end is the next one's start", () => {
      const { sink, events } = HookExecuted.collect()
      const stack = pipe(
        HookStack.empty,
        HookStack.with(tag("a"), on("BeforeStep", "a", 3)),
        HookStack.with(Hook.identity, on("BeforeStep", "b", 2)),
        HookStack.with(tag("c"), on("BeforeStep", "c", 1)),
      )
      let readings = 0
      const out = HookStack.run(stack, stepCtx, { sink, now: () => 1_000 + 5 * ++readings })
      expect(readings).toBe(4)
      expect(events.map((e) => [e.hook, e.startedAt, e.durationMs])).toEqual([["a", 1_005, 5], ["b", 1_010, 5], ["c", 1_015, 5]])
      // The change is stamped with the last reading: when the last hook ended.
      expect(out.updatedAt).toBe(1_020)
    })

    it("reports a failing hook to the sink before failing", () => {
      const { sink, events } = HookExecuted.collect()
      const stack = HookStack.with(HookStack.empty, () => {
        throw new Error("x")
      }, on("BeforeStep", "bad"))
      caught(() => HookStack.run(stack, stepCtx, { sink }))
      expect(events.map((e) => e.outcome)).toEqual(["failed"])
    })

    it("ignores a sink that throws", () => {
      const stack = HookStack.with(HookStack.empty, tag("a"), on("BeforeStep", "a"))
      const out = HookStack.run(stack, stepCtx, {
        sink: () => {
          throw new Error("sink down")
        },
      })
      expect(out.metadata).toEqual({ a: true })
    })

    it("stamps updatedAt with the clock when a hook changed the context", () => {
      const stack = HookStack.with(HookStack.empty, tag("a"), on("BeforeStep", "a"))
      expect(HookStack.run(stack, stepCtx, { now: () => 777 }).updatedAt).toBe(777)
      expect(HookStack.run(stack, stepCtx).updatedAt).toBe(stepCtx.updatedAt)
    })
  })

  describe("intercept", () => {
    it("runs pure and effectful hooks in the resolved order", async () => {
      const order: Array<string> = []
      const pure = (n: string): Hook => (ctx) => {
        order.push(n)
        return tag(n)(ctx)
      }
      const effectful = (n: string) =>
        Hook.effect((ctx: HookContext) => Effect.sync(() => order.push(n)).pipe(Effect.as(tag(n)(ctx))))
      const stack = pipe(
        HookStack.empty,
        HookStack.with(pure("p1"), on("BeforeStep", "p1", 3)),
        HookStack.with(effectful("e1"), on("BeforeStep", "e1", 2)),
        HookStack.with(pure("p2"), on("BeforeStep", "p2", 1)),
        HookStack.with(effectful("e2"), on("BeforeStep", "e2", 0)),
      )
      const out = await Effect.runPromise(HookStack.intercept(stack, stepCtx))
      expect(order).toEqual(["p1", "e1", "p2", "e2"])
      expect(out.metadata).toEqual({ p1: true, e1: true, p2: true, e2: true })
    })

    it("fails with HookFailed when an effectful hook fails under 'fail'", async () => {
      const stack = HookStack.with(HookStack.empty, Hook.effect(() => Effect.fail("db down")), on("BeforeStep", "db:load"))
      const exit = await Effect.runPromiseExit(stack.intercept(stepCtx))
      expect(exit).toEqual(Exit.fail(expect.objectContaining({ _tag: "HookFailed", hook: "db:load", trigger: "BeforeStep" })))
    })

    it("turns a rejected promise hook into HookFailed", async () => {
      const stack = HookStack.with(HookStack.empty, Hook.promise(async () => {
        throw new Error("rejected")
      }), on("BeforeStep", "p"))
      const error = await Effect.runPromise(Effect.flip(stack.intercept(stepCtx)))
      expect(error).toMatchObject({ _tag: "HookFailed", hook: "p" })
      expect(error.message).toContain("rejected")
    })

    it("skips a failing effectful hook under 'skip'", async () => {
      const stack = pipe(
        HookStack.empty,
        HookStack.with(Hook.effect(() => Effect.fail("x")), { triggers: "BeforeStep", name: "flaky", onError: "skip", priority: 1 }),
        HookStack.with(tag("after"), on("BeforeStep", "after")),
      )
      const out = await Effect.runPromise(stack.intercept(stepCtx))
      expect(out.metadata).toEqual({ after: true })
    })

    it("propagates interruption instead of skipping the hook", async () => {
      let ranAfter = false
      const stack = pipe(
        HookStack.empty,
        HookStack.with(Hook.effect(() => Effect.never), { triggers: "BeforeToolUse", name: "approve", onError: "skip", priority: 1 }),
        HookStack.with(Hook.observe(() => {
          ranAfter = true
        }), on("BeforeToolUse", "after")),
      )
      const exit = await Effect.runPromiseExit(
        Effect.gen(function*() {
          const fiber = yield* Effect.forkChild(stack.intercept(toolCtx), { startImmediately: true })
          yield* Effect.yieldNow
          yield* Fiber.interrupt(fiber)
          return yield* Fiber.await(fiber)
        }),
      )
      expect(Exit.isSuccess(exit) && Exit.hasInterrupts(exit.value)).toBe(true)
      expect(ranAfter).toBe(false)
    })

    it("keeps a block that an effectful hook tries to lift", async () => {
      const stack = pipe(
        HookStack.empty,
        HookStack.with((ctx) => HookContext.withToolExecutionBlocked(ctx, "policy"), on("BeforeToolUse", "deny", 10)),
        HookStack.with(Hook.effect((ctx) => Effect.succeed({ ...ctx, toolExecutionBlocked: false })), on("BeforeToolUse", "lift")),
      )
      const out = await Effect.runPromise(stack.intercept(toolCtx))
      expect(out.toolExecutionBlocked).toBe(true)
    })

    it("sends events to the CurrentEventSink with times from the Effect clock", async () => {
      const { sink, events } = HookExecuted.collect()
      const stack = pipe(
        HookStack.empty,
        HookStack.with(Hook.effect((ctx) => Effect.sleep("3 seconds").pipe(Effect.as(tag("slow")(ctx)))), on("BeforeStep", "slow", 1)),
        HookStack.with(tag("fast"), on("BeforeStep", "fast")),
      )
      const program = Effect.gen(function*() {
        yield* TestClock.setTime(10_000)
        const fiber = yield* Effect.forkChild(stack.intercept(stepCtx), { startImmediately: true })
        yield* TestClock.adjust("3 seconds")
        return yield* Fiber.join(fiber)
      })
      const out = await Effect.runPromise(
        program.pipe(Effect.provideService(HookExecuted.CurrentEventSink, sink), Effect.provide(TestClock.layer())),
      )
      expect(events.map((e) => [e.hook, e.outcome, e.startedAt, e.durationMs])).toEqual([
        ["slow", "changed", 10_000, 3_000],
        ["fast", "changed", 13_000, 0],
      ])
      expect(out.updatedAt).toBe(13_000)
    })

    it("emits nothing when no sink is set", async () => {
      const stack = HookStack.with(HookStack.empty, Hook.effect((c) => Effect.succeed(c)), on("BeforeStep", "e"))
      const out = await Effect.runPromise(stack.intercept(stepCtx))
      expect(out).toBe(stepCtx)
    })
  })
})

describe("HookStack.contextAtFailure", () => {
  it("gives the context the failing hook was given, on the synchronous and the Effect path", async () => {
    const boom: Hook = () => {
      throw new Error("boom")
    }
    const stack = pipe(
      HookStack.empty,
      HookStack.with(tag("before"), on("BeforeStep", "before", 10)),
      HookStack.with(boom, on("BeforeStep", "boom", 0)),
      HookStack.with(tag("after"), on("BeforeStep", "after", -10)),
    )
    const syncError = caught(() => HookStack.run(stack, stepCtx)) as AgentError.HookFailed
    expect(HookStack.contextAtFailure(syncError)?.metadata).toEqual({ before: true })
    const effectful = pipe(
      HookStack.empty,
      HookStack.with(tag("before"), on("BeforeStep", "before", 10)),
      HookStack.with(Hook.effect(() => Effect.fail("boom")), on("BeforeStep", "boom", 0)),
    )
    const exit = await Effect.runPromiseExit(HookStack.intercept(effectful, stepCtx))
    const effectError = Exit.isFailure(exit) ? exit.cause.reasons.find((r) => r._tag === "Fail")?.error : undefined
    expect(effectError === undefined ? undefined : HookStack.contextAtFailure(effectError)?.metadata).toEqual({ before: true })
    // Not from a stack: nothing known.
    expect(HookStack.contextAtFailure(AgentError.hookFailed("x", "BeforeStep", "no"))).toBeUndefined()
  })
})
