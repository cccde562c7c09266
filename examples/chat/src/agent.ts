// The refund agent behind the chat: refunds above a limit wait for a person's approval
// (UseApproval suspends the run), the run is kept in a store (UseCheckpoints), and the
// model is scripted so the example runs offline and answers the same way every time.
import { AgentBuilder, Tool, UseDriver, UseTools, type Agent } from "@hookline/agent"
import type { Json } from "@hookline/core"
import { UseApproval } from "@hookline/middleware"
import { UseCheckpoints, type RunStore } from "@hookline/store"
import { ScriptedDriver } from "@hookline/testing"
import * as t from "io-ts"

/** Refunds above this amount need a person's approval. */
export const limit = 100

/** A refund the tool made: the side effect an approval must cause once. */
export interface Refund {
  readonly order: string
  readonly amount: number
  readonly idempotencyKey: string
}

/** The amount in a call's arguments (they come from the model): anything but a number is none. */
const amountOf = (args: Json.JsonValue): number | undefined => {
  if (typeof args !== "object" || args === null || Array.isArray(args)) return undefined
  const amount = (args as { readonly [key: string]: Json.JsonValue })["amount"]
  return typeof amount === "number" && Number.isFinite(amount) ? amount : undefined
}

/**
 * The scripted model: asks for the refund the user wrote ("refund 250 on order A7"),
 * then answers with what came back; the text streams in pieces.
 */
const model = () => {
  let calls = 0
  const pieces = (text: string) => text.split(/(?<= )/)
  return ScriptedDriver.make([
    ScriptedDriver.respond((request) => {
      const messages = request.messages.toArray()
      const last = messages.at(-1)
      if (last?.role === "tool") {
        const text = last.isError ? `No refund: ${last.content}` : `Refund done: ${last.content}`
        return ScriptedDriver.text(text, { chunks: pieces(text) })
      }
      const asked = last?.role === "user" ? last.content : ""
      const amount = Number(/(\d+(?:\.\d+)?)/.exec(asked)?.[1] ?? "0")
      const order = /order\s+(\w+)/i.exec(asked)?.[1] ?? "unknown"
      const text = `Looking up order ${order}.`
      return ScriptedDriver.toolCalls([{ id: `refund-${Date.now().toString(36)}-${++calls}`, name: "refund", arguments: { order, amount } }], {
        text,
        chunks: pieces(text),
      })
    }),
  ], { repeatLast: true })
}

/** The agent and the refunds its tool made (a payment API would keep these). */
export const makeAgent = (store: RunStore): { readonly agent: Agent<{ readonly user: string }>; readonly refunds: Array<Refund> } => {
  const refunds: Array<Refund> = []
  const refund = Tool.make({
    name: "refund",
    description: "Refunds an amount on an order",
    parameters: t.type({ order: t.string, amount: t.number }),
    execute: ({ order, amount }, context: Tool.ToolContext<{ readonly user: string }>) => {
      refunds.push({ order, amount, idempotencyKey: context.idempotencyKey })
      return { refunded: amount, order, by: context.runContext.user }
    },
  })
  const agent = AgentBuilder.make(
    UseDriver(model()),
    UseTools([refund]),
    UseApproval({
      when: (call) => call.name === "refund" && (amountOf(call.arguments) ?? Infinity) > limit,
      reason: (call) => `a refund of ${amountOf(call.arguments) ?? "an unknown amount"} is above the limit of ${limit}`,
    }),
    UseCheckpoints(store),
  )
  return { agent, refunds }
}
