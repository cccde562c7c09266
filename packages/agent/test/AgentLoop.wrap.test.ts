import { Cause, Effect, Fiber, Stream } from "effect"
import { describe, expect, it } from "vitest"
import {
  AgentError,
  Codecs,
  HookExecuted,
  HookStack,
  HookTriggers,
  InferenceResponse,
  Interceptor,
  ToolCall,
  ToolExecution,
  Usage,
  WrapHook,
  type AgentState,
} from "@hookline/core"
import { AgentBuilder, AgentEvent, AgentLoop, Driver, UseDriver, UseInterceptor } from "@hookline/agent"
import { ScriptedDriver } from "@hookline/testing"
import { add, stackOf, trail } from "./support.js"

// Calls next until it answers, at most `times` times.
const retry = (times: number) =>
  WrapHook.inference((ctx, next) => {
    const attempt = (n: number): ReturnType<typeof next> => Effect.catch(next(ctx), (e) => (n < times ? attempt(n + 1) : Effect.fail(e)))
    return attempt(1)
  })

const run = (loop: AgentLoop, driver: Driver, options?: AgentLoop.RunOptions): Promise<AgentState> =>
  Effect.runPromise(AgentLoop.run(loop, "question", options).pipe(Effect.provideService(Driver.Driver, driver)))

describe("AgentLoop with wrap hooks", () => {
  it("retries a failed model call inside one step; before/after hooks see the call once", async () => {
    const { seen, hook, options } = trail()
    const stack = HookStack.withWrap(HookStack.with(HookStack.empty, hook, options), retry(3), { name: "retry" })
    const driver = ScriptedDriver.make([
      ScriptedDriver.failure("busy", { status: 503, retryable: true }),
      ScriptedDriver.text("hello", { usage: { inputTokens: 3, outputTokens: 2 }, modelId: "m1" }),
    ])
    const final = await run(AgentLoop.make({ interceptor: stack }), driver)
    expect(final.execution.status).toBe("completed")
    expect(seen.filter((t) => t === "BeforeInference" || t === "AfterInference")).toEqual(["BeforeInference", "AfterInference"])
    const step = final.execution.steps.at(0)!
    expect(step.attempts?.map((a) => [a.modelId, a.error?.status])).toEqual([["scripted", 503], ["m1", undefined]])
    expect(final.execution.steps.length).toBe(1)
    // The step round-trips through its codec, attempts included.
    expect(Codecs.decodeUnsafe(Codecs.Step, Codecs.Step.encode(step))).toEqual(step)
  })

  it("counts the usage of an attempt a wrap hook discarded", async () => {
    // Asks twice and keeps the second answer.
    const secondOpinion = WrapHook.inference((ctx, next) => Effect.flatMap(next(ctx), () => next(ctx)))
    const driver = ScriptedDriver.make([
      ScriptedDriver.text("first", { usage: { inputTokens: 10, outputTokens: 5 } }),
      ScriptedDriver.text("second", { usage: { inputTokens: 10, outputTokens: 7 } }),
    ])
    const final = await run(AgentLoop.make({ interceptor: HookStack.withWrap(HookStack.empty, secondOpinion) }), driver)
    expect(final.execution.steps.at(0)?.response?.text).toBe("second")
    expect(Usage.total(final.execution.usage)).toBe(32)
  })

  it("records every attempt of a step that failed, and fails the run once the wrap gives up", async () => {
    const driver = ScriptedDriver.make([ScriptedDriver.failure("a"), ScriptedDriver.failure("b")])
    const final = await run(AgentLoop.make({ interceptor: HookStack.withWrap(HookStack.empty, retry(2)) }), driver)
    expect(final.execution.status).toBe("failed")
    expect(final.execution.steps.at(0)?.attempts?.map((a) => a.error?.message)).toEqual(["a", "b"])
  })

  it("sends a call to the model a wrap hook chose (a fallback)", async () => {
    const primary = ScriptedDriver.make([ScriptedDriver.failure("down", { status: 500 })])
    const backup = ScriptedDriver.make([ScriptedDriver.text("from backup", { modelId: "backup" })])
    const fallback = WrapHook.inference((ctx, next) => Effect.catch(next(ctx), () => next(ctx, { model: backup })))
    const final = await run(AgentLoop.make({ interceptor: HookStack.withWrap(HookStack.empty, fallback) }), primary)
    expect(final.execution.steps.at(0)?.response?.text).toBe("from backup")
    expect(final.execution.steps.at(0)?.attempts?.map((a) => a.modelId)).toEqual(["scripted", "backup"])
  })

  it("streams from the model a wrap hook chose, a driver with only generate included", async () => {
    const primary = Driver.make({ generate: () => Effect.fail(AgentError.inferenceFailed("down")) })
    const backup = Driver.make({ generate: () => Effect.succeed(InferenceResponse.make({ text: "from backup", modelId: "backup" })) })
    const fallback = WrapHook.inference((ctx, next) => Effect.catch(next(ctx), () => next(ctx, { model: backup })))
    const loop = AgentLoop.make({ interceptor: HookStack.withWrap(HookStack.empty, fallback) })
    const events = await Effect.runPromise(
      Stream.runCollect(AgentLoop.stream(loop, "question")).pipe(Effect.provideService(Driver.Driver, primary)),
    )
    expect(events.filter(AgentEvent.is("TextDelta")).map((e) => e.text)).toEqual(["from backup"])
  })

  it("fails the step with HookFailed when next gets a model that is not a driver", async () => {
    const bad = WrapHook.inference((ctx, next) => next(ctx, { model: { nope: 1 } }))
    const driver = ScriptedDriver.make([ScriptedDriver.text("x")])
    const final = await run(AgentLoop.make({ interceptor: HookStack.withWrap(HookStack.empty, bad, { name: "bad" }) }), driver)
    expect(final.execution.status).toBe("failed")
    expect(final.execution.errors.map((e) => e._tag === "HookFailed" && e.hook)).toEqual(["bad"])
  })

  it("reports a HookExecuted event per wrap hook", async () => {
    const events = HookExecuted.collect()
    const stack = HookStack.withWrap(HookStack.empty, retry(1), { name: "net:retry" })
    await run(AgentLoop.make({ interceptor: stack }), ScriptedDriver.make([ScriptedDriver.text("x")]), { sink: events.sink })
    expect(events.events.map((e) => [e.trigger, e.hook, e.outcome])).toEqual([["WrapInference", "net:retry", "unchanged"]])
  })

  it("retries a failed tool execution and records each attempt", async () => {
    let calls = 0
    const again = WrapHook.toolUse((ctx, next) =>
      Effect.flatMap(next(ctx), (execution) => (execution.status === "failure" ? next(ctx) : Effect.succeed(execution)))
    )
    // The first execution fails: arguments edited by the wrap into invalid ones, then fixed.
    const breakOnce = WrapHook.toolUse((ctx, next) =>
      Effect.suspend(() => next(calls++ === 0 ? { ...ctx, toolCall: { ...ctx.toolCall!, arguments: { a: "x" } } } : ctx))
    )
    const stack = HookStack.withWrap(HookStack.withWrap(HookStack.empty, again, { priority: 1 }), breakOnce)
    for (const toolConcurrency of ["sequential", "concurrent"] as const) {
      calls = 0
      const driver = ScriptedDriver.make([ScriptedDriver.toolCalls([{ name: "add", arguments: { a: 1, b: 2 } }]), ScriptedDriver.text("3")])
      const final = await run(AgentLoop.make({ interceptor: stack, tools: [add], toolConcurrency }), driver)
      const step = final.execution.steps.at(0)!
      expect(step.toolExecutions.map((e) => e.status === "success" && e.output)).toEqual([3])
      expect(step.toolAttempts?.map((a) => a.error?._tag)).toEqual(["ToolArgumentsInvalid", undefined])
      expect(final.execution.errors).toEqual([])
    }
  })

  it("refuses a tool wrap's execution for another call: a HookFailed naming the hook and both ids; every call is answered once", async () => {
    // The wrap answers with an execution for a call id of its own making.
    const forge = WrapHook.toolUse((ctx) =>
      Effect.succeed(ToolExecution.success(ToolCall.make({ id: "not-this-call", name: "add", arguments: {} }), 99, ctx.createdAt))
    )
    for (const toolConcurrency of ["sequential", "concurrent"] as const) {
      const stack = HookStack.withWrap(HookStack.empty, forge, { name: "test:forge" })
      const driver = ScriptedDriver.make([ScriptedDriver.toolCalls([{ id: "c1", name: "add", arguments: { a: 1, b: 2 } }]), ScriptedDriver.text("3")])
      const final = await run(AgentLoop.make({ interceptor: stack, tools: [add], toolConcurrency }), driver)
      expect(final.execution.status).toBe("failed")
      const failed = final.execution.errors.find((e) => e._tag === "HookFailed")
      expect(failed).toMatchObject({ _tag: "HookFailed", hook: "test:forge", trigger: "WrapToolUse" })
      expect(failed?.message).toContain('"not-this-call"')
      expect(failed?.message).toContain('"c1"')
      const answers = final.context.messages.toArray().filter((m) => m.role === "tool")
      expect(answers.map((m) => [m.toolCallId, m.isError])).toEqual([["c1", true]])
      expect(Codecs.stringifyState(Codecs.parseStateUnsafe(Codecs.stringifyState(final)))).toBe(Codecs.stringifyState(final))
    }
    // Under onError 'skip' the hook is passed over: the call runs as if it were absent.
    const skipped = HookStack.withWrap(HookStack.empty, forge, { name: "test:forge", onError: "skip" })
    const driver = ScriptedDriver.make([ScriptedDriver.toolCalls([{ id: "c1", name: "add", arguments: { a: 1, b: 2 } }]), ScriptedDriver.text("3")])
    const final = await run(AgentLoop.make({ interceptor: skipped, tools: [add] }), driver)
    expect(final.execution.status).toBe("completed")
    expect(final.context.messages.toArray().filter((m) => m.role === "tool").map((m) => [m.toolCallId, m.content])).toEqual([["c1", "3"]])
  })

  it("emits TextReset when a streamed attempt fails after text, then the retried text", async () => {
    let call = 0
    const driver = Driver.make({
      stream: () =>
        call++ === 0
          ? Stream.concat(Stream.make({ _tag: "TextDelta" as const, text: "Hel" }), Stream.fail(AgentError.inferenceFailed("cut", { retryable: true })))
          : Stream.make(
            { _tag: "TextDelta" as const, text: "Hello" },
            { _tag: "Finish" as const, response: InferenceResponse.make({ text: "Hello" }) },
          ),
    })
    const loop = AgentLoop.make({ interceptor: HookStack.withWrap(HookStack.empty, retry(2)) })
    const events = await Effect.runPromise(
      Stream.runCollect(AgentLoop.stream(loop, "question")).pipe(Effect.provideService(Driver.Driver, driver)),
    )
    const text = events.filter((e) => e._tag === "TextDelta" || e._tag === "TextReset").map((e) => (e._tag === "TextDelta" ? e.text : "<reset>"))
    expect(text).toEqual(["Hel", "<reset>", "Hello"])
    expect(events.filter(AgentEvent.is("RunEnded"))[0]?.state.execution.status).toBe("completed")
  })

  it("ends every attempt at once on abort, even a retry waiting to run", async () => {
    const waitForever = WrapHook.inference((ctx, next) => Effect.catch(next(ctx), () => Effect.andThen(Effect.never, next(ctx))))
    const driver = ScriptedDriver.make([ScriptedDriver.failure("busy"), ScriptedDriver.text("never")])
    const controller = new AbortController()
    const loop = AgentLoop.make({ interceptor: HookStack.withWrap(HookStack.empty, waitForever) })
    const fiber = Effect.runFork(
      AgentLoop.run(loop, "q", { signal: controller.signal }).pipe(Effect.provideService(Driver.Driver, driver)),
    )
    await new Promise((resolve) => setImmediate(resolve))
    controller.abort()
    const final = await Effect.runPromise(Fiber.join(fiber))
    expect(final.execution.status).toBe("stopped")
    expect(final.execution.stopSignals.map((s) => s.reason)).toContain("UserRequested")
    expect(driver.requests).toHaveLength(1)
  })

  it("keeps the step shape unchanged when there are no wrap hooks", async () => {
    const final = await run(AgentLoop.make({ interceptor: stackOf() }), ScriptedDriver.make([ScriptedDriver.text("x")]))
    expect("attempts" in final.execution.steps.at(0)!).toBe(false)
    expect(HookTriggers.all).not.toContain("WrapInference")
  })
})

describe("a custom interceptor around a stack with wrap hooks", () => {
  // The wrap rewrites every answer: a run it did not hold answers "plain".
  const shout = WrapHook.inference((ctx, next) => Effect.map(next(ctx), (r) => InferenceResponse.make({ ...r, text: r.text.toUpperCase() })))
  const stack = HookStack.withWrap(HookStack.empty, shout, { name: "shout" })
  const driver = () => ScriptedDriver.make([ScriptedDriver.text("plain")])
  const configurationError = (cause: unknown) => (cause instanceof AgentError.HooklineError ? cause.error : cause)
  const failure = async (loop: AgentLoop) => {
    const exit = await Effect.runPromise(Effect.exit(AgentLoop.run(loop, "question").pipe(Effect.provideService(Driver.Driver, driver()))))
    if (exit._tag === "Success") throw new Error(`expected the run to be refused, it answered ${exit.value.execution.steps.at(0)?.response?.text}`)
    return configurationError(Cause.squash(exit.cause))
  }

  it("is refused with InvalidConfiguration naming Interceptor.around, before the model is called, on the Effect path", async () => {
    const logged: Array<string> = []
    const custom = Interceptor.make((ctx) => Effect.tap(HookStack.intercept(stack, ctx), () => Effect.sync(() => logged.push(ctx.trigger))))
    const error = await failure(AgentLoop.make({ interceptor: custom }))
    expect(error).toMatchObject({ _tag: "InvalidConfiguration", path: "interceptor", message: expect.stringContaining("Interceptor.around") })
    expect(error).toMatchObject({ message: expect.stringContaining("shout") })
    expect(logged).toEqual([])
  })

  it("is refused the same way on the synchronous path", async () => {
    const custom: Interceptor = { intercept: (ctx) => stack.intercept(ctx), interceptSync: (ctx, env) => stack.interceptSync(ctx, env) }
    const error = await failure(AgentLoop.make({ interceptor: custom }))
    expect(error).toMatchObject({ _tag: "InvalidConfiguration", path: "interceptor" })
  })

  it("keeps the wrap hooks when built with Interceptor.around", async () => {
    const logged: Array<string> = []
    const around = Interceptor.around(stack, (ctx, next) => Effect.tap(next(ctx), () => Effect.sync(() => logged.push(ctx.trigger))))
    const final = await run(AgentLoop.make({ interceptor: around }), driver())
    expect(final.execution.status).toBe("completed")
    expect(final.execution.steps.at(0)?.response?.text).toBe("PLAIN")
    expect(logged).toEqual(["BeforeExecution", "BeforeStep", "BeforeInference", "AfterInference", "AfterStep", "OnStop", "AfterExecution"])
  })

  it("makes the Promise facade reject (a programmer error), and works through UseInterceptor when built with around", async () => {
    const custom = Interceptor.make((ctx) => HookStack.intercept(stack, ctx))
    await expect(AgentBuilder.make(UseDriver(driver()), UseInterceptor(custom)).run("q")).rejects.toMatchObject({
      error: { _tag: "InvalidConfiguration", path: "interceptor" },
    })
    const final = await AgentBuilder.make(UseDriver(driver()), UseInterceptor(Interceptor.around(stack, (ctx, next) => next(ctx)))).run("q")
    expect(final.execution.steps.at(0)?.response?.text).toBe("PLAIN")
  })

  it("lets a custom interceptor run a stack without wrap hooks, as before", async () => {
    const plain = HookStack.with(HookStack.empty, (ctx) => ctx, { triggers: HookTriggers.all, name: "noop" })
    const final = await run(AgentLoop.make({ interceptor: Interceptor.make((ctx) => HookStack.intercept(plain, ctx)) }), driver())
    expect(final.execution.steps.at(0)?.response?.text).toBe("plain")
  })
})
