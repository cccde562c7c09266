// The agents the cluster tests register on every runner: `charger` (three steps of two
// `charge` calls, then an answer) and `approver` (the same, with the call of amount 1
// waiting for a person's approval). Tool call ids are random, as a real model's are:
// only the journal gives the same ids back after a take-over.
import { Tool, UseDriver, UseGuards, UseHook, UseTools } from "@hookline/agent"
import { HookContext, HookTriggers } from "@hookline/core"
import * as t from "io-ts"
import { chargeModel } from "../../../store/test/support/charges.js"
import { ClusterAgent } from "../../src/index.js"

export interface Charge {
  readonly runId: string
  readonly toolCallId: string
  readonly key: string
  readonly amount: number
}

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
    ClusterAgent.make("charger", UseDriver(chargeModel()), UseTools([charge]), UseGuards({ maxSteps: 10 })),
    ClusterAgent.make("approver", UseDriver(chargeModel()), UseTools([charge]), UseGuards({ maxSteps: 10 }), approval),
  ]
}
