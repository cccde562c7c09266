// The agents every runner serves (`hookline-runner --agents src/agents.ts`): `refunds`, whose
// refunds above 100 wait for a person's approval. The model is a local function, so the
// example runs offline. Each refund is appended to $REFUND_LOG with the runner's pid and
// the call's idempotency key: the side effect that must happen once per run.
import { Driver, Tool, UseDriver, UseTools } from "@hookline/agent"
import { ClusterAgent } from "@hookline/cluster"
import { UseApproval } from "@hookline/middleware"
import * as t from "io-ts"
import { randomUUID } from "node:crypto"
import { appendFileSync } from "node:fs"

/** Refunds above this amount need a person's approval. */
export const limit = 100

/** One line of the refund log. */
export interface Refund {
  readonly runId: string
  readonly key: string
  readonly amount: number
  readonly pid: number
}

const refund = Tool.make({
  name: "refund",
  description: "Refunds an amount on an order",
  parameters: t.type({ order: t.string, amount: t.number }),
  execute: async ({ order, amount }, context) => {
    // A payment API would be called here, with the idempotency key.
    await new Promise((resolve) => setTimeout(resolve, 20))
    const line: Refund = { runId: context.state.id, key: context.idempotencyKey, amount, pid: process.pid }
    appendFileSync(process.env["REFUND_LOG"] as string, JSON.stringify(line) + "\n")
    return { refunded: amount, order }
  },
})

// Asks for the refund the user wrote ("refund 250 on order A7"), then answers with the result.
const model = Driver.fromPromise({
  generate: async (request) => {
    const messages = request.messages.toArray()
    const result = messages.find((m) => m.role === "tool")
    if (result !== undefined) return { text: result.isError ? `No refund: ${result.content}` : `Refund done: ${result.content}` }
    const asked = messages.find((m) => m.role === "user")?.content
    const text = typeof asked === "string" ? asked : ""
    const amount = Number(/(\d+)/.exec(text)?.[1] ?? "0")
    const order = /order\s+(\w+)/i.exec(text)?.[1] ?? "unknown"
    return { toolCalls: [{ id: randomUUID(), name: "refund", arguments: { order, amount } }] }
  },
})

const amountOf = (args: unknown): number =>
  typeof args === "object" && args !== null && typeof (args as { amount?: unknown }).amount === "number" ? (args as { amount: number }).amount : Infinity

export default [
  ClusterAgent.make(
    "refunds",
    UseDriver(model),
    UseTools([refund]),
    UseApproval({ when: (call) => call.name === "refund" && amountOf(call.arguments) > limit, reason: () => `above the limit of ${limit}` }),
  ),
]
