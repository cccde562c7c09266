// The agents the cluster tests register on every runner: `charger` (three steps of two
// `charge` calls, then an answer) and `approver` (the same, with the call of amount 1
// waiting for a person's approval). Tool call ids are random, as a real model's are:
// only the journal gives the same ids back after a take-over.
import { Driver, Tool, UseDriver, UseGuards, UseHook, UseTools } from "@hookline/agent"
import { HookContext, HookTriggers, InferenceResponse, ToolCall, Usage } from "@hookline/core"
import { Effect } from "effect"
import * as t from "io-ts"
import { chargeModel } from "../../../store/test/support/charges.js"
import { ClusterAgent } from "../../src/index.js"

export interface Charge {
  readonly runId: string
  readonly toolCallId: string
  readonly key: string
  readonly amount: number
  /** When this execution began (ms since the epoch). */
  readonly at: number
  /** The journal key of the call's result, and whether it was there when this execution began (given `journaled`). */
  readonly journalKey: string
  readonly journaled?: boolean | undefined
}

export interface Options {
  /** Makes each agent's driver (default: the ScriptedDriver `chargeModel`). */
  readonly model?: (() => Driver.DriverShape) | undefined
  /** Whether the journal holds a result under the key when a call begins (a check the tests make of every execution). */
  readonly journaled?: ((runId: string, journalKey: string) => Promise<boolean>) | undefined
  /** Called as a runner begins an execution of a run (BeforeExecution: a start, a resume, a take-over). */
  readonly onBegin?: ((runId: string) => void) | undefined
}

// The same charging model answering from the request alone: no log of its calls (the
// ScriptedDriver keeps every request, and with it every run's messages), for what
// measures or checks a runner's memory.
export const unloggedChargeModel = (): Driver.DriverShape =>
  Driver.make({
    generate: (request) =>
      Effect.sync(() => {
        let step = 0
        for (const m of request.messages) if (m.role === "assistant") step++
        const finished = step >= 3
        return InferenceResponse.make({
          text: finished ? `charged ${step * 2} times` : "",
          toolCalls: finished ? [] : [0, 1].map((j) => ToolCall.make({ id: crypto.randomUUID(), name: "charge", arguments: { amount: step * 10 + j } })),
          usage: Usage.empty,
          finishReason: finished ? "stop" : "tool-calls",
          modelId: "scripted",
        })
      }),
  })

const pause = (ms: number) => (ms <= 0 ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, ms)))

export const agents = (onCharge: (charge: Charge) => void, toolMillis = 0, options: Options = {}): ReadonlyArray<ClusterAgent.ClusterAgent> => {
  const model = options.model ?? chargeModel
  const charge = Tool.make({
    name: "charge",
    parameters: t.type({ amount: t.number }),
    execute: async ({ amount }, context) => {
      const at = Date.now()
      const runId = context.state.id
      // The key the checkpoint hooks journal a call's result under (@hookline/store's Checkpointing).
      const journalKey = `tool:${context.state.execution.startedAt ?? 0}:${context.toolCall.id}`
      const journaled = await options.journaled?.(runId, journalKey)
      await pause(toolMillis)
      onCharge({ runId, toolCallId: context.toolCall.id, key: context.idempotencyKey, amount, at, journalKey, journaled })
      await pause(toolMillis)
      return { charged: amount }
    },
  })
  const approval = UseHook(
    (ctx) => ctx.toolCall !== undefined && (ctx.toolCall.arguments as { amount: number }).amount === 1 ? HookContext.suspend(ctx, "approve the charge", { amount: 1 }) : ctx,
    { triggers: HookTriggers.beforeToolUse, name: "test:approval" },
  )
  const onBegin = options.onBegin
  const begun = onBegin === undefined ? [] : [UseHook((ctx) => {
    onBegin(ctx.state.id)
    return ctx
  }, { triggers: HookTriggers.beforeExecution, name: "test:begun" })]
  return [
    ClusterAgent.make("charger", UseDriver(model()), UseTools([charge]), UseGuards({ maxSteps: 10 }), ...begun),
    ClusterAgent.make("approver", UseDriver(model()), UseTools([charge]), UseGuards({ maxSteps: 10 }), approval),
  ]
}
