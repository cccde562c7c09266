// Bad input (issue 7): each is a typed error that names what was wrong, and nothing
// committed before it is lost. A bad tool call becomes an error tool result the model
// reads, and the run goes on (docs/loop.md, "Tools"); a bad configuration throws
// InvalidConfiguration naming its path when the agent is built.
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import { Effect } from "effect"
import * as t from "io-ts"
import { describe, expect, it } from "vitest"
import * as z from "zod"
import {
  AgentError,
  AgentState,
  Codecs,
  HookContext,
  Json,
  ToolCall,
  type AgentState as State,
  type JsonValue,
  type ToolExecution,
} from "@hookline/core"
import {
  AgentBuilder,
  AgentLoop,
  Tool,
  Tools,
  UseContextConfig,
  UseDriver,
  UseGuards,
  UseHook,
  UseInterceptor,
  UseLoopOptions,
  UseTools,
} from "@hookline/agent"
import { ScriptedDriver } from "@hookline/testing"
import { add, echo, invalidConfiguration, messages, on, runWith, stackOf } from "./support.js"

const polluted = () => ({} as Record<string, unknown>)["polluted"]

const question = "What is 2+2?"

/** One step that makes these calls, then an answer: the run a bad call is part of. */
const callThenAnswer = (...calls: ReadonlyArray<ScriptedDriver.ScriptedToolCall>) => [
  ScriptedDriver.toolCalls(calls),
  ScriptedDriver.text("done"),
]

const runCalls = (tools: Tools.Tools | ReadonlyArray<Tool>, ...calls: ReadonlyArray<ScriptedDriver.ScriptedToolCall>) =>
  runWith(AgentLoop.make({ tools }), callThenAnswer(...calls), question)

/** The failed execution of the run's first step, and its error. */
const firstError = (final: State): ToolExecution.ToolError => {
  const execution = final.execution.steps.at(0)?.toolExecutions[0]
  if (execution?.status !== "failure") throw new Error(`expected a failed call, got ${JSON.stringify(execution)}`)
  return execution.error
}

/**
 * Nothing lost: the question, the assistant's call, the error result and the answer
 * are in the history in that order; the error is recorded in the state; the model's
 * second request ends with the error result (it read it); the run completed.
 */
const expectFedBack = (
  final: State,
  driver: ScriptedDriver,
  error: ToolExecution.ToolError,
) => {
  const history = [...final.context.messages]
  expect(history.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"])
  expect(history[0]).toEqual({ role: "user", content: question })
  expect(history[2]).toMatchObject({ role: "tool", toolName: error.toolName, toolCallId: error.toolCallId, isError: true })
  expect(history[2]!.content).toBe(`Error: ${error.message}`)
  expect(history[3]).toMatchObject({ role: "assistant", content: "done" })
  expect(final.execution.errors).toEqual([error])
  expect(driver.requests).toHaveLength(2)
  expect(driver.requests[1]!.messages.at(-1)).toEqual(history[2])
  expect(final.execution.status).toBe("completed")
}

describe("bad input", () => {
  describe("an unknown tool", () => {
    it("fails the call with UnknownTool naming the tool and the known ones; the model reads it and the run goes on", async () => {
      const { final, driver } = await runCalls([add, echo], { name: "subtract", arguments: { a: 1, b: 2 }, id: "c1" })
      const error = firstError(final)
      expect(error).toMatchObject({ _tag: "UnknownTool", toolName: "subtract", toolCallId: "c1" })
      expect(error.message).toBe(`unknown tool "subtract": the tools are "add", "echo"`)
      expectFedBack(final, driver, error)
    })

    it("says so when the agent has no tools, and bounds a long list and a long name", async () => {
      expect(firstError((await runCalls([], { name: "add" })).final).message).toBe(`unknown tool "add": the agent has no tools`)
      const many = Array.from({ length: 25 }, (_, i) => Tool.make({ name: `t${i}`, parameters: t.type({}), execute: () => null }))
      const { final } = await runCalls(many, { name: "x".repeat(10_000) })
      const error = firstError(final)
      expect(error.toolName).toHaveLength(10_000)
      expect(error.message).toContain(`"t19" and 5 more`)
      expect(error.message.length).toBeLessThan(400)
    })
  })

  describe("arguments that are not JSON", () => {
    it("fails with ToolArgumentsInvalid at the root that says so and shows the text", async () => {
      const { final, driver } = await runCalls([add], { name: "add", arguments: `{"a": 1, "b":` })
      const error = firstError(final)
      expect(error).toMatchObject({ _tag: "ToolArgumentsInvalid", toolName: "add", path: "" })
      expect(error.message).toBe(
        `invalid arguments for tool "add" at the root: the arguments are not JSON: the model sent text that does not parse: "{\\"a\\": 1, \\"b\\":" (13 characters)`,
      )
      expectFedBack(final, driver, error)
    })

    it("shows at most 200 characters of a long text", async () => {
      const text = `{"a": "${"x".repeat(1_000_000)}`
      const error = firstError((await runCalls([add], { name: "add", arguments: text })).final)
      expect(error.message).toContain(`(${text.length} characters)`)
      expect(error.message.length).toBeLessThan(400)
    })

    it("tells JSON text passed on as a string (the AI SDK does so with __proto__ keys) from text that does not parse", async () => {
      const text = `{"__proto__": {"polluted": 1}, "a": 1, "b": 2}`
      const error = firstError((await runCalls([add], { name: "add", arguments: text })).final)
      expect(error.message).toContain("the arguments are not a JSON object: the driver passed them on as text:")
      expect(polluted()).toBeUndefined()
    })

    it.each<readonly [string, JsonValue, string]>([
      ["an array", [1, 2], "got an array: [1,2]"],
      ["null", null, "got null: null"],
      ["a number", 42, "got a number: 42"],
      ["a boolean", true, "got a boolean: true"],
    ])("fails at the root for %s, with io-ts and zod alike", async (_, args, detail) => {
      const zodAdd = Tool.make({ name: "zadd", parameters: z.object({ a: z.number(), b: z.number() }), execute: ({ a, b }) => a + b })
      for (const name of ["add", "zadd"]) {
        const error = firstError((await runCalls([add, zodAdd], { name, arguments: args })).final)
        expect(error).toMatchObject({ _tag: "ToolArgumentsInvalid", path: "" })
        expect(error.message).toBe(`invalid arguments for tool "${name}" at the root: the arguments are not a JSON object: ${detail}`)
      }
    })
  })

  describe("arguments that break the schema", () => {
    const Order = t.type({ items: t.array(t.type({ sku: t.string, qty: t.number })) })
    const order = Tool.make({ name: "order", parameters: Order, execute: ({ items }) => items.length })
    const zorder = Tool.make({
      name: "zorder",
      parameters: z.object({ items: z.array(z.object({ sku: z.string(), qty: z.number().int().positive() })) }),
      execute: ({ items }) => items.length,
    })
    const bad = { items: [{ sku: "a", qty: 1 }, { sku: "b", qty: "two" }] }

    it("names the path with an io-ts validator", async () => {
      const { final, driver } = await runCalls([order], { name: "order", arguments: bad })
      const error = firstError(final)
      expect(error).toMatchObject({ _tag: "ToolArgumentsInvalid", toolName: "order", path: "items[1].qty" })
      expect(error.message).toBe(`invalid arguments for tool "order" at items[1].qty: expected number, got "two"`)
      expectFedBack(final, driver, error)
    })

    it("names the path with a Standard Schema validator (zod)", async () => {
      const { final, driver } = await runCalls([zorder], { name: "zorder", arguments: { items: [{ sku: "a", qty: 1 }, { sku: "b", qty: -2 }] } })
      const error = firstError(final)
      expect(error).toMatchObject({ _tag: "ToolArgumentsInvalid", toolName: "zorder", path: "items[1].qty" })
      expect(error.message).toMatch(/^invalid arguments for tool "zorder" at items\[1\]\.qty: /)
      expectFedBack(final, driver, error)
    })

    it("names a missing field", async () => {
      const error = firstError((await runCalls([order], { name: "order", arguments: { items: [{ sku: "a" }] } })).final)
      expect(error).toMatchObject({ path: "items[0].qty" })
      expect(error.message).toContain("expected number, got undefined")
    })
  })

  describe("__proto__, constructor and prototype keys", () => {
    const hostile = () => JSON.parse(`{"__proto__": {"polluted": 1}, "constructor": {"prototype": {"polluted": 2}}, "prototype": 3}`)

    it("reach a tool as plain own data, polluting nothing (io-ts)", async () => {
      let seen: Record<string, unknown> | undefined
      const record = Tool.make({
        name: "record",
        parameters: t.UnknownRecord,
        jsonSchema: { type: "object" },
        execute: (args) => {
          seen = args
          return Object.keys(args)
        },
      })
      const { final } = await runCalls([record], { name: "record", arguments: hostile() })
      expect(seen).toBeDefined()
      expect(Object.keys(seen!)).toEqual(["__proto__", "constructor", "prototype"])
      expect(Object.getPrototypeOf(seen)).toBe(Object.prototype)
      expect(Object.getOwnPropertyDescriptor(seen, "__proto__")?.value).toEqual({ polluted: 1 })
      expect(seen!["polluted"]).toBeUndefined()
      expect(final.execution.steps.at(0)?.toolExecutions[0]).toMatchObject({
        status: "success",
        output: ["__proto__", "constructor", "prototype"],
      })
      // The call in the history keeps them too, and survives its codec.
      const decoded = Codecs.decode(Codecs.AgentState, JSON.parse(Codecs.toJson(Codecs.AgentState, final)))
      expect(decoded._tag).toBe("Success")
      expect(polluted()).toBeUndefined()
    })

    it("reach a zod tool the way zod gives them (a z.record drops __proto__), polluting nothing", async () => {
      let seen: Record<string, unknown> | undefined
      const record = Tool.make({
        name: "zrecord",
        parameters: z.record(z.string(), z.unknown()),
        execute: (args) => {
          seen = args
          return null
        },
      })
      await runCalls([record], { name: "zrecord", arguments: hostile() })
      expect(Object.getPrototypeOf(seen)).toBe(Object.prototype)
      expect(Object.keys(seen!)).toEqual(["constructor", "prototype"])
      expect(polluted()).toBeUndefined()
    })

    it("survive in state and context metadata set by hooks, and in what the model is sent", async () => {
      const tag = (ctx: HookContext) => HookContext.withState(ctx, AgentState.withMetadata(ctx.state, hostile()))
      // An immer recipe may replace the metadata with parsed data holding the keys.
      const recipe = (ctx: HookContext) =>
        HookContext.updateState(ctx, (draft) => {
          draft.context.metadata = hostile()
        })
      const note = (ctx: HookContext) => HookContext.withMetadata(ctx, hostile())
      let contextMetadata: HookContext["metadata"] | undefined
      const look = (ctx: HookContext) => {
        contextMetadata = ctx.metadata
        return ctx
      }
      const { final } = await runWith(
        AgentLoop.make({
          interceptor: stackOf(
            [tag, on("BeforeExecution", "tag")],
            [recipe, on("BeforeExecution", "recipe")],
            [note, on("BeforeStep", "note", 1)],
            [look, on("BeforeStep", "look")],
          ),
          tools: [add],
        }),
        callThenAnswer({ name: "add", arguments: { a: 1, b: 2 } }),
        question,
      )
      for (const data of [final.metadata, final.context.metadata, contextMetadata!]) {
        expect(Object.keys(data)).toEqual(["__proto__", "constructor", "prototype"])
        expect(Object.getPrototypeOf(data)).toBe(Object.prototype)
        expect(Object.isFrozen(data)).toBe(true)
      }
      expect(messages(final)).toEqual([`user:${question}`, `assistant:add({"a":1,"b":2})`, "tool:3", "assistant:done"])
      expect(polluted()).toBeUndefined()
    })

    it("stay own keys of a tool call and its arguments made by ToolCall.make and HookContext.withToolArguments", () => {
      const call = ToolCall.make({ id: "c1", name: "x", arguments: hostile() })
      const ctx = HookContext.withToolArguments(HookContext.make({ trigger: "BeforeToolUse", state: AgentState.make(), createdAt: 0, toolCall: call }), hostile())
      for (const args of [call.arguments, ctx.toolCall!.arguments] as ReadonlyArray<Record<string, unknown>>) {
        expect(Object.hasOwn(args, "__proto__")).toBe(true)
        expect(Object.getPrototypeOf(args)).toBe(Object.prototype)
        expect(Object.isFrozen(args)).toBe(true)
        expect(Object.isFrozen(Object.getOwnPropertyDescriptor(args, "__proto__")!.value)).toBe(true)
      }
      expect(polluted()).toBeUndefined()
    })
  })

  describe("a tool output of 10 MB", () => {
    const tenMegabytes = 10 * 1024 * 1024
    const big = (name: string, output: () => unknown, options: Partial<Tool.Options<{}>> = {}) =>
      Tool.make({ name, parameters: t.type({}), execute: output, ...options })

    it("is cut to the default limit and marked; the success goes on to the model", async () => {
      const { final, driver } = await runCalls([big("dump", () => "x".repeat(tenMegabytes))], { name: "dump" })
      const execution = final.execution.steps.at(0)?.toolExecutions[0]
      expect(execution?.status).toBe("success")
      const output = (execution as ToolExecution.Success).output as string
      const marker = Tools.truncationMarker(tenMegabytes, Tools.defaultMaxOutputLength)
      expect(marker).toBe(`…[truncated: 10485760 characters, limit 100000]`)
      expect(output).toBe("x".repeat(Tools.defaultMaxOutputLength) + marker)
      expect(Tools.truncation(output)).toEqual({ length: tenMegabytes, limit: Tools.defaultMaxOutputLength })
      expect(final.context.messages.at(2)).toMatchObject({ role: "tool", content: output, isError: false })
      expect(driver.requests[1]!.messages.at(2)).toMatchObject({ content: output })
      expect(final.execution.errors).toEqual([])
      expect(final.execution.status).toBe("completed")
    })

    // A limit past the longest string a state holds let a 100 MB output into the state
    // (which then did not load back): the cut is at Json.maxStringLength less 128.
    it("is cut within Json.maxStringLength whatever the limit, so the state loads back", async () => {
      const length = Json.maxStringLength + 1
      const tool = big("dump", () => "x".repeat(length), { maxOutputLength: Number.MAX_SAFE_INTEGER })
      const { final } = await runCalls([tool], { name: "dump" })
      const output = (final.execution.steps.at(0)?.toolExecutions[0] as ToolExecution.Success).output as string
      expect(output.length).toBeLessThanOrEqual(Json.maxStringLength)
      expect(Tools.truncation(output)).toEqual({ length, limit: Json.maxStringLength - 128 })
      expect(final.context.messages.at(2)?.content.length).toBeLessThanOrEqual(Json.maxStringLength)
      expect(Codecs.decode(Codecs.AgentState, final)._tag).toBe("Success")
    })

    it("cuts the JSON text of an object output, at the limit of Tools.make", async () => {
      const rows = Array.from({ length: 200_000 }, (_, i) => ({ id: i, name: `row ${i}` }))
      const text = JSON.stringify(rows)
      const { final } = await runCalls(Tools.make([big("rows", () => rows)], { maxOutputLength: 1_000 }), { name: "rows" })
      const output = (final.execution.steps.at(0)?.toolExecutions[0] as ToolExecution.Success).output
      expect(output).toBe(text.slice(0, 1_000) + Tools.truncationMarker(text.length, 1_000))
      expect(final.context.messages.at(2)?.content).toBe(output)
    })

    it("keeps an output at the limit whole, and marks nothing", async () => {
      const tools = Tools.make([big("exact", () => "y".repeat(50)), big("object", () => ({ k: "v".repeat(40) }))], { maxOutputLength: 50 })
      const { final } = await runCalls(tools, { name: "exact", id: "c1" }, { name: "object", id: "c2" })
      const [exact, object] = final.execution.steps.at(0)!.toolExecutions as ReadonlyArray<ToolExecution.Success>
      expect(exact!.output).toBe("y".repeat(50))
      expect(object!.output).toEqual({ k: "v".repeat(40) })
      expect(Tools.truncation(exact!.output)).toBeUndefined()
    })

    it("takes a tool's own limit over the set's, and never splits a surrogate pair", async () => {
      const tools = Tools.make([big("emoji", () => "😀".repeat(10), { maxOutputLength: 5 })], { maxOutputLength: 1_000 })
      const { final } = await runCalls(tools, { name: "emoji" })
      const output = (final.execution.steps.at(0)?.toolExecutions[0] as ToolExecution.Success).output
      expect(output).toBe("😀😀" + Tools.truncationMarker(20, 5))
    })

    it("bounds the message of a tool that throws 10 MB", async () => {
      const { final, driver } = await runCalls([big("boom", () => {
        throw new Error("e".repeat(tenMegabytes))
      })], { name: "boom", id: "c1" })
      const error = firstError(final)
      expect(error._tag).toBe("ToolFailed")
      expect(error.message.length).toBeLessThan(Tools.defaultMaxOutputLength + 100)
      expect(Tools.truncation(error.message)).toEqual({ length: tenMegabytes + `tool "boom" failed: `.length, limit: Tools.defaultMaxOutputLength })
      expectFedBack(final, driver, error)
    })

    it("passes the limit through the builder's UseTools, a tool's own limit first", async () => {
      const own = big("own", () => "o".repeat(100), { maxOutputLength: 30 })
      const agent = AgentBuilder.make(
        UseDriver(ScriptedDriver.make(callThenAnswer({ name: "dump", id: "c1" }, { name: "own", id: "c2" }, { name: "echo", id: "c3", arguments: { text: "z".repeat(100) } }))),
        UseTools([big("dump", () => "x".repeat(tenMegabytes)), own], { maxOutputLength: 10 }),
        UseTools([echo]),
      )
      const final = await agent.run(question)
      const outputs = final.execution.steps.at(0)!.toolExecutions.map((e) => (e as ToolExecution.Success).output)
      expect(outputs).toEqual([
        "x".repeat(10) + Tools.truncationMarker(tenMegabytes, 10),
        "o".repeat(30) + Tools.truncationMarker(100, 30),
        "z".repeat(100),
      ])
      expect(final.execution.status).toBe("completed")
    })

    it("does not keep the 10 MB alive: the cut output is a string of its own", async () => {
      setFlagsFromString("--expose_gc")
      const gc = runInNewContext("gc") as () => void
      const tools = Tools.make([big("dump", () => `${Math.random()}`.repeat(tenMegabytes / 16))], { maxOutputLength: 1_000 })
      const state = AgentState.make()
      gc()
      const before = process.memoryUsage().heapUsed
      const kept: Array<ToolExecution> = []
      for (let i = 0; i < 10; i++) {
        kept.push(await Effect.runPromise(Tools.execute(tools, ToolCall.make({ id: `c${i}`, name: "dump" }), { state })))
      }
      gc()
      const grown = process.memoryUsage().heapUsed - before
      // Ten outputs of ~10 MB each (two bytes a character when not Latin-1): kept
      // whole they would hold 100 MB or more.
      expect(grown).toBeLessThan(20 * 1024 * 1024)
      expect(kept.every((e) => e.status === "success" && Tools.truncation(e.output)?.limit === 1_000)).toBe(true)
    })

    it("refuses a limit that is not a positive integer, naming where", () => {
      for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, "100", null]) {
        expect(invalidConfiguration(() => big("x", () => null, { maxOutputLength: bad as never })).path).toBe("maxOutputLength")
        const error = invalidConfiguration(() => Tools.make([add], { maxOutputLength: bad as never }))
        expect(error.path).toBe("options.maxOutputLength")
        expect(error.message).toContain("expected a positive integer")
      }
    })
  })

  describe("invalid builder configuration", () => {
    const driver = () => UseDriver(ScriptedDriver.make([ScriptedDriver.text("hi")]))
    const noop = (ctx: HookContext) => ctx
    const hook = (options: unknown) => UseHook(noop, options as never)
    const guards = (options: unknown) => UseGuards(options as never)
    const config = (c: unknown) => UseContextConfig(c as never)
    const tools = (list: unknown, options?: unknown) => UseTools(list as never, options as never)
    const loop = (options: unknown) => UseLoopOptions(options as never)
    const model = (modelOptions: unknown) => loop({ modelOptions })

    // [what, the capability at index 1 (after a driver), its path, a part of the message]
    const cases: ReadonlyArray<readonly [string, AgentBuilder.Capability, string, string]> = [
      ["not a capability", "UseTools" as never, "capabilities[1]", "expected a capability"],
      ["an unknown capability", { _tag: "UseMagic" } as never, "capabilities[1]", "expected a capability"],
      ["null", null as never, "capabilities[1]", "expected a capability"],
      ["a second driver", driver(), "capabilities[1]", "UseDriver is given twice"],
      ["a driver without generate", UseDriver({ stream: () => null } as never), "capabilities[1]", ""],
      ["a non-function hook", UseHook("log" as never, { triggers: "BeforeStep" }), "capabilities[1].hook", "expected a function"],
      ["hook options that are not an object", hook(undefined), "capabilities[1]", ""],
      ["no triggers", hook({ triggers: [] }), "capabilities[1].triggers", "at least one trigger"],
      ["an unknown trigger", hook({ triggers: "BeforeNap" }), "capabilities[1].triggers", `unknown trigger "BeforeNap"`],
      ["a trigger that is not a string", hook({ triggers: ["BeforeStep", 7] }), "capabilities[1].triggers[1]", "expected string"],
      ["a NaN priority", hook({ triggers: "BeforeStep", priority: Number.NaN }), "capabilities[1].priority", "finite number"],
      ["an infinite priority", hook({ triggers: "BeforeStep", priority: Number.POSITIVE_INFINITY }), "capabilities[1].priority", "finite number"],
      ["a priority that is not a number", hook({ triggers: "BeforeStep", priority: "high" }), "capabilities[1].priority", `"high"`],
      ["an empty hook name", hook({ triggers: "BeforeStep", name: " " }), "capabilities[1].name", "non-empty"],
      ["a hook name that is not a string", hook({ triggers: "BeforeStep", name: 42 }), "capabilities[1].name", "42"],
      ["an unknown onError", hook({ triggers: "BeforeStep", onError: "ignore" }), "capabilities[1].onError", `"ignore"`],
      ["an unknown hook option", hook({ triggers: "BeforeStep", priorty: 5 }), "capabilities[1].priorty", `unknown option "priorty"`],
      ["guard options that are not an object", guards("strict"), "capabilities[1]", "options"],
      ["a negative step limit", guards({ maxSteps: -1 }), "capabilities[1].maxSteps", "-1"],
      ["a NaN step limit", guards({ maxSteps: Number.NaN }), "capabilities[1].maxSteps", "got NaN"],
      ["a fractional step limit", guards({ maxSteps: 2.5 }), "capabilities[1].maxSteps", "a whole number >= 0"],
      ["an infinite step limit (null turns it off)", guards({ maxSteps: Number.POSITIVE_INFINITY }), "capabilities[1].maxSteps", "null turns the guard off"],
      ["a time limit of an empty object (zero to Effect)", guards({ maxExecutionTime: {} }), "capabilities[1].maxExecutionTime", "got {}"],
      ["a negative time limit", guards({ maxExecutionTime: -5 }), "capabilities[1].maxExecutionTime", "got -5"],
      ["a step limit that is not a number", guards({ maxSteps: "5" }), "capabilities[1].maxSteps", `"5"`],
      ["a negative token limit", guards({ maxTokens: -5 }), "capabilities[1].maxTokens", "-5"],
      ["a time limit that is not a duration", guards({ maxExecutionTime: "soon" }), "capabilities[1].maxExecutionTime", "duration"],
      ["an unknown finish reason", guards({ finishReasons: ["done"] }), "capabilities[1].finishReasons[0]", `"done"`],
      ["finish reasons that are not a list", guards({ finishReasons: "stop" }), "capabilities[1].finishReasons", `"stop"`],
      ["an unknown guard option", guards({ maxStep: 5 }), "capabilities[1].maxStep", `unknown option "maxStep"`],
      ["a context config that is not an object", config(null), "capabilities[1]", "null"],
      ["a system prompt that is not a string", config({ systemPrompt: 42 }), "capabilities[1].systemPrompt", "42"],
      ["an unknown response format", config({ responseFormat: { type: "xml" } }), "capabilities[1].responseFormat.type", `"xml"`],
      ["a JSON schema that is not an object", config({ responseFormat: { type: "json", schema: 3 } }), "capabilities[1].responseFormat.schema", "3"],
      ["an unknown context option", config({ systemPromt: "be brief" }), "capabilities[1].systemPromt", `unknown option "systemPromt"`],
      ["tools that are not a list", tools(add), "capabilities[1].tools", "expected an array"],
      ["an entry that is not a tool", tools([add, Tool.definition(add)]), "capabilities[1].tools[1]", "expected a Tool"],
      ["a tool name given twice", tools([add, add]), "capabilities[1].tools[1].name", `"add" is taken by capabilities[1].tools[0]`],
      ["tool options that are not an object", tools([add], "fast"), "capabilities[1]", "options"],
      ["a zero output limit", tools([add], { maxOutputLength: 0 }), "capabilities[1].maxOutputLength", "positive integer"],
      ["a negative output limit", tools([add], { maxOutputLength: -1 }), "capabilities[1].maxOutputLength", "-1"],
      ["a fractional output limit", tools([add], { maxOutputLength: 1.5 }), "capabilities[1].maxOutputLength", "1.5"],
      ["a NaN output limit", tools([add], { maxOutputLength: Number.NaN }), "capabilities[1].maxOutputLength", "NaN"],
      ["an output limit that is a string", tools([add], { maxOutputLength: "1000" }), "capabilities[1].maxOutputLength", `"1000"`],
      ["an unknown tools option", tools([add], { maxOutputLenght: 5 }), "capabilities[1].maxOutputLenght", `unknown option "maxOutputLenght"`],
      ["loop options that are not an object", loop(null), "capabilities[1]", ""],
      ["an unknown tool concurrency", loop({ toolConcurrency: "parallel" }), "capabilities[1].toolConcurrency", `"parallel"`],
      ["an unknown loop option", loop({ concurrency: "concurrent" }), "capabilities[1].concurrency", `unknown option "concurrency"`],
      ["a temperature that is not a number", model({ temperature: "hot" }), "capabilities[1].modelOptions.temperature", `"hot"`],
      ["a negative temperature", model({ temperature: -1 }), "capabilities[1].modelOptions.temperature", ">= 0"],
      ["a NaN temperature", model({ temperature: Number.NaN }), "capabilities[1].modelOptions.temperature", "NaN"],
      ["a topP above 1", model({ topP: 2 }), "capabilities[1].modelOptions.topP", "from 0 to 1"],
      ["a fractional topK", model({ topK: 0.5 }), "capabilities[1].modelOptions.topK", "positive integer"],
      ["a zero maxOutputTokens", model({ maxOutputTokens: 0 }), "capabilities[1].modelOptions.maxOutputTokens", "positive integer"],
      ["a fractional seed", model({ seed: 1.5 }), "capabilities[1].modelOptions.seed", "integer"],
      ["a stop sequence that is not a string", model({ stopSequences: ["\n", 1] }), "capabilities[1].modelOptions.stopSequences[1]", "1"],
      ["provider options that are not an object", model({ providerOptions: "x" }), "capabilities[1].modelOptions.providerOptions", `"x"`],
      ["an unknown model option", model({ temprature: 0 }), "capabilities[1].modelOptions.temprature", `unknown option "temprature"`],
    ]

    it.each(cases)("throws InvalidConfiguration for %s, naming its path", (_, capability, path, detail) => {
      const error = invalidConfiguration(() => AgentBuilder.make(driver(), capability))
      expect(error).toMatchObject({ _tag: "InvalidConfiguration", path })
      expect(error.message).toContain(`invalid configuration at ${path}: `)
      expect(error.message).toContain(detail)
      expect(error.message.length).toBeLessThan(400)
    })

    it.each<readonly [string, ReadonlyArray<AgentBuilder.Capability>, string, string]>([
      ["a driver without stream", [UseDriver({ generate: () => null } as never)], "capabilities[0].driver", "expected a driver"],
      ["a tool name taken by another UseTools", [UseTools([add]), UseTools([echo, add])], "capabilities[1].tools[1].name", "capabilities[0].tools[0]"],
      ["guards given twice", [UseGuards(), UseGuards({ maxSteps: 3 })], "capabilities[1]", "UseGuards is given twice"],
      ["an interceptor that is not one", [UseInterceptor({} as never)], "capabilities[0].interceptor", "intercept"],
      ["hooks beside an interceptor", [UseInterceptor({ intercept: Effect.succeed } as never), UseHook((c) => c, { triggers: "BeforeStep" })], "capabilities[1]", "replaces the hook stack"],
    ])("throws InvalidConfiguration for %s, naming its path", (_, capabilities, path, detail) => {
      const error = invalidConfiguration(() => AgentBuilder.make(...capabilities))
      expect(error).toMatchObject({ _tag: "InvalidConfiguration", path })
      expect(error.message).toContain(detail)
    })

    it("validates before any model call, and the Promise facade rejects for a missing driver", async () => {
      const scripted = ScriptedDriver.make([ScriptedDriver.text("hi")])
      expect(() => AgentBuilder.make(UseDriver(scripted), UseTools([add], { maxOutputLength: 0 }))).toThrow(AgentError.HooklineError)
      expect(scripted.requests).toHaveLength(0)
      await expect(AgentBuilder.make(UseTools([add])).run(question)).rejects.toMatchObject({
        error: { _tag: "InvalidConfiguration", path: "driver" },
      })
    })
  })
})
