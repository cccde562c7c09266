import { Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import * as t from "io-ts"
import { describe, expect, it } from "vitest"
import { HookContext, StopSignal, ToolExecution } from "@hookline/core"
import { AgentLoop, Tool } from "@hookline/agent"
import { ScriptedDriver } from "@hookline/testing"
import { add, on, runWith, stackOf } from "./support.js"

const callThenAnswer = (...calls: ReadonlyArray<ScriptedDriver.ScriptedToolCall>) => [ScriptedDriver.toolCalls(calls), ScriptedDriver.text("done")]
const toolMessages = (final: Awaited<ReturnType<typeof runWith>>["final"]) =>
  [...final.context.messages].flatMap((m) => (m.role === "tool" ? [[m.toolName, m.content, m.isError]] : []))

describe("AgentLoop tools", () => {
  describe("BeforeToolUse", () => {
    it("edits the arguments the tool receives", async () => {
      const double = (ctx: HookContext) => HookContext.withToolArguments(ctx, { a: 20, b: 20 })
      const { final } = await runWith(
        AgentLoop.make({ interceptor: stackOf([double, on("BeforeToolUse", "double")]), tools: [add] }),
        callThenAnswer({ name: "add", arguments: { a: 2, b: 2 } }),
      )
      expect(toolMessages(final)).toEqual([["add", "40", false]])
    })

    it("blocks a call: the tool does not run, the reason goes back to the model, the run goes on", async () => {
      let ran = 0
      const spy = Tool.make({ name: "shell", parameters: t.type({ command: t.string }), execute: () => ++ran })
      const deny = (ctx: HookContext) => HookContext.withToolExecutionBlocked(ctx, "shell is not allowed")
      const { final, driver } = await runWith(
        AgentLoop.make({ interceptor: stackOf([deny, on("BeforeToolUse", "policy:deny")]), tools: [spy] }),
        callThenAnswer({ name: "shell", arguments: { command: "rm -rf /" } }),
      )
      expect(ran).toBe(0)
      expect(toolMessages(final)).toEqual([["shell", "Blocked: shell is not allowed", true]])
      expect(final.execution.steps.at(0)?.toolExecutions[0]).toMatchObject({ status: "blocked", reason: "shell is not allowed" })
      expect(final.execution.errors).toEqual([expect.objectContaining({ _tag: "ToolBlocked", toolName: "shell" })])
      expect(driver.requests).toHaveLength(2)
      expect(final.execution.status).toBe("completed")
    })

    it("keeps a block that a later AfterToolUse hook tries to turn into a result", async () => {
      const deny = (ctx: HookContext) => HookContext.withToolExecutionBlocked(ctx, "no")
      const forge = (ctx: HookContext) => ({ ...ctx, toolExecutionBlocked: false, toolExecution: ToolExecution.success(ctx.toolCall!, "forged", 0) })
      const { final } = await runWith(
        AgentLoop.make({ interceptor: stackOf([deny, on("BeforeToolUse", "deny")], [forge, on("AfterToolUse", "forge")]), tools: [add] }),
        callThenAnswer({ name: "add", arguments: { a: 1, b: 1 } }),
      )
      expect(toolMessages(final)).toEqual([["add", "Blocked: no", true]])
    })

    it("short-circuits with a synthetic result: the tool does not run", async () => {
      let ran = 0
      const counted = Tool.make({ name: "add", parameters: t.type({ a: t.number, b: t.number }), execute: ({ a, b }) => (ran++, a + b) })
      const mock = (ctx: HookContext) => HookContext.withToolResult(ctx, 42)
      const { final } = await runWith(
        AgentLoop.make({ interceptor: stackOf([mock, on("BeforeToolUse", "mock")]), tools: [counted] }),
        callThenAnswer({ name: "add", arguments: { a: 1, b: 1 } }),
      )
      expect(ran).toBe(0)
      expect(toolMessages(final)).toEqual([["add", "42", false]])
    })

    it("persists a stop signal raised in a tool hook", async () => {
      const stop = (ctx: HookContext) => HookContext.withStopSignal(ctx, StopSignal.make("StopRequested", "seen enough", "test:tool_stop"))
      const { final, driver } = await runWith(
        AgentLoop.make({ interceptor: stackOf([stop, on("BeforeToolUse", "stop")]), tools: [add] }),
        callThenAnswer({ name: "add", arguments: { a: 1, b: 1 } }),
      )
      expect(driver.requests).toHaveLength(1)
      expect(final.execution.stopSignals.map((s) => s.source)).toEqual(["test:tool_stop"])
      expect(toolMessages(final)).toEqual([["add", "2", false]])
    })
  })

  describe("AfterToolUse", () => {
    it("rewrites the result before it is committed", async () => {
      const truncate = (ctx: HookContext) =>
        ctx.toolExecution?.status === "success" ? HookContext.withToolResult(ctx, `${String(ctx.toolExecution.output).slice(0, 3)}…`) : ctx
      const long = Tool.make({ name: "read", parameters: t.type({}), execute: () => "a very long file" })
      const { final } = await runWith(
        AgentLoop.make({ interceptor: stackOf([truncate, on("AfterToolUse", "truncate")]), tools: [long] }),
        callThenAnswer({ name: "read", arguments: {} }),
      )
      expect(toolMessages(final)).toEqual([["read", "a v…", false]])
    })
  })

  describe("tool errors", () => {
    it("feeds back an unknown tool, invalid arguments and a failing tool, records each, and goes on", async () => {
      const boom = Tool.make({ name: "boom", parameters: t.type({}), execute: () => Promise.reject(new Error("disk full")) })
      const { final } = await runWith(
        AgentLoop.make({ tools: [add, boom] }),
        callThenAnswer(
          { name: "nope", arguments: {} },
          { name: "add", arguments: { a: 1, b: "two" } },
          { name: "boom", arguments: {} },
        ),
      )
      const results = toolMessages(final)
      expect(results.map(([name, , isError]) => [name, isError])).toEqual([["nope", true], ["add", true], ["boom", true]])
      expect(results[1]?.[1]).toContain("at b")
      expect(final.execution.errors.map((e) => e._tag)).toEqual(["UnknownTool", "ToolArgumentsInvalid", "ToolFailed"])
      expect(final.execution.errors[1]).toMatchObject({ path: "b" })
      expect(final.execution.steps.at(0)?.toolExecutions.map((e) => e.status)).toEqual(["failure", "failure", "failure"])
      expect(final.execution.status).toBe("completed")
    })

    it("feeds back a tool that times out", async () => {
      const slow = Tool.make({ name: "slow", parameters: t.type({}), execute: () => Effect.sleep("1 minute"), timeout: "1 second" })
      const driver = ScriptedDriver.make(callThenAnswer({ name: "slow", arguments: {} }))
      const program = Effect.gen(function*() {
        const fiber = yield* Effect.forkChild(AgentLoop.run(AgentLoop.make({ tools: [slow] }), "go"), { startImmediately: true })
        yield* TestClock.adjust("1 second")
        return yield* Fiber.join(fiber)
      })
      const final = await Effect.runPromise(program.pipe(Effect.provide(driver.layer), Effect.provide(TestClock.layer())))
      expect(final.execution.errors).toEqual([expect.objectContaining({ _tag: "ToolTimedOut", timeoutMs: 1000 })])
      expect(final.execution.status).toBe("completed")
    })
  })

  describe("toolConcurrency", () => {
    const probe = () => {
      let running = 0
      let most = 0
      const tool = Tool.make({
        name: "wait",
        parameters: t.type({ n: t.number }),
        execute: ({ n }) =>
          Effect.gen(function*() {
            running++
            most = Math.max(most, running)
            yield* Effect.sleep(`${n} millis`)
            running--
            return n
          }),
      })
      return { tool, most: () => most }
    }
    const script = () => [ScriptedDriver.toolCalls([{ name: "wait", arguments: { n: 30 } }, { name: "wait", arguments: { n: 10 } }]), ScriptedDriver.text("ok")]

    it("runs the calls of a step one after the other by default", async () => {
      const { tool, most } = probe()
      const { final } = await runWith(AgentLoop.make({ tools: [tool] }), script())
      expect(most()).toBe(1)
      expect(toolMessages(final).map(([, c]) => c)).toEqual(["30", "10"])
    })

    it("runs them together when asked, and commits the results in call order", async () => {
      const { tool, most } = probe()
      const { final } = await runWith(AgentLoop.make({ tools: [tool], toolConcurrency: "concurrent" }), script())
      expect(most()).toBe(2)
      expect(toolMessages(final).map(([, c]) => c)).toEqual(["30", "10"])
    })
  })
})
