import { Effect, Exit, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import {
  AgentError,
  AgentState,
  AppendLog,
  InferenceRequest,
  Hook,
  HookContext,
  HookExecuted,
  HookStack,
  Message,
  ToolExecution,
  type HookTrigger,
} from "@hookline/core"
import { Rejections } from "@hookline/testing"
import { hostileThrows } from "./hostile.js"

const state = AgentState.make({ id: "s", messages: [Message.user("hi")] })
const call = { id: "c1", name: "pay", arguments: { amount: 5 } }
const stepCtx = HookContext.make({ trigger: "BeforeStep", state, createdAt: 100 })
const toolCtx = HookContext.make({ trigger: "BeforeToolUse", state, createdAt: 100, toolCall: call })
const on = (trigger: HookTrigger, name: string, onError: HookStack.OnError = "fail") => ({ triggers: trigger, name, onError })

const caught = (f: () => unknown): AgentError.AgentError | undefined => {
  try {
    f()
  } catch (error) {
    if (error instanceof AgentError.HooklineError) return error.error
    throw error
  }
  return undefined
}

// Every unhandled rejection while a test runs: the watcher makes the test that caused
// one fail (vitest reports it too, but against no test in particular).
let watcher: Rejections.Watcher
beforeEach(() => void (watcher = Rejections.watch()))
afterEach(() => watcher.stop())

describe("HookStack reliability", () => {
  describe("an async function registered as a pure hook", () => {
    const asyncHook = (async () => {
      throw new Error("async boom")
    }) as unknown as Hook
    const throwsRejected = ((): never => {
      throw Promise.reject(new Error("thrown rejected promise"))
    }) as Hook

    it.each(["fail", "skip"] as const)("is HookFailed under '%s', with no unhandled rejection, on the synchronous path", async (onError) => {
      const stack = HookStack.with(HookStack.empty, asyncHook, on("BeforeStep", "async", onError))
      const collected = HookExecuted.collect()
      for (let i = 0; i < 3; i++) {
        const error = caught(() => HookStack.run(stack, stepCtx, { sink: collected.sink }))
        if (onError === "fail") {
          expect(error?._tag).toBe("HookFailed")
          expect(error?.message).toContain("returned a Promise")
          expect(error?.message).toContain("Hook.promise")
        } else {
          expect(error).toBeUndefined()
        }
        expect(caught(() => HookStack.run(stack, stepCtx))?._tag).toBe(onError === "fail" ? "HookFailed" : undefined)
      }
      expect(collected.events.map((e) => e.outcome)).toEqual(Array(3).fill(onError === "fail" ? "failed" : "skipped"))
      await watcher.settled()
      expect(watcher.rejections).toEqual([])
    })

    it.each(["fail", "skip"] as const)("is HookFailed under '%s', with no unhandled rejection, beside an effectful hook", async (onError) => {
      const stack = HookStack.with(
        HookStack.with(HookStack.empty, Hook.promise(async (ctx) => ctx), on("BeforeStep", "effectful")),
        asyncHook,
        on("BeforeStep", "async", onError),
      )
      const exit = await Effect.runPromiseExit(HookStack.intercept(stack, stepCtx))
      expect(Exit.isFailure(exit)).toBe(onError === "fail")
      await watcher.settled()
      expect(watcher.rejections).toEqual([])
    })

    it("handles a rejected Promise that a hook throws", async () => {
      const stack = HookStack.with(HookStack.empty, throwsRejected, on("BeforeStep", "throws", "skip"))
      expect(HookStack.run(stack, stepCtx)).toBe(stepCtx)
      await watcher.settled()
      expect(watcher.rejections).toEqual([])
    })

    it("handles a custom thenable and survives a throwing then", async () => {
      let handled = false
      const thenable = { then: (_: unknown, onRejected: () => void) => { handled = typeof onRejected === "function" } }
      const hostile = { get then(): never {
        throw new Error("then getter")
      } }
      const stack = HookStack.with(
        HookStack.with(HookStack.empty, (() => thenable) as unknown as Hook, on("BeforeStep", "thenable", "skip")),
        (() => hostile) as unknown as Hook,
        on("BeforeStep", "hostile", "skip"),
      )
      expect(HookStack.run(stack, stepCtx)).toBe(stepCtx)
      expect(handled).toBe(true)
    })
  })

  describe("a hostile thrown value", () => {
    it.each(hostileThrows())("is HookFailed with a text for %s, on every path, never a crash", async (_, value) => {
      const pure = (() => {
        throw value
      }) as Hook
      const collected = HookExecuted.collect()
      const stack = HookStack.with(HookStack.empty, pure, on("BeforeStep", "hostile"))
      const error = caught(() => HookStack.run(stack, stepCtx, { sink: collected.sink }))
      expect(error?._tag).toBe("HookFailed")
      expect(typeof error?.message).toBe("string")
      expect(collected.events[0]?.outcome).toBe("failed")
      expect(typeof collected.events[0]?.error).toBe("string")
      for (const hook of [Hook.effect(() => Effect.die(value)), Hook.effect(() => Effect.fail(value)), Hook.promise(() => Promise.reject(value))]) {
        const effectful = HookStack.with(HookStack.empty, hook, on("BeforeStep", "hostile"))
        const exit = await Effect.runPromiseExit(
          HookStack.intercept(effectful, stepCtx).pipe(Effect.provideService(HookExecuted.CurrentEventSink, collected.sink)),
        )
        expect(Exit.isFailure(exit) && exit.cause.reasons[0]?._tag).toBe("Fail")
        const skipped = HookStack.with(HookStack.empty, hook, on("BeforeStep", "hostile", "skip"))
        expect(await Effect.runPromise(HookStack.intercept(skipped, stepCtx))).toBe(stepCtx)
      }
    })
  })

  describe("a hand-built context", () => {
    const response = { text: "hi", toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, finishReason: "stop", modelId: "m", metadata: {} }
    const inferenceCtx = HookContext.make({ trigger: "AfterInference", state, createdAt: 100, response: response as never })
    const withMessages = (messages: unknown) => (ctx: HookContext) =>
      ({ ...ctx, state: { ...ctx.state, context: { ...ctx.state.context, messages } } }) as unknown as HookContext
    const cases: ReadonlyArray<readonly [string, HookContext, (ctx: HookContext) => unknown, string]> = [
      ["messages as a plain array", stepCtx, withMessages([Message.user("hi")]), "at state.context.messages: expected an AppendLog (AgentState.appendMessage, AppendLog.fromIterable), got a plain array"],
      ["state: null", stepCtx, (ctx) => ({ ...ctx, state: null }), "at state: expected an AgentState, got null"],
      ["a response without toolCalls", inferenceCtx, (ctx) => ({ ...ctx, response: { ...ctx.response, toolCalls: undefined } }), "at response.toolCalls"],
      ["Object.create(ctx)", stepCtx, (ctx) => Object.create(ctx), "not a plain object"],
      ["a number", stepCtx, () => 42, "returned something that is not a HookContext"],
      ["null", stepCtx, () => null, "returned something that is not a HookContext"],
      ["a state of another run", stepCtx, (ctx) => HookContext.withState(ctx, AgentState.make({ id: "other", messages: [Message.user("hi")] })), "at state.id: a hook cannot change the run's id (\"s\")"],
      ["a context of another trigger", stepCtx, (ctx) => HookContext.make({ trigger: "AfterStep", state: ctx.state, createdAt: 1 }), "changed the trigger from BeforeStep to \"AfterStep\""],
      ["an invalid message appended", stepCtx, (ctx) => HookContext.withState(ctx, AgentState.appendMessage(ctx.state, { role: "robot", content: 1 } as never)), "at state.context.messages[1].role"],
      ["a stop signal with an unknown reason", stepCtx, (ctx) => HookContext.updateState(ctx, (d) => void d.execution.stopSignals.push({ reason: "Bored" as never, message: "", source: "x" })), "at state.execution.stopSignals[0].reason"],
      ["a runningSince that is not a number", stepCtx, (ctx) => HookContext.withState(ctx, AgentState.withExecution(ctx.state, { ...ctx.state.execution, runningSince: "now" as never })), "at state.execution.runningSince"],
      ["metadata that is not JSON", stepCtx, (ctx) => ({ ...ctx, metadata: { when: new Date(0) } }), "at metadata.when"],
      ["a tool call with a new id", toolCtx, (ctx) => HookContext.withToolCall(ctx, { ...ctx.toolCall!, id: "forged" }), "at toolCall.id: a hook cannot change the id"],
      ["an execution for another call", toolCtx, (ctx) => HookContext.withToolExecution(ctx, ToolExecution.success({ ...call, id: "other" }, 1, 0)), "at toolExecution.toolCall.id"],
      ["toolExecutionBlocked without a blocked execution", toolCtx, (ctx) => ({ ...ctx, toolExecutionBlocked: true }), "at toolExecutionBlocked"],
      ["errors that are not AgentErrors", stepCtx, (ctx) => ({ ...ctx, errors: [new Error("x")] }), "at errors[0]"],
    ]

    it.each(cases)("is HookFailed for %s, naming what was wrong", async (_, ctx, hook, expected) => {
      const stack = HookStack.with(HookStack.empty, hook as Hook, on(ctx.trigger, "handmade"))
      const error = caught(() => HookStack.run(stack, ctx))
      expect(error?._tag).toBe("HookFailed")
      expect(error?.message).toContain(expected)
      // The same on the Effect path, and under 'skip' the input passes on unchanged.
      const effectful = HookStack.with(HookStack.empty, Hook.effect((c) => Effect.sync(() => hook(c) as HookContext)), on(ctx.trigger, "handmade"))
      const exit = await Effect.runPromiseExit(HookStack.intercept(effectful, ctx))
      expect(Exit.isFailure(exit) && exit.cause.reasons[0]?._tag === "Fail" && (exit.cause.reasons[0].error as AgentError.HookFailed).message).toContain(expected)
      const skipped = HookStack.with(HookStack.empty, hook as Hook, on(ctx.trigger, "handmade", "skip"))
      expect(HookStack.run(skipped, ctx)).toBe(ctx)
    })

    it("accepts valid changes, hand-built or made with the HookContext functions", () => {
      const hooks: ReadonlyArray<Hook> = [
        (ctx) => HookContext.withState(ctx, AgentState.appendMessage(ctx.state, Message.assistant("a"))),
        (ctx) => ({ ...ctx, metadata: { ...ctx.metadata, seen: true } }),
        (ctx) => HookContext.updateState(ctx, (d) => void (d.metadata["tenant"] = "acme")),
        (ctx) => ({ ...ctx, state: { ...ctx.state, context: { ...ctx.state.context, systemPrompt: "be terse" } } }),
      ]
      const stack = hooks.reduce<HookStack>((s, hook, i) => HookStack.with(s, hook, on("BeforeStep", `h${i}`)), HookStack.empty)
      const out = HookStack.run(stack, stepCtx)
      expect(out.metadata).toEqual({ seen: true })
      expect(out.state.context.systemPrompt).toBe("be terse")
      expect(out.state.context.messages.length).toBe(2)
      expect(out.state.metadata).toEqual({ tenant: "acme" })
      expect(Object.isFrozen(out.state.context)).toBe(true)
    })
  })

  describe("a message between tool calls and their results", () => {
    const c1 = { id: "c1", name: "pay", arguments: {} }
    const c2 = { id: "c2", name: "pay", arguments: {} }
    const result = (c: typeof c1) => Message.tool({ toolCallId: c.id, toolName: c.name, content: "ok" })
    // Mid-step: the assistant's two calls are committed, the first one's result too, the second is still running.
    const midStep = AgentState.make({ id: "s", messages: [Message.user("hi"), Message.assistant("", [c1, c2]), result(c1)] })
    const done = AgentState.appendMessage(midStep, result(c2))
    const at = (trigger: HookTrigger, s: AgentState, toolCall = trigger.includes("Tool") ? c2 : undefined) =>
      HookContext.make({ trigger, state: s, createdAt: 100, toolCall })
    const appendUser: Hook = (ctx) => HookContext.withState(ctx, AgentState.appendMessage(ctx.state, Message.user("by the way")))
    const withMessages = (messages: ReadonlyArray<Message>): Hook => (ctx) =>
      HookContext.withState(ctx, AgentState.update(ctx.state, (d) => void (d.context.messages = AppendLog.fromIterable(messages) as never)))
    const failure = async (hook: Hook, ctx: HookContext): Promise<string | undefined> => {
      const error = caught(() => HookStack.run(HookStack.with(HookStack.empty, hook, on(ctx.trigger, "policy:insert")), ctx))
      // The Effect path says the same.
      const effectful = HookStack.with(HookStack.empty, Hook.effect((c) => Effect.sync(() => hook(c))), on(ctx.trigger, "policy:insert"))
      const exit = await Effect.runPromiseExit(HookStack.intercept(effectful, ctx))
      const viaEffect = Exit.isFailure(exit) && exit.cause.reasons[0]?._tag === "Fail" ? (exit.cause.reasons[0].error as AgentError.HookFailed) : undefined
      expect(viaEffect?.message).toBe(error?.message)
      if (error === undefined) return undefined
      expect(error).toMatchObject({ _tag: "HookFailed", hook: "policy:insert", trigger: ctx.trigger })
      return error.message
    }

    it.each(["BeforeToolUse", "AfterToolUse"] as const)("is HookFailed when a %s hook appends a message while a call waits for its result, naming the index", async (trigger) => {
      const message = await failure(appendUser, at(trigger, midStep))
      expect(message).toContain("at state.context.messages[3]: a user message")
      expect(message).toContain("state.context.messages[1]")
      expect(message).toContain("c2")
    })

    it("is HookFailed for a message inserted before results already committed, by a rewrite of the history", async () => {
      const [user, assistant, first] = midStep.context.messages.toArray() as [Message, Message, Message]
      const message = await failure(withMessages([user, assistant, Message.system("note"), first]), at("BeforeToolUse", midStep))
      expect(message).toContain("at state.context.messages[2]: a system message")
      // At AfterStep too: every result is in, but one comes after the inserted message.
      const after = await failure(withMessages([user, assistant, first, Message.user("x"), result(c2)]), at("AfterStep", done))
      expect(after).toContain("at state.context.messages[3]: a user message")
    })

    it("is HookFailed for a result of another call in the middle of a round", async () => {
      const other = Message.tool({ toolCallId: "c9", toolName: "pay", content: "forged" })
      const message = await failure((ctx) => HookContext.withState(ctx, AgentState.appendMessage(ctx.state, other)), at("BeforeToolUse", midStep))
      expect(message).toContain("at state.context.messages[3]: a tool message")
    })

    it("checks the request a BeforeInference hook sends the same way", async () => {
      const request = InferenceRequest.make({ systemPrompt: "", messages: done.context.messages })
      const ctx = HookContext.make({ trigger: "BeforeInference", state: done, createdAt: 100, request })
      const [user, assistant, first, second] = done.context.messages.toArray() as [Message, Message, Message, Message]
      const hook: Hook = (c) => HookContext.withRequest(c, InferenceRequest.make({ ...request, messages: [user, assistant, first, Message.user("x"), second] }))
      const message = await failure(hook, ctx)
      expect(message).toContain("at request.messages[3]: a user message")
    })

    it("accepts a message once every call is answered, a result of the waiting call, and edits that keep each round whole", async () => {
      expect(await failure(appendUser, at("AfterStep", done))).toBeUndefined()
      expect(await failure(appendUser, at("OnStop", done))).toBeUndefined()
      expect(await failure((ctx) => HookContext.withState(ctx, AgentState.appendMessage(ctx.state, result(c2))), at("BeforeToolUse", midStep))).toBeUndefined()
      // A redaction of every message mid-step: the round at the end is still open, and whole.
      const redacted = midStep.context.messages.toArray().map((m) => ({ ...m, content: "[redacted]" }))
      expect(await failure(withMessages(redacted), at("AfterToolUse", midStep))).toBeUndefined()
      // A window that drops whole rounds from the front.
      expect(await failure(withMessages(done.context.messages.toArray().slice(1)), at("AfterStep", done))).toBeUndefined()
    })

    it("does not blame a hook for a split it was given", async () => {
      // A history that arrived split (a state given by hand).
      const split = AgentState.make({ id: "s", messages: [Message.assistant("", [c1]), Message.user("x"), result(c1)] })
      expect(await failure(appendUser, at("AfterStep", split))).toBeUndefined()
      expect(await failure(withMessages([...split.context.messages.toArray(), Message.user("y")]), at("AfterStep", split))).toBeUndefined()
    })
  })

  describe("a blocked call", () => {
    const block: Hook = (ctx) => HookContext.withToolExecutionBlocked(ctx, "payments are disabled")
    const reblock: Hook = (ctx) =>
      ({
        ...ctx,
        toolExecution: ToolExecution.blocked(ctx.toolCall!, "temporary glitch, call it again", ctx.createdAt),
        toolExecutionBlocked: true,
      }) as HookContext
    const swapCall: Hook = (ctx) => ({ ...ctx, toolCall: { ...ctx.toolCall!, arguments: { amount: 5000 } } }) as HookContext

    it("keeps the first block's reason when a later hook hand-builds another block", () => {
      const stack = HookStack.with(
        HookStack.with(HookStack.empty, block, on("BeforeToolUse", "policy")),
        reblock,
        on("BeforeToolUse", "glitch"),
      )
      const out = HookStack.run(stack, toolCtx)
      expect(out.toolExecution?.status).toBe("blocked")
      expect(out.toolExecution?.status === "blocked" && out.toolExecution.reason).toBe("payments are disabled")
    })

    it("keeps the first block's reason against an effectful hook, and keeps the blocked call", async () => {
      const stack = HookStack.with(
        HookStack.with(
          HookStack.with(HookStack.empty, block, on("BeforeToolUse", "policy")),
          Hook.effect((ctx) => Effect.succeed(reblock(ctx))),
          on("BeforeToolUse", "glitch"),
        ),
        swapCall,
        on("BeforeToolUse", "swap"),
      )
      const out = await Effect.runPromise(HookStack.intercept(stack, toolCtx))
      expect(out.toolExecution?.status === "blocked" && out.toolExecution.reason).toBe("payments are disabled")
      expect(out.toolCall).toEqual(call)
    })

    it("keeps the reason at AfterToolUse too", () => {
      const blocked = ToolExecution.blocked(call, "payments are disabled", 100)
      const ctx = HookContext.make({ trigger: "AfterToolUse", state, createdAt: 100, toolCall: call, toolExecution: blocked })
      const stack = HookStack.with(HookStack.empty, reblock, on("AfterToolUse", "glitch"))
      expect(HookStack.run(stack, ctx).toolExecution).toBe(blocked)
    })
  })
})

describe("AfterExecution under onError 'fail'", () => {
  const endCtx = HookContext.make({ trigger: "AfterExecution", state, createdAt: 100 })
  const boom = (message: string): Hook => () => {
    throw new Error(message)
  }
  const mark = (key: string): Hook => (ctx) => HookContext.updateState(ctx, (d) => void (d.metadata[key] = true))
  const stackOf = (effectful: boolean) =>
    [
      ["telemetry", boom("telemetry down")],
      ["persist", mark("persisted")],
      ["audit", boom("audit down")],
      ["notify", mark("notified")],
    ].reduce<HookStack>(
      (s, [name, hook]) =>
        HookStack.with(s, effectful && name === "persist" ? Hook.effect((c) => Effect.succeed((hook as Hook)(c))) : hook as Hook, on("AfterExecution", name as string)),
      HookStack.empty,
    )

  it("runs every hook, like finally, and fails with the first failure, keeping all of them", () => {
    const collected = HookExecuted.collect()
    const error = caught(() => HookStack.run(stackOf(false), endCtx, { sink: collected.sink })) as AgentError.HookFailed
    expect(error.hook).toBe("telemetry")
    expect(HookStack.failuresOf(error).map((e) => e.hook)).toEqual(["telemetry", "audit"])
    expect(HookStack.contextAtFailure(error)?.state.metadata).toEqual({ persisted: true, notified: true })
    expect(collected.events.map((e) => `${e.hook}:${e.outcome}`)).toEqual(["telemetry:failed", "persist:changed", "audit:failed", "notify:changed"])
  })

  it("runs every hook on the Effect path too", async () => {
    const exit = await Effect.runPromiseExit(HookStack.intercept(stackOf(true), endCtx))
    const error = Exit.isFailure(exit) && exit.cause.reasons[0]?._tag === "Fail" ? exit.cause.reasons[0].error : undefined
    expect(error?.hook).toBe("telemetry")
    expect(HookStack.failuresOf(error!).map((e) => e.hook)).toEqual(["telemetry", "audit"])
    expect(HookStack.contextAtFailure(error!)?.state.metadata).toEqual({ persisted: true, notified: true })
  })

  it("still stops at the first failure on other triggers", () => {
    const stack = HookStack.with(HookStack.with(HookStack.empty, boom("x"), on("AfterStep", "a")), mark("b"), on("AfterStep", "b"))
    const ctx = HookContext.make({ trigger: "AfterStep", state, createdAt: 100 })
    const error = caught(() => HookStack.run(stack, ctx)) as AgentError.HookFailed
    expect(HookStack.failuresOf(error)).toEqual([error])
    expect(HookStack.contextAtFailure(error)?.state.metadata).toEqual({})
  })
})

describe("the timeout option of an effectful hook", () => {
  const invalidAt = (f: () => unknown) => caught(f) as AgentError.InvalidConfiguration | undefined

  it("fails a hook that takes longer, on the Effect clock, naming the timeout; aborts a Hook.promise", async () => {
    let aborted = false
    const hung = Hook.promise((_, signal) =>
      new Promise<HookContext>(() => {
        signal.addEventListener("abort", () => void (aborted = true))
      })
    )
    const stack = HookStack.with(HookStack.empty, hung, { triggers: "BeforeStep", name: "approve", timeout: "5 seconds" })
    const program = Effect.gen(function* () {
      const fiber = yield* Effect.forkChild(Effect.exit(HookStack.intercept(stack, stepCtx)), { startImmediately: true })
      yield* TestClock.adjust("4999 millis")
      const early = fiber.pollUnsafe()
      yield* TestClock.adjust("1 millis")
      return { early, exit: yield* Fiber.join(fiber) }
    })
    const { early, exit } = await Effect.runPromise(program.pipe(Effect.provide(TestClock.layer())))
    expect(early).toBeUndefined()
    const error = Exit.isFailure(exit) && exit.cause.reasons[0]?._tag === "Fail" ? exit.cause.reasons[0].error : undefined
    expect(error?.message).toBe('hook "approve" failed on BeforeStep: timed out after 5000 ms (its timeout option)')
    expect(aborted).toBe(true)
  })

  it("passes the input on under 'skip', and lets a hook within its timeout finish", async () => {
    const slow = (ms: number) => Hook.effect((ctx: HookContext) => Effect.sleep(ms).pipe(Effect.as(HookContext.withMetadata(ctx, { done: ms }))))
    const stack = HookStack.with(
      HookStack.with(HookStack.empty, slow(10_000), { triggers: "BeforeStep", name: "slow", timeout: 1_000, onError: "skip" }),
      slow(500),
      { triggers: "BeforeStep", name: "quick", timeout: 1_000 },
    )
    const program = Effect.gen(function* () {
      const fiber = yield* Effect.forkChild(HookStack.intercept(stack, stepCtx), { startImmediately: true })
      yield* TestClock.adjust("1 second")
      yield* TestClock.adjust("500 millis")
      return yield* Fiber.join(fiber)
    })
    const out = await Effect.runPromise(program.pipe(Effect.provide(TestClock.layer())))
    expect(out.metadata).toEqual({ done: 500 })
  })

  it("is refused on a pure hook and for a duration that is not finite and >= 0", () => {
    expect(invalidAt(() => HookStack.with(HookStack.empty, (c: HookContext) => c, { triggers: "BeforeStep", timeout: 5 }))?.path).toBe("timeout")
    for (const bad of [-1, Infinity, "soon", {}]) {
      const hook = Hook.effect((c: HookContext) => Effect.succeed(c))
      expect(invalidAt(() => HookStack.with(HookStack.empty, hook, { triggers: "BeforeStep", timeout: bad as never }))?.path).toBe("timeout")
    }
    expect(invalidAt(() => HookStack.with(HookStack.empty, Hook.effect((c: HookContext) => Effect.succeed(c)), { triggers: "BeforeStep", timeot: 5 } as never))?.path).toBe("timeot")
  })
})
