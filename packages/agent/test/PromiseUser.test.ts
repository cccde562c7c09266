// Issue 15: a Promise user does every task in docs/ without importing effect. This
// file imports no effect module (the last test checks its own source).
import { readFileSync } from "node:fs"
import * as t from "io-ts"
import { describe, expect, it } from "vitest"
import { AgentError, AgentState, Codecs, Hook, HookContext, HookTrigger, InferenceRequest, Message, type Hook as HookFn } from "@hookline/core"
import { AgentBuilder, Driver, Tool, UseDriver, UseHook, UseTools } from "@hookline/agent"
import { HookLaws, ScriptedDriver } from "@hookline/testing"

const add = Tool.make({ name: "add", description: "Adds", parameters: t.type({ a: t.number, b: t.number }), execute: async ({ a, b }) => a + b })
const request = InferenceRequest.make({ messages: [Message.user("What is 2+2?")] })

const thrown = async (f: () => unknown): Promise<unknown> => {
  try {
    await f()
  } catch (error) {
    return error
  }
  throw new Error("expected a throw")
}

describe("the Promise API, with no effect import", () => {
  it("runs, streams and iterates an agent", async () => {
    const make = () => AgentBuilder.make(
      UseDriver(ScriptedDriver.make([ScriptedDriver.toolCalls([{ name: "add", arguments: { a: 2, b: 2 } }]), ScriptedDriver.text("4")])),
      UseTools([add]),
    )
    expect((await make().run("What is 2+2?")).context.messages.last()?.content).toBe("4")
    const tags: Array<string> = []
    for await (const event of make().stream("What is 2+2?")) tags.push(event._tag)
    expect(tags.length).toBeGreaterThan(0)
    const statuses: Array<string> = []
    for await (const state of make().iterate("What is 2+2?")) statuses.push(state.execution.status)
    expect(statuses.at(-1)).toBe("completed")
  })

  it("stores a state as JSON text and resumes from it; bad text throws a typed error", async () => {
    const first = await AgentBuilder.make(UseDriver(ScriptedDriver.make([ScriptedDriver.text("hello")]))).run("hi")
    const text = Codecs.stringifyState(first)
    const stored = Codecs.parseStateUnsafe(text)
    expect(stored).toEqual(first)
    const next = await AgentBuilder.make(UseDriver(ScriptedDriver.make([ScriptedDriver.text("again")]))).run(
      AgentState.appendMessage(stored, Message.user("once more")),
    )
    expect([...next.context.messages].map((m) => m.content)).toEqual(["hi", "hello", "once more", "again"])

    const bad = await thrown(() => Codecs.parseStateUnsafe('{"id": 7}'))
    expect(bad).toBeInstanceOf(AgentError.HooklineError)
    expect((bad as AgentError.HooklineError).error).toMatchObject({ _tag: "DecodeFailed" })
    expect(((await thrown(() => Codecs.parseStateUnsafe("not json"))) as AgentError.HooklineError).error).toMatchObject({ _tag: "DecodeFailed", path: "" })
    // decodeUnsafe: the same for a value already parsed (a row from a database).
    expect(Codecs.decodeUnsafe(Codecs.AgentState, JSON.parse(text))).toEqual(first)
    expect(Codecs.fromJsonUnsafe(Codecs.AgentState, text)).toEqual(first)
  })

  it("calls a driver with generate (a Promise) and stream (an AsyncIterable)", async () => {
    const driver = Driver.toPromise(ScriptedDriver.make([ScriptedDriver.text("4"), ScriptedDriver.text("four", { chunks: ["fo", "ur"] })]))
    expect((await driver.generate(request)).text).toBe("4")
    const parts: Array<string> = []
    for await (const part of driver.stream(request)) parts.push(part._tag === "TextDelta" ? part.text : part._tag)
    expect(parts).toEqual(["fo", "ur", "Finish"])
    const failed = await thrown(() => Driver.toPromise(ScriptedDriver.make([ScriptedDriver.failure("rate limited")])).generate(request))
    expect(failed).toBeInstanceOf(AgentError.HooklineError)
    expect((failed as AgentError.HooklineError).error).toMatchObject({ _tag: "InferenceFailed", message: "rate limited" })
  })

  it("calls a second model from a hook", async () => {
    const summarizer = Driver.toPromise(ScriptedDriver.make([ScriptedDriver.text("a short summary")]))
    const summarize = Hook.promise(async (ctx) => {
      if (ctx.trigger !== HookTrigger.AfterExecution) return ctx
      const summary = await summarizer.generate(InferenceRequest.make({ messages: [...ctx.state.context.messages] }))
      return HookContext.withState(ctx, AgentState.withMetadata(ctx.state, { summary: summary.text }))
    })
    const agent = AgentBuilder.make(UseDriver(ScriptedDriver.make([ScriptedDriver.text("4")])), UseHook(summarize, { triggers: HookTrigger.AfterExecution, name: "summary" }))
    expect((await agent.run("2+2?")).metadata["summary"]).toBe("a short summary")
  })

  it("wraps a driver with a fallback written without Effect, for generate and stream", async () => {
    const primary = Driver.toPromise(ScriptedDriver.make([ScriptedDriver.failure("overloaded"), ScriptedDriver.failure("overloaded")]))
    const backup = Driver.toPromise(ScriptedDriver.make([ScriptedDriver.text("from backup"), ScriptedDriver.text("streamed backup")]))
    const withFallback = Driver.fromPromise({
      generate: (req, options) => primary.generate(req, options).catch(() => backup.generate(req, options)),
      stream: async function*(req, options) {
        try {
          yield* primary.stream(req, options)
        } catch {
          yield* backup.stream(req, options)
        }
      },
    })
    const agent = AgentBuilder.make(UseDriver(withFallback))
    expect((await agent.run("hi")).context.messages.last()?.content).toBe("from backup")
    const text: Array<string> = []
    for await (const event of AgentBuilder.make(UseDriver(withFallback)).stream("hi")) if (event._tag === "TextDelta") text.push(event.text)
    expect(text.join("")).toBe("streamed backup")
  })

  it("round-trips: fromPromise(toPromise(d)) answers as d, and keeps a failure's fields", async () => {
    const script = () => [ScriptedDriver.text("4", { chunks: ["4"] }), ScriptedDriver.failure("boom")]
    const direct = Driver.toPromise(ScriptedDriver.make(script()))
    const round = Driver.toPromise(Driver.fromPromise(Driver.toPromise(ScriptedDriver.make(script()))))
    expect(await round.generate(request)).toEqual(await direct.generate(request))
    const a = (await thrown(() => direct.generate(request))) as AgentError.HooklineError
    const b = (await thrown(() => round.generate(request))) as AgentError.HooklineError
    expect(b.error).toEqual(a.error)
  })

  it("law-checks an async hook", async () => {
    const deny: HookFn = (ctx) => (ctx.toolCall?.name === "shell" ? HookContext.withToolExecutionBlocked(ctx, "no") : ctx)
    await HookLaws.checkEffect(Hook.promise(async (ctx) => deny(ctx)), { triggers: "BeforeToolUse", numRuns: 10 })
  })

  it("imports nothing from effect", () => {
    const source = readFileSync(new URL(import.meta.url), "utf8")
    const imports = source.split("\n").filter((line) => line.startsWith("import "))
    expect(imports.length).toBeGreaterThan(3)
    expect(imports.filter((line) => line.includes(`"${"effect"}`))).toEqual([])
  })
})
