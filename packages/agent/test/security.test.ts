// Fail-closed security: a block is final, a permission hook that times out or is
// cancelled denies, and a redaction hook keeps a secret out of everything a run
// records or emits.
import { Effect, Stream } from "effect"
import * as t from "io-ts"
import { describe, expect, it } from "vitest"
import {
  Hook,
  HookContext,
  HookExecuted,
  HookTriggers,
  Permission,
  ToolExecution,
  type AgentError,
  type JsonValue,
} from "@hookline/core"
import { AgentEvent, AgentLoop, Tool } from "@hookline/agent"
import { ScriptedDriver, TraceRecorder } from "@hookline/testing"
import { messages, on, runWith, stackOf } from "./support.js"

// A tool that counts its runs: the proof that a call was never executed.
const deployTool = () => {
  const ran: Array<string> = []
  const tool = Tool.make({
    name: "deploy",
    parameters: t.type({ target: t.string }),
    execute: ({ target }) => {
      ran.push(target)
      return `deployed ${target}`
    },
  })
  return { ran, tool }
}

const deployThenAnswer = () => [
  ScriptedDriver.toolCalls([{ name: "deploy", arguments: { target: "prod" } }]),
  ScriptedDriver.text("ok"),
]

const toolResults = (final: { readonly context: { readonly messages: Iterable<{ readonly role: string; readonly content: string }> } }) =>
  [...final.context.messages].filter((m) => m.role === "tool").map((m) => m.content)

describe("security", () => {
  describe("a block is final", () => {
    it("no later hook, at BeforeToolUse or AfterToolUse, can lift it or make the tool run", async () => {
      const { ran, tool } = deployTool()
      const deny: Hook = (ctx) => HookContext.withToolExecutionBlocked(ctx, "production is frozen")
      const forgeResult: Hook = (ctx) => HookContext.withToolResult(ctx, "deployed prod")
      const forgeExecution: Hook = (ctx) =>
        ctx.toolCall === undefined ? ctx : HookContext.withToolExecution(ctx, ToolExecution.success(ctx.toolCall, "deployed prod", 0, 0))
      const allow = Permission.make({ decide: () => true })
      const loop = AgentLoop.make({
        interceptor: stackOf(
          [deny, on("BeforeToolUse", "policy:deny", 100)],
          [forgeResult, on("BeforeToolUse", "forge:result")],
          [forgeExecution, on("BeforeToolUse", "forge:execution")],
          [allow, on("BeforeToolUse", "permission:allow", -10)],
          [forgeResult, on("AfterToolUse", "forge:after")],
          [forgeExecution, on("AfterToolUse", "forge:after-execution")],
        ),
        tools: [tool],
      })
      const { final } = await runWith(loop, deployThenAnswer())
      expect(ran).toEqual([])
      expect(final.execution.steps.toArray()[0]?.toolExecutions.map((e) => e.status)).toEqual(["blocked"])
      expect(toolResults(final)).toEqual(["Blocked: production is frozen"])
    })
  })

  describe("a permission hook fails closed", () => {
    it("denies when the decision times out, tells the model, and the run goes on", async () => {
      const { ran, tool } = deployTool()
      let signal: AbortSignal | undefined
      const askHuman = Permission.make({
        timeout: "30 millis",
        decide: (_ctx, s) => {
          signal = s
          return new Promise<boolean>(() => {}) // nobody answers
        },
      })
      const loop = AgentLoop.make({ interceptor: stackOf([askHuman, on("BeforeToolUse", "permission:human")]), tools: [tool] })
      const { final } = await runWith(loop, deployThenAnswer())
      expect(ran).toEqual([])
      expect(signal?.aborted).toBe(true)
      expect(toolResults(final)).toEqual(["Blocked: permission denied: no decision within 30ms"])
      expect(final.execution.status).toBe("completed")
    })

    it("denies when the decision service fails", async () => {
      const { ran, tool } = deployTool()
      const policy = Permission.make({ decide: () => Promise.reject(new Error("policy service unreachable")) })
      const loop = AgentLoop.make({ interceptor: stackOf([policy, on("BeforeToolUse", "permission:policy")]), tools: [tool] })
      const { final } = await runWith(loop, deployThenAnswer())
      expect(ran).toEqual([])
      expect(toolResults(final)).toEqual(["Blocked: permission denied: the permission check failed (policy service unreachable)"])
    })

    it("never runs the tool when the run is cancelled while the decision is pending", async () => {
      const { ran, tool } = deployTool()
      const controller = new AbortController()
      let signal: AbortSignal | undefined
      const askHuman = Permission.make({
        decide: (_ctx, s) => {
          signal = s
          setTimeout(() => controller.abort(), 5)
          // The "yes" arrives only as the run is torn down.
          return new Promise<boolean>((resolve) => s.addEventListener("abort", () => resolve(true)))
        },
      })
      const loop = AgentLoop.make({ interceptor: stackOf([askHuman, on("BeforeToolUse", "permission:human")]), tools: [tool] })
      const { final } = await runWith(loop, deployThenAnswer(), "ship it", { signal: controller.signal })
      expect(ran).toEqual([])
      expect(signal?.aborted).toBe(true)
      expect(final.execution.status).toBe("stopped")
      // Answered only by a cancellation marker (issue 12, item 6), never by a result.
      expect(toolResults(final)).toEqual(["Cancelled: the run was aborted before it ran"])
    })
  })

  describe("a redaction hook keeps a secret out of every recorded output", () => {
    const SECRET = "sk-live-7f3a9c2e51"
    const scrub = (s: string): string => s.split(SECRET).join("[redacted]")
    const scrubJson = (v: JsonValue): JsonValue => JSON.parse(scrub(JSON.stringify(v))) as JsonValue
    const scrubError = <E extends AgentError>(e: E): E => ({ ...e, message: scrub(e.message) })

    // The user's redaction hook: the model's answer, tool results and errors.
    const redact: Hook = (ctx) => {
      if (ctx.trigger === "AfterInference" && ctx.response !== undefined) {
        return HookContext.withResponse(ctx, { ...ctx.response, text: scrub(ctx.response.text) })
      }
      const execution = ctx.toolExecution
      if (ctx.trigger === "AfterToolUse" && execution !== undefined) {
        if (execution.status === "success") return HookContext.withToolResult(ctx, scrubJson(execution.output))
        if (execution.status === "failure") return HookContext.withToolExecution(ctx, { ...execution, error: scrubError(execution.error) })
      }
      if (ctx.trigger === "OnError") return HookContext.withErrors(ctx, ctx.errors.map(scrubError))
      return ctx
    }

    const tools = [
      Tool.make({ name: "read_env", parameters: t.type({}), execute: () => ({ OPENAI_API_KEY: SECRET }) }),
      Tool.make({
        name: "vault",
        parameters: t.type({}),
        execute: () => {
          throw new Error(`vault refused key ${SECRET}`)
        },
      }),
    ]
    // The secret comes back in streamed text (split across chunks), a tool result, a
    // tool error, and the error that ends the run.
    const script = () => [
      ScriptedDriver.toolCalls([{ name: "read_env", arguments: {} }], { text: `The key is ${SECRET}.`, chunks: ["The key is sk-live-", "7f3a9c2e51."] }),
      ScriptedDriver.toolCalls([{ name: "vault", arguments: {} }]),
      ScriptedDriver.failure(`provider rejected the request: invalid key ${SECRET}`, { status: 401 }),
    ]
    // Every hook of the run on every trigger, so each dispatch shows up in the events;
    // the redaction hook runs first.
    const observer = Hook.observe(() => {})

    it("across streamed events, HookExecuted events, errors, the trace and the final state", async () => {
      const loop = AgentLoop.make({
        interceptor: stackOf(
          [redact, { triggers: HookTriggers.of("AfterInference", "AfterToolUse", "OnError"), name: "redact", priority: 1_000 }],
          [observer, { triggers: HookTriggers.all, name: "observe" }],
        ),
        tools,
      })
      const recorder = TraceRecorder.make()
      const collected = HookExecuted.collect()
      const events = await Effect.runPromise(
        Stream.runCollect(AgentLoop.stream(loop, "what is the key?", { sink: collected.sink, hookEvents: true })).pipe(
          Effect.provide(ScriptedDriver.make(script()).layer),
        ),
      )
      for (const event of events) recorder.onEvent(event)
      const ended = events.filter(AgentEvent.is("RunEnded"))[0]
      expect(ended?.state.execution.status).toBe("failed")
      const final = ended?.state

      // The run really met the secret everywhere (so the test can fail) ...
      expect(events.filter(AgentEvent.is("TextDelta")).map((e) => e.text)).toEqual(["The key is [redacted]."])
      expect(final === undefined ? [] : messages(final)).toEqual([
        "user:what is the key?",
        "assistant:read_env({})",
        'tool:{"OPENAI_API_KEY":"[redacted]"}',
        "assistant:vault({})",
        'tool:Error: tool "vault" failed: vault refused key [redacted]',
      ])
      expect(final?.execution.errors.map((e) => e.message)).toEqual([
        'tool "vault" failed: vault refused key [redacted]',
        "provider rejected the request: invalid key [redacted]",
      ])
      expect(collected.events.length).toBeGreaterThan(10)

      // ... and it appears in none of what was recorded.
      const outputs = {
        events: events.map((e) => JSON.stringify(e)),
        hookExecuted: collected.events.map((e) => JSON.stringify(e)),
        trace: JSON.stringify({ events: recorder.events, dispatches: recorder.dispatches, states: recorder.states, final: recorder.final }),
        final: JSON.stringify(final),
      }
      expect(JSON.stringify(outputs)).not.toContain(SECRET)
      expect(JSON.stringify(outputs)).not.toContain("7f3a9c2e51")
    })

    it("out of handled errors too: OnError hooks see the record and scrub it before a retry", async () => {
      // A full redactor scrubs the errors and the state it is given; a later hook handles the error.
      const scrubAll: Hook = (ctx) =>
        HookContext.withState(HookContext.withErrors(ctx, ctx.errors.map(scrubError)), {
          ...ctx.state,
          execution: { ...ctx.state.execution, errors: ctx.state.execution.errors.map(scrubError) },
        })
      const retry: Hook = (ctx) => HookContext.markErrorsHandled(ctx)
      const loop = AgentLoop.make({
        interceptor: stackOf([scrubAll, on("OnError", "redact", 1_000)], [retry, on("OnError", "retry")]),
      })
      const { final } = await runWith(loop, [ScriptedDriver.failure(`invalid key ${SECRET}`, { status: 401 }), ScriptedDriver.text("fine")])
      expect(final.execution.status).toBe("completed")
      expect(final.execution.errors.map((e) => e.message)).toEqual(["invalid key [redacted]"])
      expect(JSON.stringify(final)).not.toContain(SECRET)
    })

    it("a transformed error that ends the run replaces its own record", async () => {
      const loop = AgentLoop.make({ interceptor: stackOf([(ctx: HookContext) => HookContext.withErrors(ctx, ctx.errors.map(scrubError)), on("OnError", "redact")]) })
      const { final } = await runWith(loop, [ScriptedDriver.failure(`invalid key ${SECRET}`, { status: 401 })])
      expect(final.execution.status).toBe("failed")
      expect(final.execution.errors.map((e) => e.message)).toEqual(["invalid key [redacted]"])
    })

    it("the same run without the redaction hook leaks it (the check above can fail)", async () => {
      const loop = AgentLoop.make({ interceptor: stackOf([observer, { triggers: HookTriggers.all, name: "observe" }]), tools })
      const events = await Effect.runPromise(
        Stream.runCollect(AgentLoop.stream(loop, "what is the key?")).pipe(Effect.provide(ScriptedDriver.make(script()).layer)),
      )
      // Observers keep the text live, so the secret arrives split across deltas: read them joined.
      const streamed = events.flatMap((e) => (e._tag === "TextDelta" ? [e.text] : [])).join("")
      const leaked = events.filter((e) => e._tag !== "TextDelta" && JSON.stringify(e).includes(SECRET)).map((e) => e._tag)
      expect(streamed).toContain(SECRET)
      expect(new Set(leaked)).toEqual(new Set(["ToolResult", "StepEnded", "RunEnded"]))
      expect(events.some((e) => e._tag === "TextChecked")).toBe(false)
    })
  })
})
