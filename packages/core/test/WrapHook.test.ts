import { Effect, Exit } from "effect"
import { pipe } from "effect/Function"
import { describe, expect, it } from "vitest"
import {
  AgentError,
  AgentState,
  HookContext,
  HookExecuted,
  HookStack,
  InferenceRequest,
  InferenceResponse,
  Message,
  ToolExecution,
  WrapHook,
  type InferenceResponse as Response,
} from "@hookline/core"

const state = AgentState.make({ id: "s", messages: [Message.user("hi")] })
const request = InferenceRequest.make({ messages: [Message.user("hi")] })
const ctx = HookContext.make({ trigger: "BeforeInference", state, createdAt: 1, request })
const toolCall = { id: "c1", name: "add", arguments: { a: 1 } }
const toolCtx = HookContext.make({ trigger: "BeforeToolUse", state, createdAt: 1, toolCall })
const answer = (text: string) => InferenceResponse.make({ text, modelId: "m" })
const failed = (status: number) => AgentError.inferenceFailed(`HTTP ${status}`, { status, retryable: true })

// A model call from a script of outcomes; records what it was given.
const scripted = (outcomes: ReadonlyArray<Response | AgentError.InferenceFailed>) => {
  const seen: Array<{ ctx: HookContext; model: unknown }> = []
  const call = (c: HookContext, options: WrapHook.CallOptions | undefined) =>
    Effect.suspend(() => {
      const outcome = outcomes[seen.length] ?? answer("default")
      seen.push({ ctx: c, model: options?.model })
      return "_tag" in outcome ? Effect.fail(outcome) : Effect.succeed(outcome)
    })
  return { seen, call }
}

const retry = (times: number) =>
  WrapHook.inference((c, next) => {
    const attempt = (n: number): ReturnType<typeof next> =>
      Effect.catch(next(c), (e) => (n < times ? attempt(n + 1) : Effect.fail(e)))
    return attempt(1)
  })

const run = <A, E>(effect: Effect.Effect<A, E, never>) => Effect.runPromiseExit(effect)

describe("WrapHook", () => {
  describe("HookStack.wrapInference", () => {
    it("calls the model once, directly, when no wrap hook is registered", async () => {
      const { seen, call } = scripted([answer("a")])
      const exit = await run(HookStack.wrapInference(HookStack.empty, ctx, call))
      expect(exit).toEqual(Exit.succeed(answer("a")))
      expect(seen).toHaveLength(1)
      expect(seen[0]?.ctx).toBe(ctx)
    })

    it("lets a wrap hook call next several times (retry) and returns the answer that counts", async () => {
      const { seen, call } = scripted([failed(500), failed(500), answer("third")])
      const stack = HookStack.withWrap(HookStack.empty, retry(3), { name: "retry" })
      const exit = await run(HookStack.wrapInference(stack, ctx, call))
      expect(exit).toEqual(Exit.succeed(answer("third")))
      expect(seen).toHaveLength(3)
    })

    it("passes the call's error on when the wrap gives up", async () => {
      const { call } = scripted([failed(500), failed(503)])
      const stack = HookStack.withWrap(HookStack.empty, retry(2), { name: "retry" })
      const exit = await run(HookStack.wrapInference(stack, ctx, call))
      expect(exit).toEqual(Exit.fail(failed(503)))
    })

    it("lets a wrap hook answer itself without calling next", async () => {
      const { seen, call } = scripted([])
      const cached = WrapHook.inference(() => Effect.succeed(answer("cached")))
      const exit = await run(HookStack.wrapInference(HookStack.withWrap(HookStack.empty, cached), ctx, call))
      expect(exit).toEqual(Exit.succeed(answer("cached")))
      expect(seen).toHaveLength(0)
    })

    it("passes an edited context and another model down to the call", async () => {
      const { seen, call } = scripted([answer("x")])
      const edit = WrapHook.inference((c, next) =>
        next(HookContext.withRequest(c, InferenceRequest.make({ systemPrompt: "terse", messages: [] })), { model: "backup" })
      )
      await run(HookStack.wrapInference(HookStack.withWrap(HookStack.empty, edit), ctx, call))
      expect(seen[0]?.ctx.request?.systemPrompt).toBe("terse")
      expect(seen[0]?.model).toBe("backup")
    })

    it("nests by priority, higher outside, equal priorities in registration order", async () => {
      const order: Array<string> = []
      const mark = (name: string) =>
        WrapHook.inference((c, next) =>
          Effect.suspend(() => {
            order.push(`>${name}`)
            return Effect.tap(next(c), () => Effect.sync(() => order.push(`<${name}`)))
          })
        )
      const stack = pipe(
        HookStack.empty,
        HookStack.withWrap(mark("low"), { name: "low", priority: -1 }),
        HookStack.withWrap(mark("a"), { name: "a", priority: 5 }),
        HookStack.withWrap(mark("b"), { name: "b", priority: 5 }),
      )
      await run(HookStack.wrapInference(stack, ctx, scripted([answer("x")]).call))
      expect(order).toEqual([">a", ">b", ">low", "<low", "<b", "<a"])
      expect(HookStack.explain(stack)).toEqual([{
        trigger: "WrapInference",
        hooks: [
          { name: "a", priority: 5, onError: "fail", effectful: true, observer: false },
          { name: "b", priority: 5, onError: "fail", effectful: true, observer: false },
          { name: "low", priority: -1, onError: "fail", effectful: true, observer: false },
        ],
      }])
    })

    it("fails with HookFailed when a wrap hook under 'fail' throws, and an outer retry does not retry it", async () => {
      const { seen, call } = scripted([answer("x"), answer("y")])
      const broken = WrapHook.inference(() => Effect.sync(() => { throw new Error("bug") }))
      const stack = pipe(HookStack.empty, HookStack.withWrap(retry(3), { name: "retry", priority: 1 }), HookStack.withWrap(broken, { name: "broken" }))
      const exit = await run(HookStack.wrapInference(stack, ctx, call))
      expect(exit).toEqual(Exit.fail(AgentError.hookFailed("broken", "WrapInference", "bug")))
      expect(seen).toHaveLength(0)
    })

    it("skips a wrap hook under 'skip': the result of its last next passes on, or next runs once", async () => {
      const sink = HookExecuted.collect()
      const afterNext = WrapHook.inference((c, next) => Effect.flatMap(next(c), () => Effect.fail("oops")))
      const before = WrapHook.inference(() => Effect.die("early"))
      const a = scripted([answer("first")])
      const exitA = await run(
        HookStack.wrapInference(HookStack.withWrap(HookStack.empty, afterNext, { name: "after", onError: "skip" }), ctx, a.call, { sink: sink.sink, now: () => 0 }),
      )
      expect(exitA).toEqual(Exit.succeed(answer("first")))
      expect(a.seen).toHaveLength(1)
      const b = scripted([answer("second")])
      const exitB = await run(HookStack.wrapInference(HookStack.withWrap(HookStack.empty, before, { name: "before", onError: "skip" }), ctx, b.call))
      expect(exitB).toEqual(Exit.succeed(answer("second")))
      expect(sink.events.map((e) => [e.trigger, e.hook, e.outcome])).toEqual([["WrapInference", "after", "skipped"]])
    })

    it("reports one HookExecuted per wrap hook: unchanged when it passed on what next gave", async () => {
      const sink = HookExecuted.collect()
      const pass = WrapHook.inference((c, next) => next(c))
      const own = WrapHook.inference((c, next) => Effect.map(next(c), () => answer("mine")))
      const stack = pipe(HookStack.empty, HookStack.withWrap(pass, { name: "pass", priority: 1 }), HookStack.withWrap(own, { name: "own" }))
      await run(HookStack.wrapInference(stack, ctx, scripted([answer("x")]).call, { sink: sink.sink, now: () => 5 }))
      expect(sink.events.map((e) => [e.hook, e.outcome])).toEqual([["own", "changed"], ["pass", "unchanged"]])
    })

    it("refuses a next context of another trigger, as the calling hook's failure", async () => {
      const wrong = WrapHook.inference((c, next) => next({ ...c, trigger: "AfterStep" }))
      const exit = await run(HookStack.wrapInference(HookStack.withWrap(HookStack.empty, wrong, { name: "wrong" }), ctx, scripted([]).call))
      expect(Exit.isFailure(exit) && JSON.stringify(exit.cause)).toContain("changed the trigger")
    })

    it("refuses a return that is not a response", async () => {
      const garbage = WrapHook.inference(() => Effect.succeed({ nope: true } as never))
      const exit = await run(HookStack.wrapInference(HookStack.withWrap(HookStack.empty, garbage, { name: "g" }), ctx, scripted([]).call))
      expect(Exit.isFailure(exit) && JSON.stringify(exit.cause)).toContain("not a result of the call")
    })
  })

  describe("HookStack.wrapToolUse", () => {
    it("retries a failed tool execution until it succeeds", async () => {
      let calls = 0
      const call = (c: HookContext) =>
        Effect.sync(() =>
          ++calls < 2
            ? ToolExecution.failure(c.toolCall!, AgentError.toolFailed(c.toolCall!.id, c.toolCall!.name, "flaky"), 0)
            : ToolExecution.success(c.toolCall!, 2, 0)
        )
      const again = WrapHook.toolUse((c, next) => Effect.flatMap(next(c), (e) => (e.status === "failure" ? next(c) : Effect.succeed(e))))
      const exit = await run(HookStack.wrapToolUse(HookStack.withWrap(HookStack.empty, again), toolCtx, call))
      expect(Exit.isSuccess(exit) && exit.value.status).toBe("success")
      expect(calls).toBe(2)
    })

    it("runs a wrap made with forTools only for the named tools", async () => {
      const short = WrapHook.forTools(["other"], WrapHook.toolUse((c) => Effect.succeed(ToolExecution.success(c.toolCall!, "short", 0))))
      const exit = await run(
        HookStack.wrapToolUse(HookStack.withWrap(HookStack.empty, short), toolCtx, (c) => Effect.succeed(ToolExecution.success(c.toolCall!, "real", 0))),
      )
      expect(Exit.isSuccess(exit) && exit.value.status === "success" && exit.value.output).toBe("real")
    })
  })

  describe("HookStack.withWrap", () => {
    it("validates the wrap hook and its options when registering", () => {
      const caught = (f: () => unknown) => {
        try {
          f()
        } catch (error) {
          return error instanceof AgentError.HooklineError ? error.error.message : String(error)
        }
        return "no error"
      }
      expect(caught(() => HookStack.withWrap(HookStack.empty, (() => 1) as never))).toMatch(/wrap/)
      expect(caught(() => HookStack.withWrap(HookStack.empty, retry(1), { priority: Number.NaN }))).toMatch(/priority/)
      expect(caught(() => HookStack.withWrap(HookStack.empty, retry(1), { onError: "ignore" } as never))).toMatch(/onError/)
      expect(caught(() => HookStack.withWrap(HookStack.empty, retry(1), { priorty: 1 } as never))).toMatch(/priorty/)
    })

    it("keeps wraps through concat and drops them by name with without", () => {
      const a = HookStack.withWrap(HookStack.empty, retry(1), { name: "r" })
      const both = HookStack.concat(a, HookStack.withWrap(HookStack.empty, retry(2), { name: "s" }))
      expect(both.wraps.WrapInference.map((r) => r.name)).toEqual(["r", "s"])
      expect(HookStack.without(both, "r").wraps.WrapInference.map((r) => r.name)).toEqual(["s"])
      expect(HookStack.hasWraps(HookStack.empty, "WrapInference")).toBe(false)
    })
  })
})
