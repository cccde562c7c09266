// The payment fixture of the approval tests: a `pay` tool that records what it paid, and
// an agent whose model asks for two payments in one step, each waiting for a person.
import { HookContext, HookTriggers } from "@hookline/core"
import { ScriptedDriver } from "@hookline/testing"
import * as t from "io-ts"
import { AgentBuilder, Tool, UseDriver, UseHook, UseTools } from "../src/index.js"

/** A `pay` tool: each call's amount goes into `paid`. */
export const payTool = (paid: Array<number>) =>
  Tool.make({
    name: "pay",
    parameters: t.type({ amount: t.number }),
    execute: ({ amount }) => (paid.push(amount), { paid: amount }),
  })

/** Two payments in one step (`c1`, `c2`), then an answer; every payment waits for a person. */
export const twoPayments = () => {
  const paid: Array<number> = []
  const agent = AgentBuilder.make(
    UseDriver(ScriptedDriver.make([
      ScriptedDriver.toolCalls([{ id: "c1", name: "pay", arguments: { amount: 1 } }, { id: "c2", name: "pay", arguments: { amount: 2 } }]),
      ScriptedDriver.text("paid"),
    ])),
    UseTools([payTool(paid)]),
    UseHook((ctx) => (ctx.toolCall?.name === "pay" ? HookContext.suspend(ctx, "approve payment") : ctx), {
      triggers: HookTriggers.beforeToolUse,
      name: "test:approval",
    }),
  )
  return { agent, paid }
}
