// A refund agent whose refunds above a limit wait for a person: the `Approval` hook
// suspends the run, `UseCheckpoints` keeps it in the embedded store, and another
// process resumes it with the person's decision. The model is a local function, so the
// example runs offline and gives the same answers in every process.
import { randomUUID } from "node:crypto"
import { appendFileSync, mkdirSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { AgentBuilder, Driver, Tool, UseDriver, UseTools, type Agent } from "@hookline/agent"
import type { Json, ToolCall } from "@hookline/core"
import { UseApproval } from "@hookline/middleware"
import { UseCheckpoints, type RunStore } from "@hookline/store"
import * as t from "io-ts"

/** Refunds above this amount need a person's approval. */
export const limit = 100

/** Where the example keeps its runs and its ledger: `HOOKLINE_APPROVAL_DATA`, or `.data/` here. */
export const dataDir = (): string => process.env["HOOKLINE_APPROVAL_DATA"] ?? fileURLToPath(new URL("../.data", import.meta.url))
/** The embedded store's folder, made if missing (PGlite makes the last level only). */
export const storeDir = (): string => {
  const dir = join(dataDir(), "store")
  mkdirSync(dir, { recursive: true })
  return dir
}
/** The refunds made, one JSON line each: the side effect a second run must not repeat. */
export const ledgerPath = (): string => join(dataDir(), "refunds.jsonl")

/** The amount of a call's arguments, which come from the model: anything but a number is none. */
export const amountOf = (args: Json.JsonValue): number | undefined => {
  if (typeof args !== "object" || args === null || Array.isArray(args)) return undefined
  const amount = (args as { readonly [key: string]: Json.JsonValue })["amount"]
  return typeof amount === "number" && Number.isFinite(amount) ? amount : undefined
}

const needsApproval = (call: ToolCall): boolean => call.name === "refund" && (amountOf(call.arguments) ?? Infinity) > limit

export const refund = Tool.make({
  name: "refund",
  description: "Refunds an amount on an order",
  parameters: t.type({ order: t.string, amount: t.number }),
  execute: ({ order, amount }, context) => {
    // A payment API would take the key; the ledger records it.
    mkdirSync(dataDir(), { recursive: true })
    appendFileSync(ledgerPath(), JSON.stringify({ order, amount, key: context.idempotencyKey }) + "\n")
    return { refunded: amount, order }
  },
})

/**
 * The model: asks for the refund the user wrote ("refund 250 on order A7"), then
 * answers with what came back (the refund, or the person's refusal).
 */
export const model = Driver.fromPromise({
  generate: async (request) => {
    const messages = request.messages.toArray()
    const result = [...messages].reverse().find((m) => m.role === "tool")
    if (result === undefined) {
      const asked = messages.find((m) => m.role === "user")?.content ?? ""
      const amount = Number(/(\d+(?:\.\d+)?)/.exec(asked)?.[1] ?? "0")
      const order = /order\s+(\w+)/i.exec(asked)?.[1] ?? "unknown"
      return { toolCalls: [{ id: randomUUID(), name: "refund", arguments: { order, amount } }] }
    }
    return { text: result.isError ? `No refund: ${result.content}` : `Refund done: ${result.content}` }
  },
})

export const makeAgent = (store: RunStore): Agent =>
  AgentBuilder.make(
    UseDriver(model),
    UseTools([refund]),
    UseApproval({
      when: needsApproval,
      reason: (call) => `a refund of ${amountOf(call.arguments) ?? "an unknown amount"} is above the limit of ${limit}`,
    }),
    UseCheckpoints(store),
  )
