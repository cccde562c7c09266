// The scenarios users bring from other hook systems (shared/seeds), each written the
// way a user of hookline would write it: a builder, pure hooks, `await agent.run(...)`.
import { pipe } from "effect/Function"
import * as t from "io-ts"
import { describe, expect, it } from "vitest"
import {
  AgentError,
  AgentState,
  HookContext,
  Hook,
  InferenceResponse,
  Message,
  StopReason,
  StopSignal,
  ToolExecution,
  type HookExecuted,
  type JsonValue,
} from "@hookline/core"
import { AgentBuilder, Tool, UseContextConfig, UseDriver, UseHook, UseTools } from "@hookline/agent"
import { ScriptedDriver } from "@hookline/testing"
import { answers, echo, messages, on, stopReason, toolResults } from "./support.js"

const lastUserMessage = (state: AgentState): string | undefined => {
  for (let i = state.context.messages.length - 1; i >= 0; i--) {
    const m = state.context.messages.at(i)
    if (m?.role === "user") return m.content
  }
  return undefined
}

// A shell the tests can watch: it records the commands it ran.
const shell = () => {
  const ran: Array<string> = []
  const tool = Tool.make({
    name: "bash",
    description: "Runs a shell command",
    parameters: t.type({ command: t.string }),
    execute: ({ command }) => (ran.push(command), `ran: ${command}`),
  })
  return { tool, ran }
}

const textOf = (state: AgentState) => JSON.stringify(state)

describe("Agent seed scenarios", () => {
  describe("cache short-circuit", () => {
    // A BeforeInference hook answers from a cache keyed on the last user message; an
    // AfterInference hook fills it.
    const cachedAgent = (driver: ScriptedDriver) => {
      const cache = new Map<string, InferenceResponse>()
      const lookup: Hook = (ctx) => {
        const hit = cache.get(lastUserMessage(ctx.state) ?? "")
        return hit === undefined ? ctx : HookContext.withResponse(ctx, hit)
      }
      const store = Hook.observe((ctx) => {
        const key = lastUserMessage(ctx.state)
        if (key !== undefined && ctx.response !== undefined) cache.set(key, ctx.response)
      })
      const agent = AgentBuilder.make(
        UseDriver(driver),
        UseHook(lookup, on("BeforeInference", "cache:lookup", 100)),
        UseHook(store, on("AfterInference", "cache:store")),
      )
      return { agent, cache }
    }

    it("fills the cache from the model's answer", async () => {
      const { agent, cache } = cachedAgent(ScriptedDriver.make([ScriptedDriver.text("4")]))
      await agent.run("What is 2+2?")
      expect(cache.get("What is 2+2?")?.text).toBe("4")
    })

    it("answers a repeated question from the cache without calling the model", async () => {
      const driver = ScriptedDriver.make([ScriptedDriver.text("4"), ScriptedDriver.text("6")])
      const { agent } = cachedAgent(driver)
      await agent.run("What is 2+2?")
      const again = await agent.run("What is 2+2?")
      expect(driver.requests).toHaveLength(1)
      expect(answers(again)).toEqual(["4"])
      expect(again.execution.status).toBe("completed")
    })

    it("calls the model for a question it has not seen", async () => {
      const driver = ScriptedDriver.make([ScriptedDriver.text("4"), ScriptedDriver.text("6")])
      const { agent } = cachedAgent(driver)
      await agent.run("What is 2+2?")
      const other = await agent.run("What is 3+3?")
      expect(driver.requests).toHaveLength(2)
      expect(answers(other)).toEqual(["6"])
    })
  })

  describe("tool result cache", () => {
    it("answers a repeated tool call from a cache: the tool runs once", async () => {
      let runs = 0
      const weather = Tool.make({
        name: "fetch_weather",
        parameters: t.type({ city: t.string }),
        execute: ({ city }) => (runs++, `${city}: 18°C`),
      })
      const cache = new Map<string, JsonValue>()
      const cityOf = (ctx: HookContext) => (ctx.toolCall?.arguments as { city?: string } | undefined)?.city ?? ""
      const lookup: Hook = (ctx) => {
        const hit = cache.get(cityOf(ctx))
        return hit === undefined ? ctx : HookContext.withToolResult(ctx, hit)
      }
      const store = Hook.observe((ctx) => {
        if (ctx.toolExecution?.status === "success") cache.set(cityOf(ctx), ctx.toolExecution.output)
      })
      const call = ScriptedDriver.toolCalls([{ name: "fetch_weather", arguments: { city: "Paris" } }])
      const final = await AgentBuilder.make(
        UseDriver(ScriptedDriver.make([call, call, ScriptedDriver.text("Mild.")])),
        UseTools([weather]),
        UseHook(Hook.forTools(["fetch_weather"], lookup), on("BeforeToolUse", "cache:weather_lookup")),
        UseHook(Hook.forTools(["fetch_weather"], store), on("AfterToolUse", "cache:weather_store")),
      ).run("Weather in Paris, twice?")
      expect(runs).toBe(1)
      expect(toolResults(final)).toEqual([["fetch_weather", "Paris: 18°C", false], ["fetch_weather", "Paris: 18°C", false]])
    })
  })

  describe("permission block", () => {
    const denyDestructive: Hook = (ctx) => {
      const command = (ctx.toolCall?.arguments as { command?: unknown } | undefined)?.command
      return ctx.toolCall?.name === "bash" && typeof command === "string" && command.includes("rm -rf")
        ? HookContext.withToolExecutionBlocked(ctx, "Destructive command blocked")
        : ctx
    }

    it("blocks a destructive command found in the arguments; the model reads the reason and the run goes on", async () => {
      const { tool, ran } = shell()
      const driver = ScriptedDriver.make([
        ScriptedDriver.toolCalls([{ name: "bash", arguments: { command: "rm -rf /tmp/project" } }]),
        ScriptedDriver.text("I will not delete it."),
      ])
      const final = await AgentBuilder.make(
        UseDriver(driver),
        UseTools([tool]),
        UseHook(denyDestructive, on("BeforeToolUse", "policy:no_rm_rf", 200)),
      ).run("Clean up")
      expect(ran).toEqual([])
      const sent = [...(driver.requests[1]?.messages ?? [])].at(-1)
      expect(sent).toMatchObject({ role: "tool", content: "Blocked: Destructive command blocked", isError: true })
      expect(final.execution.status).toBe("completed")
      expect(answers(final)).toEqual(["I will not delete it."])
    })

    it("lets a harmless command of the same tool run in the same step", async () => {
      const { tool, ran } = shell()
      const final = await AgentBuilder.make(
        UseDriver(ScriptedDriver.make([
          ScriptedDriver.toolCalls([{ name: "bash", arguments: { command: "ls -la" } }, { name: "bash", arguments: { command: "rm -rf /" } }]),
          ScriptedDriver.text("done"),
        ])),
        UseTools([tool]),
        UseHook(denyDestructive, on("BeforeToolUse", "policy:no_rm_rf", 200)),
      ).run("Clean up")
      expect(ran).toEqual(["ls -la"])
      expect(toolResults(final)).toEqual([["bash", "ran: ls -la", false], ["bash", "Blocked: Destructive command blocked", true]])
    })
  })

  describe("allowlist", () => {
    it("runs the listed tools and blocks the others with a reason naming the tool", async () => {
      const allowed = new Set(["echo", "read"])
      const allowlist: Hook = (ctx) =>
        ctx.toolCall === undefined || allowed.has(ctx.toolCall.name)
          ? ctx
          : HookContext.withToolExecutionBlocked(ctx, `Tool '${ctx.toolCall.name}' is not in the allowlist`)
      const { tool, ran } = shell()
      const final = await AgentBuilder.make(
        UseDriver(ScriptedDriver.make([
          ScriptedDriver.toolCalls([{ name: "echo", arguments: { text: "hi" } }, { name: "bash", arguments: { command: "pwd" } }]),
          ScriptedDriver.text("done"),
        ])),
        UseTools([echo, tool]),
        UseHook(allowlist, on("BeforeToolUse", "policy:allowlist", 200)),
      ).run("Go")
      expect(ran).toEqual([])
      expect(toolResults(final)).toEqual([["echo", "hi", false], ["bash", "Blocked: Tool 'bash' is not in the allowlist", true]])
      expect(final.execution.errors).toEqual([expect.objectContaining({ _tag: "ToolBlocked", toolName: "bash" })])
    })
  })

  describe("rate limit", () => {
    // At most `max` calls of a tool per run, counted in the state's metadata.
    const rateLimit = (tool: string, max: number): Hook => (ctx) => {
      if (ctx.toolCall?.name !== tool) return ctx
      const key = `rate:${tool}`
      const used = Number(ctx.state.metadata[key] ?? 0)
      return used >= max
        ? HookContext.withToolExecutionBlocked(ctx, `Tool ${tool} rate limited (${max} per run)`)
        : HookContext.updateState(ctx, (draft) => {
          draft.metadata[key] = used + 1
        })
    }
    const agentWith = (script: ReadonlyArray<ScriptedDriver.Turn>) =>
      AgentBuilder.make(UseDriver(ScriptedDriver.make(script)), UseTools([echo]), UseHook(rateLimit("echo", 2), on("BeforeToolUse", "policy:rate_limit", 150)))
    const echoCall = (text: string) => ({ name: "echo", arguments: { text } })

    it("blocks the call past the limit within one step", async () => {
      const final = await agentWith([ScriptedDriver.toolCalls([echoCall("a"), echoCall("b"), echoCall("c")]), ScriptedDriver.text("ok")]).run("go")
      expect(toolResults(final)).toEqual([["echo", "a", false], ["echo", "b", false], ["echo", "Blocked: Tool echo rate limited (2 per run)", true]])
      expect(final.metadata).toEqual({ "rate:echo": 2 })
      expect(final.execution.status).toBe("completed")
    })

    it("counts across the steps of a run and starts over in a new run", async () => {
      const script = [
        ScriptedDriver.toolCalls([echoCall("a")]),
        ScriptedDriver.toolCalls([echoCall("b")]),
        ScriptedDriver.toolCalls([echoCall("c")]),
        ScriptedDriver.text("ok"),
      ]
      const agent = agentWith([...script, ...script])
      const first = await agent.run("go")
      const second = await agent.run("again")
      for (const final of [first, second]) {
        expect(toolResults(final).map(([, , isError]) => isError)).toEqual([false, false, true])
      }
    })
  })

  describe("sliding window", () => {
    it("sends only the last K messages to the model and keeps the whole history", async () => {
      const lastThree: Hook = (ctx) =>
        ctx.request === undefined ? ctx : HookContext.withRequest(ctx, { ...ctx.request, messages: ctx.request.messages.slice(-3) })
      const driver = ScriptedDriver.make([
        ScriptedDriver.toolCalls([{ name: "echo", arguments: { text: "one" } }]),
        ScriptedDriver.toolCalls([{ name: "echo", arguments: { text: "two" } }]),
        ScriptedDriver.text("done"),
      ])
      const final = await AgentBuilder.make(UseDriver(driver), UseTools([echo]), UseHook(lastThree, on("BeforeInference", "context:window")))
        .run("Echo twice")
      expect(driver.requests.map((r) => [...r.messages].map((m) => m.role))).toEqual([
        ["user"],
        ["user", "assistant", "tool"],
        ["tool", "assistant", "tool"],
      ])
      expect(final.context.messages.length).toBe(6)
      expect(messages(final)[0]).toBe("user:Echo twice")
    })
  })

  describe("tool filtering", () => {
    it("hides a tool from the model for a call without removing it from the agent", async () => {
      const { tool } = shell()
      const hideShell: Hook = (ctx) =>
        ctx.request === undefined
          ? ctx
          : HookContext.withRequest(ctx, { ...ctx.request, tools: ctx.request.tools.filter((d) => d.name !== "bash") })
      const driver = ScriptedDriver.make([ScriptedDriver.text("ok")])
      const agent = AgentBuilder.make(UseDriver(driver), UseTools([echo, tool]), UseHook(hideShell, on("BeforeInference", "tools:hide_shell")))
      await agent.run("hi")
      expect(driver.requests[0]?.tools.map((d) => d.name)).toEqual(["echo"])
      expect(agent.loop.tools.definitions.map((d) => d.name)).toEqual(["echo", "bash"])
    })
  })

  describe("dynamic system prompt", () => {
    const withDate: Hook = (ctx) =>
      HookContext.updateState(ctx, (draft) => {
        draft.context.systemPrompt = `${draft.context.systemPrompt}\nToday: ${new Date(ctx.createdAt).toISOString().slice(0, 10)}`
      })

    it("adds to the system prompt once, before the first model call", async () => {
      const driver = ScriptedDriver.make([ScriptedDriver.toolCalls([{ name: "echo", arguments: { text: "x" } }]), ScriptedDriver.text("ok")])
      const state = AgentState.make({ systemPrompt: "You are terse.", messages: [Message.user("hi")] })
      await AgentBuilder.make(UseDriver(driver), UseTools([echo]), UseHook(withDate, on("BeforeExecution", "context:date"))).run(state)
      expect(driver.requests.map((r) => r.systemPrompt)).toEqual([
        expect.stringMatching(/^You are terse\.\nToday: \d{4}-\d{2}-\d{2}$/),
        expect.stringMatching(/^You are terse\.\nToday: \d{4}-\d{2}-\d{2}$/),
      ])
    })

    // ApplyContextConfigHook re-applies the configured prompt at every BeforeStep at
    // priority 100 (the agent issue's placement), so a hook that adds to it runs on
    // BeforeStep below 100; it then adds once per step and never accumulates.
    it("adds to the prompt configured with UseContextConfig from a BeforeStep hook below priority 100", async () => {
      const driver = ScriptedDriver.make([ScriptedDriver.toolCalls([{ name: "echo", arguments: { text: "x" } }]), ScriptedDriver.text("ok")])
      await AgentBuilder.make(
        UseDriver(driver),
        UseTools([echo]),
        UseContextConfig({ systemPrompt: "You are terse." }),
        UseHook(withDate, on("BeforeStep", "context:date", 50)),
      ).run("hi")
      expect(driver.requests.map((r) => r.systemPrompt)).toEqual([
        expect.stringMatching(/^You are terse\.\nToday: \d{4}-\d{2}-\d{2}$/),
        expect.stringMatching(/^You are terse\.\nToday: \d{4}-\d{2}-\d{2}$/),
      ])
    })
  })

  describe("result truncation", () => {
    it("truncates a tool output over the limit with a marker and leaves a short one alone", async () => {
      const limit = 20
      const marker = "\n...(truncated)"
      const read = Tool.make({
        name: "read",
        parameters: t.type({ path: t.string }),
        execute: ({ path }) => (path === "big.log" ? "x".repeat(100) : "short"),
      })
      const truncate: Hook = (ctx) => {
        const execution = ctx.toolExecution
        if (execution?.status !== "success" || typeof execution.output !== "string" || execution.output.length <= limit) return ctx
        return HookContext.withToolResult(ctx, execution.output.slice(0, limit) + marker)
      }
      const final = await AgentBuilder.make(
        UseDriver(ScriptedDriver.make([
          ScriptedDriver.toolCalls([{ name: "read", arguments: { path: "big.log" } }, { name: "read", arguments: { path: "a.txt" } }]),
          ScriptedDriver.text("done"),
        ])),
        UseTools([read]),
        UseHook(truncate, on("AfterToolUse", "result:truncate")),
      ).run("Read both")
      expect(toolResults(final)).toEqual([["read", "x".repeat(20) + marker, false], ["read", "short", false]])
      expect(final.execution.steps.at(0)?.toolExecutions[0]).toMatchObject({ status: "success", output: "x".repeat(20) + marker })
    })
  })

  describe("redaction", () => {
    const secret = "sk-test-123"
    const redact = (text: string) => text.replaceAll(/sk-[A-Za-z0-9-]+/g, "[REDACTED]")
    const redactSecrets: Hook = (ctx) => {
      const execution = ctx.toolExecution
      if (execution?.status === "success") {
        return HookContext.withToolResult(ctx, JSON.parse(redact(JSON.stringify(execution.output))) as JsonValue)
      }
      if (execution?.status === "failure") {
        const error = { ...execution.error, message: redact(execution.error.message) }
        return HookContext.withToolExecution(ctx, ToolExecution.failure(execution.toolCall, error, execution.startedAt, execution.completedAt))
      }
      return ctx
    }

    it("replaces a secret in a tool's output before it is committed: it is nowhere in the final state", async () => {
      const env = Tool.make({ name: "env", parameters: t.type({}), execute: () => ({ OPENAI_API_KEY: secret, HOME: "/home/me" }) })
      const driver = ScriptedDriver.make([ScriptedDriver.toolCalls([{ name: "env", arguments: {} }]), ScriptedDriver.text("done")])
      const final = await AgentBuilder.make(UseDriver(driver), UseTools([env]), UseHook(redactSecrets, on("AfterToolUse", "privacy:redact")))
        .run("Show the environment")
      expect(toolResults(final)).toEqual([["env", '{"OPENAI_API_KEY":"[REDACTED]","HOME":"/home/me"}', false]])
      expect(textOf(final)).not.toContain(secret)
      expect(JSON.stringify(driver.requests)).not.toContain(secret)
    })

    it("replaces a secret in a failing tool's error too", async () => {
      const login = Tool.make({ name: "login", parameters: t.type({}), execute: () => Promise.reject(new Error(`key ${secret} was refused`)) })
      const final = await AgentBuilder.make(
        UseDriver(ScriptedDriver.make([ScriptedDriver.toolCalls([{ name: "login", arguments: {} }]), ScriptedDriver.text("done")])),
        UseTools([login]),
        UseHook(redactSecrets, on("AfterToolUse", "privacy:redact")),
      ).run("Log in")
      expect(toolResults(final)).toEqual([["login", expect.stringContaining("key [REDACTED] was refused"), true]])
      expect(final.execution.errors).toEqual([
        expect.objectContaining({ _tag: "ToolFailed", message: expect.stringContaining("key [REDACTED] was refused") }),
      ])
      expect(textOf(final)).not.toContain(secret)
    })
  })

  describe("follow-up input", () => {
    it("injects a follow-up once when the model stops: two answers, then the run completes", async () => {
      const followUpOnce: Hook = (ctx) =>
        ctx.state.metadata["followedUp"] === true || stopReason(ctx.state) !== StopReason.Completed
          ? ctx
          : pipe(
            ctx,
            HookContext.updateState((draft) => {
              draft.metadata["followedUp"] = true
            }),
            HookContext.requestContinuation("Please continue with the next step."),
          )
      const driver = ScriptedDriver.make([ScriptedDriver.text("Step one done."), ScriptedDriver.text("Step two done.")])
      const final = await AgentBuilder.make(UseDriver(driver), UseHook(followUpOnce, on("OnStop", "flow:follow_up"))).run("Do the steps")
      expect(answers(final)).toEqual(["Step one done.", "Step two done."])
      expect(messages(final)).toEqual([
        "user:Do the steps",
        "assistant:Step one done.",
        "user:Please continue with the next step.",
        "assistant:Step two done.",
      ])
      expect(final.execution.status).toBe("completed")
      expect(driver.requests).toHaveLength(2)
    })
  })

  describe("error recovery", () => {
    const retryRetryable: Hook = (ctx) =>
      ctx.errors.length > 0 && ctx.errors.every((e) => e._tag === "InferenceFailed" && e.retryable) ? HookContext.markErrorsHandled(ctx) : ctx

    it("retries a retryable model failure and completes", async () => {
      const driver = ScriptedDriver.make([ScriptedDriver.failure("rate limited", { status: 429, retryable: true }), ScriptedDriver.text("4")])
      const final = await AgentBuilder.make(UseDriver(driver), UseHook(retryRetryable, on("OnError", "recovery:retry"))).run("2+2?")
      expect(driver.requests).toHaveLength(2)
      expect(final.execution.status).toBe("completed")
      expect(answers(final)).toEqual(["4"])
    })

    it("fails the run for a failure that is not retryable", async () => {
      const driver = ScriptedDriver.make([ScriptedDriver.failure("bad request", { status: 400, retryable: false }), ScriptedDriver.text("4")])
      const final = await AgentBuilder.make(UseDriver(driver), UseHook(retryRetryable, on("OnError", "recovery:retry"))).run("2+2?")
      expect(driver.requests).toHaveLength(1)
      expect(final.execution.status).toBe("failed")
      expect(final.execution.errors).toEqual([expect.objectContaining({ _tag: "InferenceFailed", status: 400 })])
      expect(StopSignal.highest(final.execution.stopSignals)?.reason).toBe("ErrorForbade")
    })

    it("falls back to a canned answer on the next step after an error", async () => {
      const markFallback: Hook = (ctx) =>
        ctx.errors.some((e: AgentError.AgentError) => e._tag === "InferenceFailed")
          ? pipe(
            ctx,
            HookContext.markErrorsHandled,
            HookContext.updateState((draft) => {
              draft.metadata["fallback"] = true
            }),
          )
          : ctx
      const canned: Hook = (ctx) =>
        ctx.state.metadata["fallback"] === true
          ? HookContext.withResponse(ctx, InferenceResponse.make({ text: "The service is busy; please try later.", modelId: "fallback" }))
          : ctx
      const driver = ScriptedDriver.make([ScriptedDriver.failure("overloaded", { status: 503 })])
      const final = await AgentBuilder.make(
        UseDriver(driver),
        UseHook(markFallback, on("OnError", "recovery:mark_fallback")),
        UseHook(canned, on("BeforeInference", "recovery:canned")),
      ).run("2+2?")
      expect(driver.requests).toHaveLength(1)
      expect(final.execution.status).toBe("completed")
      expect(answers(final)).toEqual(["The service is busy; please try later."])
      expect(final.execution.steps.at(-1)?.response?.modelId).toBe("fallback")
      expect(final.execution.errors).toEqual([expect.objectContaining({ _tag: "InferenceFailed", status: 503 })])
    })
  })

  describe("argument rewriting", () => {
    it("normalises the arguments before the tool sees them", async () => {
      const seen: Array<string> = []
      const read = Tool.make({ name: "read", parameters: t.type({ path: t.string }), execute: ({ path }) => (seen.push(path), `contents of ${path}`) })
      const trimPath: Hook = (ctx) => {
        const args = ctx.toolCall?.arguments as { path?: unknown } | undefined
        return typeof args?.path === "string" ? HookContext.withToolArguments(ctx, { ...args, path: args.path.trim() } as JsonValue) : ctx
      }
      const final = await AgentBuilder.make(
        UseDriver(ScriptedDriver.make([ScriptedDriver.toolCalls([{ name: "read", arguments: { path: "  notes.txt \n" } }]), ScriptedDriver.text("ok")])),
        UseTools([read]),
        UseHook(Hook.forTools(["read"], trimPath), on("BeforeToolUse", "args:trim_path")),
      ).run("Read my notes")
      expect(seen).toEqual(["notes.txt"])
      expect(toolResults(final)).toEqual([["read", "contents of notes.txt", false]])
      expect(final.execution.steps.at(0)?.toolExecutions[0]?.toolCall.arguments).toEqual({ path: "notes.txt" })
    })
  })

  describe("observer hooks", () => {
    it("keeps an audit log of every tool call and its outcome, blocked ones included", async () => {
      const log: Array<string> = []
      const auditCall = Hook.observe((ctx) => log.push(`[TOOL] ${ctx.toolCall?.name}(${JSON.stringify(ctx.toolCall?.arguments)})`))
      const auditResult = Hook.observe((ctx) => log.push(`[RESULT] ${ctx.toolCall?.name}: ${ctx.toolExecution?.status}`))
      const denyShell: Hook = (ctx) => ctx.toolCall?.name === "bash" ? HookContext.withToolExecutionBlocked(ctx, "no shell") : ctx
      const { tool } = shell()
      await AgentBuilder.make(
        UseDriver(ScriptedDriver.make([
          ScriptedDriver.toolCalls([{ name: "echo", arguments: { text: "hi" } }, { name: "bash", arguments: { command: "ls" } }]),
          ScriptedDriver.text("done"),
        ])),
        UseTools([echo, tool]),
        UseHook(denyShell, on("BeforeToolUse", "policy:deny_shell", 200)),
        UseHook(auditCall, { triggers: "BeforeToolUse", name: "log:audit_call", priority: 100, onError: "skip" }),
        UseHook(auditResult, { triggers: "AfterToolUse", name: "log:audit_result", priority: 100, onError: "skip" }),
      ).run("Go")
      expect(log).toEqual([
        '[TOOL] echo({"text":"hi"})',
        "[RESULT] echo: success",
        '[TOOL] bash({"command":"ls"})',
        "[RESULT] bash: blocked",
      ])
    })

    it("does not break the run when an observer under 'skip' throws, and reports it as skipped", async () => {
      const events: Array<HookExecuted> = []
      const brokenAudit = Hook.observe(() => {
        throw new Error("log sink down")
      })
      const final = await AgentBuilder.make(
        UseDriver(ScriptedDriver.make([ScriptedDriver.toolCalls([{ name: "echo", arguments: { text: "hi" } }]), ScriptedDriver.text("done")])),
        UseTools([echo]),
        UseHook(brokenAudit, { triggers: ["BeforeToolUse", "AfterToolUse"], name: "log:audit", onError: "skip" }),
      ).run("Go", { sink: (e) => events.push(e) })
      expect(final.execution.status).toBe("completed")
      expect(toolResults(final)).toEqual([["echo", "hi", false]])
      expect(final.execution.errors).toEqual([])
      expect(events.filter((e) => e.hook === "log:audit").map((e) => [e.trigger, e.outcome, e.error])).toEqual([
        ["BeforeToolUse", "skipped", expect.stringContaining("log sink down")],
        ["AfterToolUse", "skipped", expect.stringContaining("log sink down")],
      ])
    })
  })
})
