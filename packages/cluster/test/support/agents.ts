// The agents the cluster tests register on every runner: `charger` (three steps of two
// `charge` calls, then an answer) and `approver` (the same, with the call of amount 1
// waiting for a person's approval). Tool call ids are random, as a real model's are:
// only the journal gives the same ids back after a take-over.
import { Tool, UseDriver, UseGuards, UseHook, UseTools } from "@hookline/agent"
import { HookContext, HookTriggers } from "@hookline/core"
import { ScriptedDriver } from "@hookline/testing"
import * as t from "io-ts"
import { ClusterAgent } from "../../src/index.js"

export interface Charge {
  readonly runId: string
  readonly toolCallId: string
  readonly key: string
  readonly amount: number
}

const model = () =>
  ScriptedDriver.make([
    ScriptedDriver.respond((request) => {
      const step = request.messages.toArray().filter((m) => m.role === "assistant").length
      if (step >= 3) return ScriptedDriver.text(`charged ${step * 2} times`)
      return ScriptedDriver.toolCalls([0, 1].map((j) => ({ id: crypto.randomUUID(), name: "charge", arguments: { amount: step * 10 + j } })))
    }),
  ], { repeatLast: true })

const pause = (ms: number) => (ms <= 0 ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, ms)))

export const agents = (onCharge: (charge: Charge) => void, toolMillis = 0): ReadonlyArray<ClusterAgent.ClusterAgent> => {
  const charge = Tool.make({
    name: "charge",
    parameters: t.type({ amount: t.number }),
    execute: async ({ amount }, context) => {
      await pause(toolMillis)
      onCharge({ runId: context.state.id, toolCallId: context.toolCall.id, key: context.idempotencyKey, amount })
      await pause(toolMillis)
      return { charged: amount }
    },
  })
  const approval = UseHook(
    (ctx) => ctx.toolCall !== undefined && (ctx.toolCall.arguments as { amount: number }).amount === 1 ? HookContext.suspend(ctx, "approve the charge", { amount: 1 }) : ctx,
    { triggers: HookTriggers.beforeToolUse, name: "test:approval" },
  )
  return [
    ClusterAgent.make("charger", UseDriver(model()), UseTools([charge]), UseGuards({ maxSteps: 10 })),
    ClusterAgent.make("approver", UseDriver(model()), UseTools([charge]), UseGuards({ maxSteps: 10 }), approval),
  ]
}
