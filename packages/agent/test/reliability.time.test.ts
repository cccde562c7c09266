// Issue 12, item 7: the time guard's maxExecutionTime bounds the run's wall clock. A
// hung model call or a hung Hook.promise is interrupted when it passes, the run ends
// stopped with TimeLimitReached and AfterExecution fires once. Time is TestClock's.
import { Duration, Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { describe, expect, it } from "vitest"
import { Guards, Hook, HookContext, HookStack, HookTriggers, InferenceResponse, StopSignal, ToolCall, type AgentState } from "@hookline/core"
import { AgentBuilder, AgentLoop, Driver, UseDriver, UseGuards, UseHook, UseTools } from "@hookline/agent"
import { add, invalidConfiguration } from "./support.js"

const ends = { afterExecution: 0 }
const counted = UseHook(Hook.observe(() => void ends.afterExecution++), { triggers: HookTriggers.of("AfterExecution"), name: "test:end" })

/** A model that never answers; `aborted` tells whether the loop aborted its call. */
const hungModel = () => {
  const seen = { aborted: false }
  const driver = Driver.fromPromise({
    generate: (_request, { signal }) =>
      new Promise<never>(() => signal.addEventListener("abort", () => (seen.aborted = true))),
  })
  return { driver, seen }
}

const toolCallThenText = Driver.make({
  generate: (request) =>
    Effect.succeed(
      request.messages.length === 1
        ? InferenceResponse.make({ toolCalls: [ToolCall.make({ id: "c1", name: "add", arguments: { a: 1, b: 2 } })] })
        : InferenceResponse.make({ text: "3" }),
    ),
})

/** Runs `agent` on the TestClock: the clock moves by `advance`, then the run must have ended. */
const runFor = (agent: ReturnType<typeof AgentBuilder.make>, advance: Duration.Input) =>
  Effect.runPromise(
    Effect.gen(function*() {
      const fiber = yield* Effect.forkChild(agent.runEffect("hi"), { startImmediately: true })
      for (let i = 0; i < 5; i++) yield* Effect.yieldNow
      yield* TestClock.adjust(advance)
      return yield* Fiber.join(fiber)
    }).pipe(Effect.provide(TestClock.layer())),
  )

const timeLimited = (final: AgentState) => {
  expect(final.execution.status).toBe("stopped")
  const signal = StopSignal.highest(final.execution.stopSignals)
  expect(signal).toMatchObject({ reason: "TimeLimitReached", source: Guards.names.time })
  expect(ends.afterExecution).toBe(1)
}

describe("the time limit bounds the wall clock (issue 12, item 7)", () => {
  it("interrupts a hung model call when maxExecutionTime passes", async () => {
    ends.afterExecution = 0
    const { driver, seen } = hungModel()
    const final = await runFor(AgentBuilder.make(UseDriver(driver), UseGuards({ maxExecutionTime: "10 seconds" }), counted), "10 seconds")
    timeLimited(final)
    expect(seen.aborted).toBe(true)
    expect(StopSignal.highest(final.execution.stopSignals)?.message).toBe("Time limit reached: 10000 ms/10000 ms")
    // The step the limit cut short is recorded.
    expect(final.execution.steps.length).toBe(1)
  })

  it("interrupts a hung Hook.promise, and answers the call it held with a cancellation marker", async () => {
    ends.afterExecution = 0
    let hookAborted = false
    const hang = Hook.promise((_ctx: HookContext, signal) => new Promise<HookContext>(() => signal.addEventListener("abort", () => (hookAborted = true))))
    const agent = AgentBuilder.make(
      UseDriver(toolCallThenText),
      UseTools([add]),
      UseGuards({ maxExecutionTime: "1 minute" }),
      UseHook(hang, { triggers: HookTriggers.of("BeforeToolUse"), name: "test:approval" }),
      counted,
    )
    const final = await runFor(agent, "1 minute")
    timeLimited(final)
    expect(hookAborted).toBe(true)
    expect(final.context.messages.at(-1)).toMatchObject({ role: "tool", toolCallId: "c1", content: "Cancelled: the run reached its time limit before it ran" })
  })

  it("bounds a run by the default guards' 300 seconds", async () => {
    ends.afterExecution = 0
    const { driver } = hungModel()
    timeLimited(await runFor(AgentBuilder.make(UseDriver(driver), counted), "300 seconds"))
  })

  it("does not end the run before the limit", async () => {
    ends.afterExecution = 0
    const { driver } = hungModel()
    const agent = AgentBuilder.make(UseDriver(driver), UseGuards({ maxExecutionTime: "10 seconds" }), counted)
    const outcome = await Effect.runPromise(
      Effect.gen(function*() {
        const fiber = yield* Effect.forkChild(agent.runEffect("hi"), { startImmediately: true })
        for (let i = 0; i < 5; i++) yield* Effect.yieldNow
        yield* TestClock.adjust("9999 millis")
        const early = fiber.pollUnsafe()
        yield* TestClock.adjust("1 millis")
        return { early, final: yield* Fiber.join(fiber) }
      }).pipe(Effect.provide(TestClock.layer())),
    )
    expect(outcome.early).toBeUndefined()
    timeLimited(outcome.final)
  })

  it("does not bound a run whose time guard is off (null)", async () => {
    const { driver } = hungModel()
    const agent = AgentBuilder.make(UseDriver(driver), UseGuards({ maxExecutionTime: null }))
    const stillRunning = await Effect.runPromise(
      Effect.gen(function*() {
        const fiber = yield* Effect.forkChild(agent.runEffect("hi"), { startImmediately: true })
        for (let i = 0; i < 5; i++) yield* Effect.yieldNow
        yield* TestClock.adjust("1 day")
        const running = fiber.pollUnsafe() === undefined
        yield* Fiber.interrupt(fiber)
        return running
      }).pipe(Effect.provide(TestClock.layer())),
    )
    expect(stillRunning).toBe(true)
  })

  it("is an option of AgentLoop.make, checked like the guard's", () => {
    expect(AgentLoop.make({ maxExecutionTime: "2 seconds" }).maxExecutionTime).toBe(2000)
    expect(AgentLoop.make({}).maxExecutionTime).toBeUndefined()
    expect(invalidConfiguration(() => AgentLoop.make({ maxExecutionTime: -1 })).path).toBe("maxExecutionTime")
    expect(AgentBuilder.make(UseDriver(toolCallThenText)).loop.maxExecutionTime).toBe(300_000)
    expect(AgentBuilder.make(UseDriver(toolCallThenText), UseGuards({ maxExecutionTime: 5 })).loop.maxExecutionTime).toBe(5)
    const stack = HookStack.with(HookStack.empty, (ctx: HookContext) => ctx, { triggers: HookTriggers.of("BeforeStep"), name: "x" })
    expect(AgentLoop.make({ interceptor: stack }).maxExecutionTime).toBeUndefined()
  })
})
