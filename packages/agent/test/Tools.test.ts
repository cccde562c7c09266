import { AgentError, AgentState, ToolCall, ToolExecution } from "@hookline/core"
import { Cause, Effect, Exit, Fiber } from "effect"
import { TestClock } from "effect/testing"
import * as t from "io-ts"
import { describe, expect, it } from "vitest"
import * as z from "zod"
import { Tool, Tools } from "@hookline/agent"

const state = AgentState.make({ id: "s1" })
const Add = t.type({ a: t.number, b: t.number })
const Empty = t.type({})

const add = Tool.make({ name: "add", parameters: Add, execute: ({ a, b }) => a + b })

const call = (name: string, args: unknown = {}, id = "c1") => ToolCall.make({ id, name, arguments: args as ToolCall["arguments"] })

// Runs with a TestClock at 5 000 ms, so startedAt / completedAt are exact.
const runAt5s = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.runPromise(TestClock.setTime(5_000).pipe(Effect.andThen(effect), Effect.provide(TestClock.layer())))

const execute = (tool: Tool, toolCall: ToolCall) => runAt5s(Tools.execute(Tools.make([tool]), toolCall, { state }))

const errorOf = (execution: ToolExecution) => {
  if (execution.status !== "failure") throw new Error(`expected a failure, got ${JSON.stringify(execution)}`)
  return execution.error
}

const outputOf = (execution: ToolExecution) => {
  if (execution.status !== "success") throw new Error(`expected a success, got ${JSON.stringify(execution)}`)
  return execution.output
}

const returning = (output: () => unknown) => Tool.make({ name: "out", parameters: Empty, execute: output })

describe("Tools", () => {
  describe("make", () => {
    it("lists the definitions in the order given", () => {
      const tools = Tools.make([
        Tool.make({ name: "b", parameters: Empty, execute: () => null }),
        add,
        Tool.make({ name: "a", parameters: Empty, execute: () => null }),
      ])
      expect(tools.definitions.map((d) => d.name)).toEqual(["b", "add", "a"])
      expect(tools.definitions[1]).toEqual(Tool.definition(add))
      expect(tools.byName.get("add")).toBe(add)
      expect(Object.isFrozen(tools)).toBe(true)
      expect(Object.isFrozen(tools.definitions)).toBe(true)
    })

    it("refuses a name given twice, at the second", () => {
      let error: unknown
      try {
        Tools.make([add, Tool.make({ name: "x", parameters: Empty, execute: () => null }), Tool.make({ name: "add", parameters: Empty, execute: () => 0 })])
      } catch (e) {
        error = e
      }
      expect(error).toBeInstanceOf(AgentError.HooklineError)
      expect((error as AgentError.HooklineError).error).toMatchObject({ _tag: "InvalidConfiguration", path: "tools[2].name" })
    })

    it("refuses an entry that is not a tool", () => {
      expect(() => Tools.make([add, Tool.definition(add) as unknown as Tool])).toThrow(
        expect.objectContaining({ error: expect.objectContaining({ _tag: "InvalidConfiguration", path: "tools[1]" }) }),
      )
    })

    it("gives an index by name that cannot be changed, even through a cast", () => {
      const other = Tool.make({ name: "other", parameters: Empty, execute: () => null })
      const listed = [other]
      const live = Tools.live(Tools.make([add]), [() => listed])
      for (const tools of [Tools.make([add]), Tools.empty, live]) {
        const before = [...tools.byName.entries()]
        const asMap = tools.byName as Map<string, Tool>
        expect(() => asMap.set("evil", other)).toThrow(TypeError)
        expect(() => asMap.delete("add")).toThrow(TypeError)
        expect(() => asMap.clear()).toThrow(TypeError)
        // Map's own methods do not reach it either.
        expect(() => Map.prototype.set.call(tools.byName, "evil", other)).toThrow(TypeError)
        expect(() => Map.prototype.clear.call(tools.byName)).toThrow(TypeError)
        expect([...tools.byName.entries()]).toEqual(before)
        expect(Tools.get(tools, "evil")).toBeUndefined()
        expect(Object.isFrozen(tools.byName)).toBe(true)
        expect(Tools.isTools(tools)).toBe(true)
      }
      // It reads as a ReadonlyMap.
      const tools = live
      expect(tools.byName.size).toBe(2)
      expect(tools.byName.has("other")).toBe(true)
      expect([...tools.byName.keys()]).toEqual(["add", "other"])
      expect([...tools.byName.values()]).toEqual([add, other])
      expect([...tools.byName]).toEqual([["add", add], ["other", other]])
      const seen: Array<string> = []
      tools.byName.forEach((tool, name, map) => {
        expect(map).toBe(tools.byName)
        seen.push(`${name}:${tool.name}`)
      })
      expect(seen).toEqual(["add:add", "other:other"])
      expect(new Map(tools.byName).get("add")).toBe(add)
    })

    it("has an empty set", () => {
      expect(Tools.empty.byName.size).toBe(0)
      expect(Tools.empty.definitions).toEqual([])
      expect(Tools.empty.maxOutputLength).toBe(Tools.defaultMaxOutputLength)
      expect(Object.isFrozen(Tools.empty)).toBe(true)
    })

    it("takes the output limit from its options, 100,000 characters by default", () => {
      expect(Tools.defaultMaxOutputLength).toBe(100_000)
      expect(Tools.make([add]).maxOutputLength).toBe(100_000)
      expect(Tools.make([add], { maxOutputLength: 10 }).maxOutputLength).toBe(10)
      expect(() => Tools.make([add], { maxOutputLength: 0 })).toThrow(
        expect.objectContaining({ error: expect.objectContaining({ _tag: "InvalidConfiguration", path: "options.maxOutputLength" }) }),
      )
    })
  })

  describe("truncation", () => {
    it("reads the marker of a cut output, and nothing else", () => {
      expect(Tools.truncationMarker(500, 10)).toBe("…[truncated: 500 characters, limit 10]")
      expect(Tools.truncation(`abc${Tools.truncationMarker(500, 10)}`)).toEqual({ length: 500, limit: 10 })
      expect(Tools.truncation("abc")).toBeUndefined()
      expect(Tools.truncation({ text: Tools.truncationMarker(500, 10) })).toBeUndefined()
      expect(Tools.truncation(`${Tools.truncationMarker(500, 10)} and more`)).toBeUndefined()
    })

    it("cuts a string output, the JSON text of any other, and marks it", async () => {
      const tools = (output: unknown) => Tools.make([returning(() => output)], { maxOutputLength: 4 })
      const run = (output: unknown) => runAt5s(Tools.execute(tools(output), call("out"), { state })).then(outputOf)
      expect(await run("abcdef")).toBe(`abcd${Tools.truncationMarker(6, 4)}`)
      expect(await run("abcd")).toBe("abcd")
      expect(await run([1, 2, 3])).toBe(`[1,2${Tools.truncationMarker(7, 4)}`)
      expect(await run([12])).toEqual([12])
      expect(await run(new Date(0))).toBe(`1970${Tools.truncationMarker(24, 4)}`)
      expect(await run(123456)).toBe(123456)
    })

    it("takes the tool's own limit first", async () => {
      const tool = Tool.make({ name: "out", parameters: Empty, maxOutputLength: 2, execute: () => "abcdef" })
      expect(tool.maxOutputLength).toBe(2)
      const execution = await runAt5s(Tools.execute(Tools.make([tool], { maxOutputLength: 4 }), call("out"), { state }))
      expect(outputOf(execution)).toBe(`ab${Tools.truncationMarker(6, 2)}`)
    })
  })

  describe("execute", () => {
    it("runs a plain-value tool and times it with the Clock", async () => {
      const execution = await execute(add, call("add", { a: 1, b: 2 }))
      expect(execution).toEqual({ status: "success", toolCall: call("add", { a: 1, b: 2 }), output: 3, startedAt: 5_000, completedAt: 5_000 })
      expect(Object.isFrozen(execution)).toBe(true)
    })

    it("runs a plain-value tool synchronously, without a Promise", () => {
      const execution = Effect.runSync(Tools.execute(Tools.make([add]), call("add", { a: 2, b: 2 }), { state }))
      expect(outputOf(execution)).toBe(4)
    })

    it("runs a Promise tool", async () => {
      const tool = Tool.make({ name: "p", parameters: Add, execute: async ({ a, b }) => ({ sum: a + b }) })
      const execution = await execute(tool, call("p", { a: 1, b: 2 }))
      expect(outputOf(execution)).toEqual({ sum: 3 })
      expect(Object.isFrozen(outputOf(execution))).toBe(true)
    })

    it("runs an Effect tool and reads the Clock after it", async () => {
      const tool = Tool.make({ name: "e", parameters: Add, execute: ({ a, b }) => Effect.sleep("2 seconds").pipe(Effect.as(a * b)) })
      const program = Effect.gen(function*() {
        const fiber = yield* Effect.forkChild(Tools.execute(Tools.make([tool]), call("e", { a: 3, b: 4 }), { state }))
        yield* TestClock.adjust("2 seconds")
        return yield* Fiber.join(fiber)
      })
      const execution = await Effect.runPromise(program.pipe(Effect.provide(TestClock.layer())))
      expect(execution).toMatchObject({ status: "success", output: 12, startedAt: 0, completedAt: 2_000 })
    })

    it("gives execute the validated arguments, the call and the state", async () => {
      let seen: unknown
      const tool = Tool.make({
        name: "z",
        parameters: z.object({ n: z.string().transform(Number) }),
        execute: (args, context) => {
          seen = { args, toolCall: context.toolCall, state: context.state, aborted: context.signal.aborted }
        },
      })
      const toolCall = call("z", { n: "7" })
      await execute(tool, toolCall)
      expect(seen).toEqual({ args: { n: 7 }, toolCall, state, aborted: false })
      expect((seen as { state: unknown }).state).toBe(state)
    })

    it("fails with UnknownTool for a name it does not have", async () => {
      const execution = await execute(add, call("subtract", { a: 1, b: 2 }, "c9"))
      expect(execution).toMatchObject({ status: "failure", startedAt: 5_000, completedAt: 5_000 })
      expect(errorOf(execution)).toEqual({ ...AgentError.unknownTool("c9", "subtract"), message: `unknown tool "subtract": the tools are "add"` })
    })

    it("fails with ToolArgumentsInvalid naming the path, without running the tool", async () => {
      let runs = 0
      const tool = Tool.make({ name: "add", parameters: Add, execute: () => ++runs })
      const execution = await execute(tool, call("add", { a: 1, b: "x" }))
      expect(errorOf(execution)).toEqual(AgentError.toolArgumentsInvalid("c1", "add", "b", `expected number, got "x"`))
      expect(runs).toBe(0)
    })

    it("fails with ToolArgumentsInvalid at the root for arguments given as text", async () => {
      const error = errorOf(await execute(add, call("add", "{\"a\": 1,")))
      expect(error).toMatchObject({ _tag: "ToolArgumentsInvalid", path: "" })
      expect(error.message).toContain("the arguments are not JSON: the model sent text that does not parse")
    })

    it("fails with ToolFailed when execute throws", async () => {
      const tool = Tool.make({ name: "x", parameters: Empty, execute: () => {
        throw new Error("disk full")
      } })
      expect(errorOf(await execute(tool, call("x")))).toEqual(AgentError.toolFailed("c1", "x", new Error("disk full")))
    })

    it("fails with ToolFailed when the Promise rejects", async () => {
      const tool = Tool.make({ name: "x", parameters: Empty, execute: () => Promise.reject(new Error("502 Bad Gateway")) })
      const error = errorOf(await execute(tool, call("x")))
      expect(error).toMatchObject({ _tag: "ToolFailed", toolCallId: "c1", toolName: "x" })
      expect(error.message).toContain("502 Bad Gateway")
    })

    it("fails with ToolFailed when a thenable's then throws", async () => {
      const thenable = { then: () => { throw new Error("broken thenable") } }
      const tool = Tool.make({ name: "x", parameters: Empty, execute: () => thenable })
      const error = errorOf(await execute(tool, call("x")))
      expect(error).toMatchObject({ _tag: "ToolFailed", toolCallId: "c1", toolName: "x" })
      expect(error.message).toContain("broken thenable")
    })

    it("fails with ToolFailed when the Effect fails", async () => {
      const tool = Tool.make({ name: "x", parameters: Empty, execute: () => Effect.fail({ _tag: "NotFound", message: "no such city" }) })
      expect(errorOf(await execute(tool, call("x")))).toEqual(AgentError.toolFailed("c1", "x", "no such city"))
    })

    it("fails with ToolFailed when the Effect dies", async () => {
      const tool = Tool.make({ name: "x", parameters: Empty, execute: () => Effect.die(new TypeError("undefined is not a function")) })
      expect(errorOf(await execute(tool, call("x")))).toMatchObject({
        _tag: "ToolFailed",
        message: `tool "x" failed: undefined is not a function`,
      })
    })

    it("fails with ToolFailed when a hand-made tool's validator throws", async () => {
      const tool: Tool = { ...add, validate: () => Effect.sync(() => {
        throw new Error("validator bug")
      }) }
      expect(errorOf(await execute(tool, call("add", { a: 1, b: 2 })))).toMatchObject({ _tag: "ToolFailed", message: expect.stringContaining("validator bug") })
    })

    it("fails with ToolTimedOut when the tool runs past its timeout", async () => {
      const tool = Tool.make({ name: "slow", parameters: Empty, timeout: "1 second", execute: () => Effect.sleep("10 seconds").pipe(Effect.as("late")) })
      const program = Effect.gen(function*() {
        const fiber = yield* Effect.forkChild(Tools.execute(Tools.make([tool]), call("slow"), { state }))
        yield* TestClock.adjust("999 millis")
        const early = fiber.pollUnsafe()
        yield* TestClock.adjust("1 milli")
        return { early, execution: yield* Fiber.join(fiber) }
      })
      const { early, execution } = await Effect.runPromise(program.pipe(Effect.provide(TestClock.layer())))
      expect(early).toBeUndefined()
      expect(execution).toMatchObject({ status: "failure", startedAt: 0, completedAt: 1_000 })
      expect(errorOf(execution)).toEqual(AgentError.toolTimedOut("c1", "slow", 1_000))
      expect(errorOf(execution)).toMatchObject({ timeoutMs: 1_000 })
    })

    it("aborts the signal of a Promise tool that times out", async () => {
      let signal: AbortSignal | undefined
      const tool = Tool.make({
        name: "fetch",
        parameters: Empty,
        timeout: "1 second",
        execute: (_, context) =>
          new Promise((_resolve, reject) => {
            signal = context.signal
            context.signal.addEventListener("abort", () => reject(new Error("aborted")), { once: true })
          }),
      })
      const program = Effect.gen(function*() {
        const fiber = yield* Effect.forkChild(Tools.execute(Tools.make([tool]), call("fetch"), { state }))
        yield* Effect.yieldNow
        expect(signal?.aborted).toBe(false)
        yield* TestClock.adjust("1 second")
        return yield* Fiber.join(fiber)
      })
      const execution = await Effect.runPromise(program.pipe(Effect.provide(TestClock.layer())))
      expect(errorOf(execution)).toMatchObject({ _tag: "ToolTimedOut", timeoutMs: 1_000 })
      expect(signal?.aborted).toBe(true)
    })

    it("leaves the signal alone when the tool finishes in time", async () => {
      let signal: AbortSignal | undefined
      const tool = Tool.make({
        name: "quick",
        parameters: Empty,
        timeout: "1 second",
        execute: async (_, context) => {
          signal = context.signal
          return "done"
        },
      })
      expect(outputOf(await execute(tool, call("quick")))).toBe("done")
      expect(signal?.aborted).toBe(false)
    })

    it("normalizes undefined to null", async () => {
      expect(outputOf(await execute(returning(() => undefined), call("out")))).toBeNull()
      expect(outputOf(await execute(returning(async () => {}), call("out")))).toBeNull()
    })

    it("keeps strings, numbers, booleans and null as they are", async () => {
      for (const value of ["text", 1.5, false, null]) {
        expect(outputOf(await execute(returning(() => value), call("out")))).toBe(value)
      }
    })

    it("turns an output into what JSON makes of it", async () => {
      const output = outputOf(await execute(returning(() => ({ at: new Date(0), skip: undefined, list: [undefined, 1] })), call("out")))
      expect(output).toEqual({ at: "1970-01-01T00:00:00.000Z", list: [null, 1] })
      expect(outputOf(await execute(returning(() => new Date(0)), call("out")))).toBe("1970-01-01T00:00:00.000Z")
    })

    it("fails with ToolFailed for an output JSON cannot represent", async () => {
      const cyclic: Record<string, unknown> = {}
      cyclic.self = cyclic
      for (const output of [{ n: 10n }, 10n, cyclic, () => 1, Symbol("s")]) {
        const error = errorOf(await execute(returning(() => output), call("out")))
        expect(error).toMatchObject({ _tag: "ToolFailed", toolName: "out" })
        expect(error.message).toContain("the output is not JSON")
      }
    })

    it("is interrupted with its fiber, aborting the tool's signal", async () => {
      let signal: AbortSignal | undefined
      const tool = Tool.make({
        name: "slow",
        parameters: Empty,
        execute: (_, context) =>
          new Promise((resolve) => {
            signal = context.signal
            setTimeout(resolve, 10_000, "late").unref()
          }),
      })
      const exit = await Effect.runPromise(Effect.gen(function*() {
        const fiber = yield* Effect.forkChild(Tools.execute(Tools.make([tool]), call("slow"), { state }))
        yield* Effect.yieldNow
        expect(signal?.aborted).toBe(false)
        yield* Fiber.interrupt(fiber)
        return yield* Fiber.await(fiber)
      }))
      expect(Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause)).toBe(true)
      expect(signal?.aborted).toBe(true)
    })

    it("is interrupted with its fiber while an Effect tool with a timeout runs", async () => {
      const tool = Tool.make({ name: "slow", parameters: Empty, timeout: "1 minute", execute: () => Effect.never })
      const exit = await Effect.runPromise(Effect.gen(function*() {
        const fiber = yield* Effect.forkChild(Tools.execute(Tools.make([tool]), call("slow"), { state }), { startImmediately: true })
        yield* TestClock.adjust("1 second")
        yield* Fiber.interrupt(fiber)
        return yield* Fiber.await(fiber)
      }).pipe(Effect.provide(TestClock.layer())))
      expect(Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause)).toBe(true)
    })

    it("passes on an interruption that comes from inside the tool, never as a result", async () => {
      const tool = Tool.make({ name: "x", parameters: Empty, execute: () => Effect.interrupt })
      const exit = await Effect.runPromiseExit(Tools.execute(Tools.make([tool]), call("x"), { state }))
      expect(Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause)).toBe(true)
    })

    it("propagates an interruption signalled through runPromise's AbortSignal", async () => {
      let signal: AbortSignal | undefined
      const tool = Tool.make({
        name: "slow",
        parameters: Empty,
        execute: (_, context) => {
          signal = context.signal
          return new Promise(() => {})
        },
      })
      const controller = new AbortController()
      const run = Effect.runPromise(Tools.execute(Tools.make([tool]), call("slow"), { state }), { signal: controller.signal })
      await new Promise((resolve) => setTimeout(resolve, 1))
      controller.abort()
      await expect(run).rejects.toThrow()
      expect(signal?.aborted).toBe(true)
    })
  })
})
