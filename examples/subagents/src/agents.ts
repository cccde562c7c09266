// A support agent with two subagents, each an agent of its own made a tool with
// Tool.fromAgent: "orders" answers from a tool; "refunds" must have a person approve
// every refund (UseApproval), which suspends it, and the support agent with it.
// The models are scripted (ScriptedDriver): the example runs offline.
import { AgentBuilder, Tool, UseDriver, UseGuards, UseTools } from "@hookline/agent"
import { UseApproval } from "@hookline/middleware"
import { ScriptedDriver } from "@hookline/testing"
import * as t from "io-ts"

/** What the refund tool did: the payment API of this example. */
export const refunded: Array<{ readonly order: string; readonly amount: number; readonly key: string }> = []

const orderStatus = Tool.make({
  name: "order_status",
  description: "The status of an order",
  parameters: t.type({ order: t.string }),
  execute: ({ order }) => ({ order, status: "delivered damaged", amount: 120 }),
})

const refund = Tool.make({
  name: "refund",
  description: "Refunds an order",
  parameters: t.type({ order: t.string, amount: t.number }),
  // The idempotency key is the same on every attempt of this call: a payment API dedupes on it.
  execute: ({ order, amount }, context) => {
    refunded.push({ order, amount, key: context.idempotencyKey })
    return { refunded: amount }
  },
})

/** The three scripted models, so a test can read what each was asked. */
export const scripts = () => ({
  support: ScriptedDriver.make([
    ScriptedDriver.toolCalls([{ id: "ask-orders", name: "orders", arguments: { question: "What happened to order A7?" } }]),
    ScriptedDriver.toolCalls([{ id: "ask-refunds", name: "refunds", arguments: { order: "A7", amount: 120 } }]),
    ScriptedDriver.text("Order A7 arrived damaged; your refund of 120 is done."),
  ], { usage: { inputTokens: 50, outputTokens: 10 } }),
  orders: ScriptedDriver.make([
    ScriptedDriver.toolCalls([{ id: "status-1", name: "order_status", arguments: { order: "A7" } }]),
    ScriptedDriver.text("A7 was delivered damaged (120)."),
  ], { usage: { inputTokens: 30, outputTokens: 8 } }),
  refunds: ScriptedDriver.make([
    ScriptedDriver.toolCalls([{ id: "refund-1", name: "refund", arguments: { order: "A7", amount: 120 } }]),
    ScriptedDriver.text("Refunded 120 for A7."),
  ], { usage: { inputTokens: 20, outputTokens: 5 } }),
})

export const makeSupport = (drivers = scripts()) => {
  const orders = AgentBuilder.make(UseDriver(drivers.orders), UseTools([orderStatus]), UseGuards({ maxSteps: 5 }))
  const refunds = AgentBuilder.make(UseDriver(drivers.refunds), UseTools([refund]), UseApproval({ tools: ["refund"] }))
  return AgentBuilder.make(
    UseDriver(drivers.support),
    UseTools([
      Tool.fromAgent(orders, {
        name: "orders",
        description: "Answers questions about orders",
        input: t.type({ question: t.string }),
        prompt: ({ question }) => question,
      }),
      Tool.fromAgent(refunds, {
        name: "refunds",
        description: "Refunds an order",
        input: t.type({ order: t.string, amount: t.number }),
        prompt: ({ order, amount }) => `Refund ${amount} for order ${order}.`,
      }),
    ]),
    // Counts the subagents' tokens too.
    UseGuards({ maxTokens: 10_000 }),
  )
}
