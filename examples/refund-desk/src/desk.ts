// The refund desk: an agent whose refunds above the desk's limit wait for a person.
// Everything here is the public API: a typed run context (who works the desk, their
// limit), a tool whose schema coerces the amount (models send "250" as often as 250),
// and a policy over the amount as the tool decodes it (`UseApproval.forTool`), so a
// refund of "250" is asked about like one of 250. The model is scripted: offline.
import { appendFileSync, mkdirSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { AgentBuilder, Tool, UseDriver, UseRunContext, UseTools } from "@hookline/agent"
import { Approval, UseApproval } from "@hookline/middleware"
import { UseCheckpoints, type RunStore } from "@hookline/store"
import { ScriptedDriver } from "@hookline/testing"
import * as t from "io-ts"
import * as z from "zod"

/** Who works the desk, given on every run and resume (never stored). */
export const Desk = t.type({ agent: t.string, approvalLimit: t.number })
export type Desk = t.TypeOf<typeof Desk>

/** Where the example keeps its store and its ledger: `REFUND_DESK_DATA`, or `.data/` here. */
export const dataDir = (): string => process.env["REFUND_DESK_DATA"] ?? fileURLToPath(new URL("../.data", import.meta.url))
export const storeDir = (): string => {
  const dir = join(dataDir(), "store")
  mkdirSync(dir, { recursive: true })
  return dir
}
/** Refunds made, one JSON line each: the side effect that must happen once. */
export const ledgerPath = (): string => join(dataDir(), "refunds.jsonl")

const RefundArgs = z.object({ order: z.string().min(1), amount: z.coerce.number().positive() })

export const issueRefund = Tool.make<Desk>()({
  name: "issueRefund",
  description: "Refunds an amount on an order",
  parameters: RefundArgs,
  execute: ({ order, amount }, { runContext, idempotencyKey }) => {
    mkdirSync(dataDir(), { recursive: true })
    appendFileSync(ledgerPath(), JSON.stringify({ order, amount, by: runContext.agent, key: idempotencyKey }) + "\n")
    return { refunded: amount, order }
  },
})

/** The policy: a refund above the desk's limit needs a person, decided on the decoded amount. */
export const refundPolicy = {
  when: (a, _call, ctx) => a.amount > ctx.runContext.approvalLimit,
  reason: (a) => `a refund of ${a.amount} on order ${a.order} is above the desk's limit`,
} satisfies Approval.ForToolOptions<z.output<typeof RefundArgs>, Desk>

/**
 * The model: asks for the refund the user wrote, sending the amount as a string, then
 * answers with what came back. It reads the conversation, so a new process goes on the
 * same way.
 */
export const model = ScriptedDriver.make([
  ScriptedDriver.respond((request) => {
    const messages = request.messages.toArray()
    const result = [...messages].reverse().find((m) => m.role === "tool")
    if (result !== undefined) return ScriptedDriver.text(result.isError ? `No refund: ${result.content}` : `Refund done: ${result.content}`)
    const asked = messages.find((m) => m.role === "user")?.content ?? ""
    const amount = /(\d+(?:\.\d+)?)/.exec(asked)?.[1] ?? "0"
    const order = /order\s+(\w+)/i.exec(asked)?.[1] ?? "unknown"
    return ScriptedDriver.toolCalls([{ id: `refund-${order}`, name: "issueRefund", arguments: { order, amount } }])
  }),
], { repeatLast: true })

export const makeAgent = (store: RunStore) =>
  AgentBuilder.make(
    UseRunContext(Desk),
    UseDriver(model),
    UseTools([issueRefund]),
    UseApproval.forTool(issueRefund, refundPolicy),
    UseCheckpoints(store),
  )
