import { Effect } from "effect"
import { pipe } from "effect/Function"
import * as t from "io-ts"
import { describe, expect, it } from "vitest"
import {
  AgentError,
  AgentState,
  Hook,
  HookContext,
  HookStack,
  Interceptor,
  Message,
  PassThroughInterceptor,
  type HookTrigger,
} from "@hookline/core"
import {
  type AgentEvent,
  AgentBuilder,
  ApplyContextConfigHook,
  Tool,
  UseContextConfig,
  UseDriver,
  UseGuards,
  UseHook,
  UseInterceptor,
  UseLoopOptions,
  UseTools,
} from "@hookline/agent"
import { ScriptedDriver } from "@hookline/testing"
import { add, answers, echo, echoForever, invalidConfiguration, messages, on, stopReason } from "./support.js"

const addThenAnswer = () =>
  ScriptedDriver.make([ScriptedDriver.toolCalls([{ name: "add", arguments: { a: 2, b: 2 } }]), ScriptedDriver.text("4")])

const noop: Hook = (ctx) => ctx

const names = (agent: { readonly loop: { readonly interceptor: unknown } }, trigger: HookTrigger) =>
  HookStack.order(agent.loop.interceptor as HookStack, trigger)

// A script of `n` tool-calling turns, then an answer.
const toolTurns = (n: number) => [
  ...Array.from({ length: n }, () => ScriptedDriver.toolCalls([{ name: "echo", arguments: { text: "x" } }])),
  ScriptedDriver.text("done"),
]

const json = { type: "json", schema: { type: "object", properties: { answer: { type: "number" } } } } as const

describe("AgentBuilder", () => {
  describe("make", () => {
    it("returns an agent over a loop with the given driver and tools", () => {
      const driver = addThenAnswer()
      const agent = AgentBuilder.make(UseDriver(driver), UseTools([add]))
      expect(agent._tag).toBe("Agent")
      expect(agent.driver).toBe(driver)
      expect(agent.loop._tag).toBe("AgentLoop")
      expect(agent.loop.tools.definitions.map((d) => d.name)).toEqual(["add"])
    })
  })

  describe("of and use", () => {
    it("makes a builder with the given capabilities, in order", () => {
      const driver = UseDriver(addThenAnswer())
      const tools = UseTools([add])
      expect(AgentBuilder.of(driver, tools).capabilities).toEqual([driver, tools])
    })

    it("returns a new builder from use (data-first) and leaves the old one unchanged", () => {
      const driver = UseDriver(addThenAnswer())
      const tools = UseTools([add])
      const before = AgentBuilder.of(driver)
      const after = AgentBuilder.use(before, tools)
      expect(after).not.toBe(before)
      expect(after.capabilities).toEqual([driver, tools])
      expect(before.capabilities).toEqual([driver])
    })

    it("returns a new builder from use (data-last, with pipe) and leaves the old one unchanged", () => {
      const driver = UseDriver(addThenAnswer())
      const guards = UseGuards({ maxSteps: 3 })
      const before = pipe(AgentBuilder.empty, AgentBuilder.use(driver))
      const after = pipe(before, AgentBuilder.use(UseTools([add]), guards))
      expect(after.capabilities.map((c) => c._tag)).toEqual(["UseDriver", "UseTools", "UseGuards"])
      expect(before.capabilities).toEqual([driver])
      expect(AgentBuilder.empty.capabilities).toEqual([])
    })

    it("freezes the builder and its list of capabilities", () => {
      const builder = AgentBuilder.of(UseDriver(addThenAnswer()))
      expect(Object.isFrozen(builder)).toBe(true)
      expect(Object.isFrozen(builder.capabilities)).toBe(true)
    })
  })

  describe("build", () => {
    it("behaves as make with the same capabilities", async () => {
      const capabilities = (driver: ScriptedDriver) => [
        UseDriver(driver),
        UseTools([add]),
        UseGuards({ maxSteps: 5 }),
        UseHook(noop, { triggers: "BeforeToolUse", name: "test:noop" }),
      ]
      const built = AgentBuilder.build(AgentBuilder.of(...capabilities(addThenAnswer())))
      const made = AgentBuilder.make(...capabilities(addThenAnswer()))
      expect(HookStack.explain(built.loop.interceptor as HookStack)).toEqual(HookStack.explain(made.loop.interceptor as HookStack))
      const [a, b] = [await built.run("What is 2+2?"), await made.run("What is 2+2?")]
      expect(messages(a)).toEqual(messages(b))
      expect([a.execution.status, a.execution.steps.length]).toEqual([b.execution.status, b.execution.steps.length])
    })

    it("builds the same agent from a builder twice (a builder is a value)", () => {
      const builder = AgentBuilder.of(UseDriver(addThenAnswer()), UseGuards({ maxSteps: 2 }))
      const [x, y] = [AgentBuilder.build(builder), AgentBuilder.build(builder)]
      expect(x).not.toBe(y)
      expect(HookStack.explain(x.loop.interceptor as HookStack)).toEqual(HookStack.explain(y.loop.interceptor as HookStack))
    })
  })

  describe("build validation", () => {
    const driver = () => UseDriver(addThenAnswer())

    it("throws a HooklineError carrying InvalidConfiguration", () => {
      let thrown: unknown
      try {
        AgentBuilder.make(driver(), "not a capability" as never)
      } catch (error) {
        thrown = error
      }
      expect(thrown).toBeInstanceOf(AgentError.HooklineError)
      expect((thrown as AgentError.HooklineError).error).toMatchObject({ _tag: "InvalidConfiguration", path: "capabilities[1]" })
    })

    it("names a capability that is not one", () => {
      expect(invalidConfiguration(() => AgentBuilder.make(driver(), { _tag: "UseMagic" } as never)).path).toBe("capabilities[1]")
      expect(invalidConfiguration(() => AgentBuilder.make(driver(), null as never)).path).toBe("capabilities[1]")
    })

    it("rejects UseDriver given twice, at the second", () => {
      expect(invalidConfiguration(() => AgentBuilder.make(driver(), UseTools([add]), driver())).path).toBe("capabilities[2]")
    })

    it("rejects a driver without generate and stream", () => {
      const error = invalidConfiguration(() => AgentBuilder.make(UseDriver({ generate: () => Effect.die("no") } as never)))
      expect(error.path).toBe("capabilities[0].driver")
    })

    it("rejects UseInterceptor given twice, at the second", () => {
      const error = invalidConfiguration(() =>
        AgentBuilder.make(driver(), UseInterceptor(PassThroughInterceptor), UseInterceptor(PassThroughInterceptor))
      )
      expect(error.path).toBe("capabilities[2]")
    })

    it("rejects UseInterceptor together with UseHook, at the hook", () => {
      const error = invalidConfiguration(() =>
        AgentBuilder.make(driver(), UseInterceptor(PassThroughInterceptor), UseHook(noop, { triggers: "BeforeStep" }))
      )
      expect(error.path).toBe("capabilities[2]")
      expect(error.message).toContain("capabilities[1]")
    })

    it("rejects UseInterceptor together with UseGuards, whichever comes first", () => {
      expect(invalidConfiguration(() => AgentBuilder.make(driver(), UseGuards(), UseInterceptor(PassThroughInterceptor))).path).toBe(
        "capabilities[1]",
      )
      expect(invalidConfiguration(() => AgentBuilder.make(UseInterceptor(PassThroughInterceptor), driver(), UseGuards())).path).toBe(
        "capabilities[2]",
      )
    })

    it("rejects UseGuards given twice, at the second", () => {
      expect(invalidConfiguration(() => AgentBuilder.make(driver(), UseGuards(), UseGuards({ maxSteps: 3 }))).path).toBe(
        "capabilities[2]",
      )
    })

    it("names a bad guard option under its capability", () => {
      expect(invalidConfiguration(() => AgentBuilder.make(driver(), UseTools([add]), UseGuards({ maxSteps: -1 }))).path).toBe(
        "capabilities[2].maxSteps",
      )
      expect(invalidConfiguration(() => AgentBuilder.make(UseGuards({ maxExecutionTime: "soon" as never }))).path).toBe(
        "capabilities[0].maxExecutionTime",
      )
    })

    it("names a bad hook option under its capability", () => {
      expect(invalidConfiguration(() => AgentBuilder.make(driver(), UseHook(noop, { triggers: ["BeforeNap" as HookTrigger] }))).path)
        .toBe("capabilities[1].triggers[0]")
      expect(invalidConfiguration(() => AgentBuilder.make(driver(), UseHook(noop, { triggers: "BeforeStep", priority: Number.NaN }))).path)
        .toBe("capabilities[1].priority")
    })

    it("names a non-tool in UseTools", () => {
      expect(invalidConfiguration(() => AgentBuilder.make(UseTools([add, { name: "fake" } as never]))).path).toBe(
        "capabilities[0].tools[1]",
      )
    })

    it("names the second of two tools with the same name, across UseTools", () => {
      const otherAdd = Tool.make({ name: "add", parameters: t.type({}), execute: () => 0 })
      const error = invalidConfiguration(() => AgentBuilder.make(UseTools([add, echo]), UseTools([otherAdd])))
      expect(error.path).toBe("capabilities[1].tools[0].name")
      expect(error.message).toContain("capabilities[0].tools[0]")
    })

    it("names a non-string system prompt", () => {
      expect(invalidConfiguration(() => AgentBuilder.make(UseContextConfig({ systemPrompt: 42 as never }))).path).toBe(
        "capabilities[0].systemPrompt",
      )
    })

    it("names a bad response format", () => {
      const error = invalidConfiguration(() => AgentBuilder.make(driver(), UseContextConfig({ responseFormat: { type: "xml" } as never })))
      expect(error.path).toBe("capabilities[1].responseFormat.type")
      expect(invalidConfiguration(() => AgentBuilder.make(UseContextConfig({ responseFormat: { type: "json", schema: 3 } as never }))).path)
        .toBe("capabilities[0].responseFormat.schema")
    })

    it("validates when building, before any run (no driver call)", () => {
      const scripted = addThenAnswer()
      expect(() => AgentBuilder.make(UseDriver(scripted), UseGuards({ maxTokens: -5 }))).toThrow(AgentError.HooklineError)
      expect(scripted.requests).toHaveLength(0)
    })

    it("names a bad model option under its capability", () => {
      const error = invalidConfiguration(() => AgentBuilder.make(driver(), UseLoopOptions({ modelOptions: { temperature: "hot" as never } })))
      expect(error.path).toBe("capabilities[1].modelOptions.temperature")
    })

    it("names loop options that are not an object", () => {
      expect(invalidConfiguration(() => AgentBuilder.make(driver(), UseLoopOptions(null as never))).path).toBe("capabilities[1]")
    })

    it("names a bad loop option under its capability", () => {
      const error = invalidConfiguration(() => AgentBuilder.make(driver(), UseLoopOptions({ toolConcurrency: "parallel" as never })))
      expect(error.path).toBe("capabilities[1].toolConcurrency")
    })
  })

  describe("UseContextConfig", () => {
    it("registers ApplyContextConfigHook as context:config on BeforeStep at priority 100, between guards and user hooks", () => {
      const agent = AgentBuilder.make(
        UseDriver(addThenAnswer()),
        UseHook(noop, { triggers: "BeforeStep", name: "test:user" }),
        UseContextConfig({ systemPrompt: "Be terse." }),
      )
      const beforeStep = HookStack.explain(agent.loop.interceptor as HookStack).find((e) => e.trigger === "BeforeStep")
      expect(beforeStep?.hooks.map((h) => [h.name, h.priority])).toEqual([
        ["guard:steps_limit", 200],
        ["guard:token_limit", 200],
        ["guard:time_limit", 200],
        ["context:config", 100],
        ["test:user", 0],
      ])
      expect(HookStack.explain(agent.loop.interceptor as HookStack).filter((e) => e.hooks.some((h) => h.name === "context:config")))
        .toHaveLength(1)
    })

    it("registers nothing without UseContextConfig", () => {
      const agent = AgentBuilder.make(UseDriver(addThenAnswer()))
      expect(names(agent, "BeforeStep")).not.toContain("context:config")
    })

    it("sets the system prompt and the response format the driver sees", async () => {
      const driver = ScriptedDriver.make([ScriptedDriver.text('{"answer":4}')])
      const final = await AgentBuilder.make(UseDriver(driver), UseContextConfig({ systemPrompt: "Answer in JSON.", responseFormat: json }))
        .run("What is 2+2?")
      expect(driver.requests[0]?.systemPrompt).toBe("Answer in JSON.")
      expect(driver.requests[0]?.responseFormat).toEqual(json)
      expect(final.context.systemPrompt).toBe("Answer in JSON.")
      expect(final.context.responseFormat).toEqual(json)
    })

    it("keeps the state's own prompt when the configured one is empty, and still applies a format", async () => {
      const driver = ScriptedDriver.make([ScriptedDriver.text("ok")])
      const state = AgentState.make({ systemPrompt: "Mine.", messages: [Message.user("hi")] })
      await AgentBuilder.make(UseDriver(driver), UseContextConfig({ systemPrompt: "", responseFormat: { type: "json" } })).run(state)
      expect(driver.requests[0]?.systemPrompt).toBe("Mine.")
      expect(driver.requests[0]?.responseFormat).toEqual({ type: "json" })
    })

    it("keeps the state's own response format when none is configured", async () => {
      const driver = ScriptedDriver.make([ScriptedDriver.text("ok")])
      const state = AgentState.make({ responseFormat: json, messages: [Message.user("hi")] })
      await AgentBuilder.make(UseDriver(driver), UseContextConfig({ systemPrompt: "S." })).run(state)
      expect(driver.requests[0]?.responseFormat).toEqual(json)
      expect(driver.requests[0]?.systemPrompt).toBe("S.")
    })

    it("does not let a later empty prompt erase an earlier one", async () => {
      const driver = ScriptedDriver.make([ScriptedDriver.text("ok")])
      await AgentBuilder.make(
        UseDriver(driver),
        UseContextConfig({ systemPrompt: "Be terse." }),
        UseContextConfig({ systemPrompt: "", responseFormat: { type: "json" } }),
      ).run("hi")
      expect(driver.requests[0]?.systemPrompt).toBe("Be terse.")
    })

    it("does not silently drop the context config next to UseInterceptor", async () => {
      const driver = ScriptedDriver.make([ScriptedDriver.text("ok")])
      let agent: ReturnType<typeof AgentBuilder.make> | undefined
      try {
        agent = AgentBuilder.make(UseDriver(driver), UseInterceptor(PassThroughInterceptor), UseContextConfig({ systemPrompt: "Be terse." }))
      } catch (error) {
        // Rejecting the combination, as for UseHook and UseGuards, is fine too.
        expect((error as AgentError.HooklineError).error._tag).toBe("InvalidConfiguration")
        return
      }
      await agent.run("hi")
      expect(driver.requests[0]?.systemPrompt).toBe("Be terse.")
    })
  })

  describe("ApplyContextConfigHook", () => {
    const ctx = (state = AgentState.make({ messages: [Message.user("hi")] })) =>
      HookContext.make({ trigger: "BeforeStep", state, createdAt: 0 })

    it("returns the same context when applied a second time", () => {
      const hook = ApplyContextConfigHook({ systemPrompt: "S.", responseFormat: json })
      const once = hook(ctx())
      expect(once.state.context.systemPrompt).toBe("S.")
      expect(hook(once)).toBe(once)
    })

    it("returns the same context when the state already has an equal config", () => {
      const hook = ApplyContextConfigHook({ systemPrompt: "S.", responseFormat: { type: "json", schema: { type: "object" } } })
      const input = ctx(AgentState.make({ systemPrompt: "S.", responseFormat: { type: "json", schema: { type: "object" } } }))
      expect(hook(input)).toBe(input)
    })

    it("returns the same context for an empty config", () => {
      const input = ctx(AgentState.make({ systemPrompt: "Mine." }))
      expect(ApplyContextConfigHook({ systemPrompt: "" })(input)).toBe(input)
    })
  })

  describe("UseGuards", () => {
    it("gives the default guards without UseGuards: a run stops after 20 steps", async () => {
      const driver = echoForever()
      const final = await AgentBuilder.make(UseDriver(driver), UseTools([echo])).run("loop")
      expect(final.execution.steps.length).toBe(20)
      expect(driver.requests).toHaveLength(20)
      expect(final.execution.status).toBe("stopped")
      expect(stopReason(final)).toBe("StepsLimitReached")
    })

    it("uses the limits it is given", async () => {
      const final = await AgentBuilder.make(UseDriver(echoForever()), UseTools([echo]), UseGuards({ maxSteps: 3 })).run("loop")
      expect(final.execution.steps.length).toBe(3)
      expect(stopReason(final)).toBe("StepsLimitReached")
    })

    it("keeps the defaults of the options it is not given", () => {
      const agent = AgentBuilder.make(UseDriver(echoForever()), UseGuards({ maxSteps: null }))
      expect(names(agent, "BeforeStep")).toEqual(["guard:token_limit", "guard:time_limit"])
    })

    it("removes the guards given null", async () => {
      const agent = AgentBuilder.make(
        UseDriver(ScriptedDriver.make(toolTurns(21))),
        UseTools([echo]),
        UseGuards({ maxSteps: null, maxTokens: null, maxExecutionTime: null }),
      )
      expect(HookStack.explain(agent.loop.interceptor as HookStack)).toEqual([])
      const final = await agent.run("loop")
      expect(final.execution.steps.length).toBe(22)
      expect(final.execution.status).toBe("completed")
    })
  })

  describe("UseInterceptor", () => {
    it("calls the interceptor at every trigger in place of the stack", async () => {
      const seen: Array<string> = []
      const recording = Interceptor.make((ctx) => Effect.sync(() => (seen.push(ctx.trigger), ctx)))
      const final = await AgentBuilder.make(UseDriver(addThenAnswer()), UseTools([add]), UseInterceptor(recording)).run("What is 2+2?")
      expect(seen).toEqual([
        "BeforeExecution",
        "BeforeStep",
        "BeforeInference",
        "AfterInference",
        "BeforeToolUse",
        "AfterToolUse",
        "AfterStep",
        "BeforeStep",
        "BeforeInference",
        "AfterInference",
        "AfterStep",
        "OnStop",
        "AfterExecution",
      ])
      expect(final.execution.status).toBe("completed")
    })

    it("uses the contexts the interceptor returns", async () => {
      let ran = 0
      const counted = Tool.make({ name: "add", parameters: t.type({ a: t.number, b: t.number }), execute: ({ a, b }) => (ran++, a + b) })
      const denyAll = Interceptor.make((ctx) =>
        Effect.succeed(ctx.trigger === "BeforeToolUse" ? HookContext.withToolExecutionBlocked(ctx, "no tools today") : ctx)
      )
      const final = await AgentBuilder.make(UseDriver(addThenAnswer()), UseTools([counted]), UseInterceptor(denyAll)).run("What is 2+2?")
      expect(ran).toBe(0)
      expect(messages(final)).toContain("tool:Blocked: no tools today")
    })

    it("runs an agent with no hooks at all under PassThroughInterceptor (no default guards)", async () => {
      const driver = ScriptedDriver.make(toolTurns(21))
      const agent = AgentBuilder.make(UseDriver(driver), UseTools([echo]), UseInterceptor(PassThroughInterceptor))
      expect(agent.loop.interceptor).toBe(PassThroughInterceptor)
      const final = await agent.run("loop")
      expect(final.execution.steps.length).toBe(22)
      expect(final.execution.status).toBe("completed")
    })
  })

  describe("UseLoopOptions", () => {
    it("sends the model options with every request", async () => {
      const driver = addThenAnswer()
      await AgentBuilder.make(UseDriver(driver), UseTools([add]), UseLoopOptions({ modelOptions: { temperature: 0.2, seed: 7 } })).run("q")
      expect(driver.requests.map((r) => r.options)).toEqual([{ temperature: 0.2, seed: 7 }, { temperature: 0.2, seed: 7 }])
    })

    it("sets when a stream emits text, and refuses an unknown mode", () => {
      const redact = Hook.observe(() => {})
      const driver = () => UseDriver(addThenAnswer())
      expect(AgentBuilder.make(driver()).loop.textDeltas).toBe("auto")
      expect(AgentBuilder.make(driver(), UseHook(redact, { triggers: "AfterInference" }), UseLoopOptions({ textDeltas: "live" })).loop.textDeltas).toBe("live")
      const error = invalidConfiguration(() => AgentBuilder.make(driver(), UseLoopOptions({ textDeltas: "never" as never })))
      expect(error.path).toBe("capabilities[1].textDeltas")
    })

    it("runs the calls of a step together with toolConcurrency concurrent", async () => {
      let running = 0
      let most = 0
      const wait = Tool.make({
        name: "wait",
        parameters: t.type({}),
        execute: () =>
          Effect.gen(function*() {
            most = Math.max(most, ++running)
            for (let i = 0; i < 3; i++) yield* Effect.yieldNow
            running--
          }),
      })
      const driver = ScriptedDriver.make([ScriptedDriver.toolCalls([{ name: "wait" }, { name: "wait" }]), ScriptedDriver.text("ok")])
      const agent = AgentBuilder.make(UseDriver(driver), UseTools([wait]), UseLoopOptions({ toolConcurrency: "concurrent" }))
      expect(agent.loop.toolConcurrency).toBe("concurrent")
      await agent.run("q")
      expect(most).toBe(2)
    })

    it("keeps the calls sequential by default", () => {
      expect(AgentBuilder.make(UseDriver(addThenAnswer())).loop.toolConcurrency).toBe("sequential")
    })
  })
})

describe("Agent", () => {
  describe("run", () => {
    it("resolves with the final state of a question", async () => {
      const final = await AgentBuilder.make(UseDriver(addThenAnswer()), UseTools([add])).run("What is 2+2?")
      expect(final.execution.status).toBe("completed")
      expect(messages(final)).toEqual(["user:What is 2+2?", 'assistant:add({"a":2,"b":2})', "tool:4", "assistant:4"])
      expect(Object.isFrozen(final)).toBe(true)
    })

    it("continues a given pending state from its history", async () => {
      const driver = ScriptedDriver.make([ScriptedDriver.text("6")])
      const state = AgentState.make({ messages: [Message.user("2+2?"), Message.assistant("4"), Message.user("And 3+3?")] })
      const final = await AgentBuilder.make(UseDriver(driver)).run(state)
      expect(driver.requests[0]?.messages.length).toBe(3)
      expect(final.id).toBe(state.id)
      expect(messages(final)).toEqual(["user:2+2?", "assistant:4", "user:And 3+3?", "assistant:6"])
    })

    it("starts a new execution on the same conversation from a finished state: steps reset, messages kept", async () => {
      const agent = AgentBuilder.make(
        UseDriver(ScriptedDriver.make([ScriptedDriver.toolCalls([{ name: "add", arguments: { a: 2, b: 2 } }]), ScriptedDriver.text("4"), ScriptedDriver.text("6")])),
        UseTools([add]),
      )
      const first = await agent.run("What is 2+2?")
      expect(first.execution.steps.length).toBe(2)
      const second = await agent.run(AgentState.appendMessage(first, Message.user("And 3+3?")))
      expect(second.id).toBe(first.id)
      expect(second.execution.steps.length).toBe(1)
      expect(second.execution.status).toBe("completed")
      expect(messages(second)).toEqual([...messages(first), "user:And 3+3?", "assistant:6"])
    })

    it("resolves stopped with UserRequested for an aborted signal, without calling the model", async () => {
      const driver = ScriptedDriver.make([ScriptedDriver.text("never")])
      const final = await AgentBuilder.make(UseDriver(driver)).run("hi", { signal: AbortSignal.abort() })
      expect(final.execution.status).toBe("stopped")
      expect(stopReason(final)).toBe("UserRequested")
      expect(driver.requests).toHaveLength(0)
    })

    it("resolves stopped with UserRequested when the signal aborts during the run", async () => {
      const controller = new AbortController()
      const abortNow = Hook.observe(() => controller.abort())
      const driver = ScriptedDriver.make([ScriptedDriver.hang()])
      const final = await AgentBuilder.make(UseDriver(driver), UseHook(abortNow, on("BeforeInference", "test:abort"))).run("hi", {
        signal: controller.signal,
      })
      expect(final.execution.status).toBe("stopped")
      expect(stopReason(final)).toBe("UserRequested")
    })

    it("resolves (does not reject) with a failed state when the run fails", async () => {
      const agent = AgentBuilder.make(UseDriver(ScriptedDriver.make([ScriptedDriver.failure("invalid api key", { status: 401 })])))
      const final = await agent.run("hi")
      expect(final.execution.status).toBe("failed")
      expect(final.execution.errors).toEqual([expect.objectContaining({ _tag: "InferenceFailed", status: 401 })])
    })

    it("sends every HookExecuted event to the sink it is given", async () => {
      const events: Array<string> = []
      await AgentBuilder.make(UseDriver(ScriptedDriver.make([ScriptedDriver.text("ok")])), UseHook(noop, on("AfterStep", "test:noop")))
        .run("hi", { sink: (e) => events.push(`${e.trigger}:${e.hook}`) })
      expect(events).toContain("AfterStep:test:noop")
      expect(events).toContain("BeforeStep:guard:steps_limit")
    })

    it("rejects with InvalidConfiguration at path driver when the agent has no driver", async () => {
      const agent = AgentBuilder.make(UseTools([add]))
      await expect(agent.run("hi")).rejects.toMatchObject({ error: { _tag: "InvalidConfiguration", path: "driver" } })
      await expect(agent.run("hi")).rejects.toBeInstanceOf(AgentError.HooklineError)
    })
  })

  describe("runOrThrow", () => {
    it("rejects with a HooklineError carrying the error that ended a failed run", async () => {
      const agent = AgentBuilder.make(UseDriver(ScriptedDriver.make([ScriptedDriver.failure("overloaded", { status: 529 })])))
      const rejection = await agent.runOrThrow("hi").then(() => undefined, (e: unknown) => e)
      expect(rejection).toBeInstanceOf(AgentError.HooklineError)
      expect((rejection as AgentError.HooklineError).error).toMatchObject({ _tag: "InferenceFailed", status: 529, message: "overloaded" })
    })

    it("rejects with the HookFailed of a hook that ended the run", async () => {
      const broken: Hook = () => {
        throw new Error("bad hook")
      }
      const agent = AgentBuilder.make(UseDriver(ScriptedDriver.make([ScriptedDriver.text("x")])), UseHook(broken, on("BeforeStep", "test:broken")))
      await expect(agent.runOrThrow("hi")).rejects.toMatchObject({ error: { _tag: "HookFailed", hook: "test:broken" } })
    })

    it("resolves with the final state of a run that did not fail, a stopped one included", async () => {
      const done = await AgentBuilder.make(UseDriver(addThenAnswer()), UseTools([add])).runOrThrow("What is 2+2?")
      expect(done.execution.status).toBe("completed")
      const stopped = await AgentBuilder.make(UseDriver(echoForever()), UseTools([echo]), UseGuards({ maxSteps: 1 })).runOrThrow("loop")
      expect(stopped.execution.status).toBe("stopped")
    })

    it("rejects with InvalidConfiguration when the agent has no driver", async () => {
      await expect(AgentBuilder.make().runOrThrow("hi")).rejects.toMatchObject({ error: { _tag: "InvalidConfiguration", path: "driver" } })
    })
  })

  describe("stream", () => {
    it("yields the run's events, ending with RunEnded and the final state", async () => {
      const agent = AgentBuilder.make(UseDriver(addThenAnswer()), UseTools([add]))
      const events: Array<AgentEvent> = []
      for await (const event of agent.stream("What is 2+2?")) events.push(event)
      const tags = events.filter((e) => e._tag !== "HookExecuted").map((e) => e._tag)
      expect(tags).toEqual(["RunStarted", "ToolCallRequested", "ToolResult", "StepEnded", "TextDelta", "StepEnded", "RunEnded"])
      const last = events.at(-1)
      expect(last?._tag === "RunEnded" && last.state.execution.status).toBe("completed")
    })

    it("aborts the run when the consumer breaks out of the loop, and AfterExecution still fires", async () => {
      const ended: Array<string> = []
      const record = Hook.observe((ctx) => ended.push(ctx.state.execution.status))
      const driver = ScriptedDriver.make([ScriptedDriver.hang()])
      const agent = AgentBuilder.make(UseDriver(driver), UseHook(record, on("AfterExecution", "test:record")))
      for await (const event of agent.stream("hi")) {
        if (event._tag === "RunStarted") break
      }
      expect(ended).toEqual(["stopped"])
    })

    it("fails the iteration with InvalidConfiguration when the agent has no driver", async () => {
      const agent = AgentBuilder.make()
      const consume = async () => {
        for await (const _ of agent.stream("hi")) void _
      }
      await expect(consume()).rejects.toMatchObject({ error: { _tag: "InvalidConfiguration", path: "driver" } })
    })
  })

  describe("iterate", () => {
    it("yields the state after each step, then the final state", async () => {
      const agent = AgentBuilder.make(UseDriver(addThenAnswer()), UseTools([add]))
      const states: Array<[number, string]> = []
      for await (const state of agent.iterate("What is 2+2?")) states.push([state.execution.steps.length, state.execution.status])
      expect(states).toEqual([[1, "running"], [2, "running"], [2, "completed"]])
    })
  })

  describe("runEffect", () => {
    it("is an Effect that runs the agent with its driver", async () => {
      const agent = AgentBuilder.make(UseDriver(addThenAnswer()), UseTools([add]))
      const effect = agent.runEffect("What is 2+2?")
      expect(Effect.isEffect(effect)).toBe(true)
      const final = await Effect.runPromise(effect)
      expect(answers(final)).toEqual(["4"])
    })

    it("runs again each time it is run", async () => {
      const driver = ScriptedDriver.make([ScriptedDriver.text("one"), ScriptedDriver.text("two")])
      const effect = AgentBuilder.make(UseDriver(driver)).runEffect("hi")
      const [a, b] = [await Effect.runPromise(effect), await Effect.runPromise(effect)]
      expect([answers(a), answers(b)]).toEqual([["one"], ["two"]])
    })
  })
})

