// What the store conformance cases share: run ids of their own, states to save, and the
// checks they make.
import { AgentBuilder, type Agent, type Tool, UseDriver, UseHook, UseTools } from "@hookline/agent"
import { AgentState, Codecs, HookContext, HookTriggers, Message, Step, ToolCall, ToolExecution } from "@hookline/core"
import { type RunStore, UseCheckpoints } from "@hookline/store"
import { Effect, Exit } from "effect"
import * as assert from "node:assert/strict"
import * as ScriptedDriver from "../ScriptedDriver.js"

let counter = 0

/** A run id no other case (nor another process on the same database) uses. */
export const runIdOf = (label: string): string => `conformance-${label}-${process.pid}-${Date.now().toString(36)}-${counter++}`

/** A number that differs from case to case, for times that must not collide. */
export const caseNumber = (): number => counter

export const stepOf = (state: AgentState, i: number): AgentState => {
  const call = ToolCall.make({ id: `call-${i}`, name: "lookup", arguments: { n: i, text: "é😀\u0000\"quote\"" } })
  const execution = ToolExecution.success(call, { value: i }, 1_000 + i, 1_001 + i)
  const next = AgentState.appendMessages(state, [Message.assistant(`step ${i}`, [call]), ToolExecution.toMessage(execution)])
  return AgentState.appendStep(next, Step.make({ index: i, startedAt: 1_000 + i, toolExecutions: [execution], completedAt: 1_002 + i }))
}

export const started = (runId: string): AgentState =>
  AgentState.withStatus(AgentState.make({ id: runId, systemPrompt: "conformance", messages: [Message.user("hi")] }), "running", 1)

export const sameState = (actual: AgentState | undefined, expected: AgentState): void => {
  assert.ok(actual !== undefined, "the run was not found")
  assert.deepStrictEqual(Codecs.encode(Codecs.AgentState, actual), Codecs.encode(Codecs.AgentState, expected))
}

export const failureOf = async <A, E>(effect: Effect.Effect<A, E>): Promise<E> => {
  const exit = await Effect.runPromiseExit(effect)
  if (Exit.isSuccess(exit)) throw new assert.AssertionError({ message: "expected a failure, got a success" })
  const reason = exit.cause.reasons[0]
  if (reason === undefined || reason._tag !== "Fail") throw new assert.AssertionError({ message: "expected a typed failure" })
  return reason.error
}

/**
 * An agent whose model asks for `refund` until it sees a tool result, then says "done";
 * every refund waits for approval. `asked` counts the model's calls.
 */
export const approvalAgent = (
  store: RunStore.RunStore,
  refund: Tool.Tool,
  options: { readonly asked?: () => void; readonly ifExists?: "refuse" | "replace" } = {},
): Agent.Agent =>
  AgentBuilder.make(
    UseDriver(ScriptedDriver.make([
      ScriptedDriver.respond((request) => {
        options.asked?.()
        return request.messages.toArray().some((m) => m.role === "tool")
          ? ScriptedDriver.text("done")
          : ScriptedDriver.toolCalls([{ name: "refund", arguments: {} }])
      }),
    ], { repeatLast: true })),
    UseTools([refund]),
    UseHook((ctx) => (ctx.toolCall?.name === "refund" ? HookContext.suspend(ctx, "approve the refund", {}) : ctx), {
      triggers: HookTriggers.beforeToolUse,
      name: "conformance:approval",
    }),
    UseCheckpoints(store, options.ifExists === undefined ? {} : { ifExists: options.ifExists }),
  )
