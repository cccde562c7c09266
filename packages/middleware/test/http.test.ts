// The built-ins against a real OpenAI-compatible server on 127.0.0.1, through
// @hookline/ai-sdk: what a user's agent does when a provider rate-limits, fails,
// hangs or cuts a stream.
import { createOpenAI } from "@ai-sdk/openai"
import { Clock, Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { HookExecuted, WrapHook, type AgentState } from "@hookline/core"
import { AgentBuilder, AgentEvent, AgentLoop, Driver, UseDriver, UseWrap, type Agent } from "@hookline/agent"
import { AiSdkDriver } from "@hookline/ai-sdk"
import { UseFallbackModels, UseModelRetry, UseModelTimeout } from "@hookline/middleware"
import { reply, start, type OpenAiServer } from "../../ai-sdk/test/support/openaiServer.js"

let server: OpenAiServer
beforeEach(async () => {
  server = await start()
})
afterEach(async () => {
  await server.close()
})

const model = (id: string) => AiSdkDriver.make(createOpenAI({ baseURL: server.baseURL, apiKey: "sk-test" }).chat(id))

// Runs an agent's loop on the TestClock; `drive` moves the clock while the run goes.
const onTestClock = (agent: Agent, drive: Effect.Effect<void>): Promise<AgentState> =>
  Effect.runPromise(
    Effect.gen(function* () {
      const fiber = yield* Effect.forkChild(
        AgentLoop.run(agent.loop, "hi").pipe(Effect.provideService(Driver.Driver, agent.driver!)),
        { startImmediately: true },
      )
      yield* drive
      return yield* Fiber.join(fiber)
    }).pipe(Effect.provide(TestClock.layer())),
  )

// Resolves when the promise does, letting real I/O run meanwhile.
const waitFor = <A>(p: () => Promise<A>) => TestClock.withLive(Effect.promise(p))

describe("built-in wrap hooks over HTTP", () => {
  it("waits the Retry-After of a 429 on the Effect clock, then gets the 200", async () => {
    server.script(reply.status(429, "rate limited", { "retry-after": "2" }), reply.text("hello"))
    const times: Array<number> = []
    const clocked = WrapHook.inference<never>((ctx, next) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.suspend(() => (times.push(now), next(ctx))))
    )
    const agent = AgentBuilder.make(
      UseDriver(model("gpt-4o-mini")),
      UseModelRetry({ initialDelayMs: 10, jitter: 0 }),
      UseWrap(clocked, { name: "test:clock", priority: 0 }),
    )
    const final = await onTestClock(agent, Effect.gen(function* () {
      yield* waitFor(() => server.request(1))
      // The 429 reaches the retry asynchronously: move the clock in small steps until
      // the second request goes out.
      while (server.requests.length < 2) {
        yield* TestClock.adjust(100)
        yield* TestClock.withLive(Effect.sleep(5))
      }
    }))
    expect(final.execution.status).toBe("completed")
    expect(final.execution.steps.at(0)?.response?.text).toBe("hello")
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(2_000)
    expect(times[1]! - times[0]!).toBeLessThan(2_200)
    const attempts = final.execution.steps.at(0)?.attempts ?? []
    expect(attempts.map((a) => [a.modelId, a.error?.status, a.error?.retryAfterMs])).toEqual([
      ["gpt-4o-mini", 429, 2_000],
      ["gpt-4o-mini", undefined, undefined],
    ])
  })

  it("retries a 500 three times, then falls back to the next model", async () => {
    server.script(
      reply.status(500, "down"),
      reply.status(500, "down"),
      reply.status(500, "down"),
      reply.text("from the backup"),
    )
    const events = HookExecuted.collect()
    const agent = AgentBuilder.make(
      UseDriver(model("primary")),
      UseModelRetry({ maxAttempts: 3, initialDelayMs: 0, jitter: 0 }),
      UseFallbackModels([model("backup")]),
    )
    const final = await agent.run("hi", { sink: events.sink })
    expect(final.execution.status).toBe("completed")
    expect(final.execution.steps.at(0)?.response?.text).toBe("from the backup")
    expect(server.requests.map((r) => r.body.model)).toEqual(["primary", "primary", "primary", "backup"])
    expect(final.execution.steps.at(0)?.attempts?.map((a) => [a.modelId, a.error?.status])).toEqual([
      ["primary", 500],
      ["primary", 500],
      ["primary", 500],
      ["backup", undefined],
    ])
    expect(final.execution.steps.length).toBe(1)
    // One event per wrap hook per time it held the call: the fallback once, the retry per model.
    expect(events.events.filter((e) => e.trigger === "WrapInference").map((e) => e.hook)).toEqual([
      "retry:model",
      "retry:model",
      "fallback:models",
    ])
  })

  it("cuts a hanging call at the call timeout and closes its connection", async () => {
    server.script(reply.hang("partial"))
    const agent = AgentBuilder.make(UseDriver(model("gpt-4o-mini")), UseModelTimeout({ ms: 30_000 }))
    const final = await onTestClock(agent, Effect.gen(function* () {
      yield* waitFor(() => server.request(1))
      yield* TestClock.adjust(30_000)
    }))
    expect(final.execution.status).toBe("failed")
    expect(final.execution.errors[0]).toMatchObject({ _tag: "InferenceFailed", status: 408, retryable: true })
    await server.hungUpSocketClosed()
  })

  it("retries a stream cut mid-way: a reset event, then the full text", async () => {
    server.script(reply.cutMidStream("Hel"), reply.text("Hello world"))
    const agent = AgentBuilder.make(
      UseDriver(model("gpt-4o-mini")),
      UseModelRetry({ when: () => true, initialDelayMs: 0, jitter: 0 }),
    )
    const events: Array<AgentEvent> = []
    for await (const event of agent.stream("hi")) events.push(event)
    const text = events.flatMap((e) => (e._tag === "TextDelta" ? [e.text] : e._tag === "TextReset" ? ["<reset>"] : []))
    expect(text[0]).toBe("Hel")
    expect(text[1]).toBe("<reset>")
    expect(text.slice(2).join("")).toBe("Hello world")
    const final = events.filter(AgentEvent.is("RunEnded"))[0]?.state
    expect(final?.execution.status).toBe("completed")
    expect(final?.execution.steps.at(0)?.attempts?.length).toBe(2)
  })
})
