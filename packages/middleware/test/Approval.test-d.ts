import * as t from "io-ts"
import { describe, expectTypeOf, it } from "vitest"
import * as z from "zod"
import { AgentBuilder, Tool, UseTools, type Agent, type AgentBuilder as Builder } from "@hookline/agent"
import type { Hook, HookContext } from "@hookline/core"
import { Approval, UseApproval } from "@hookline/middleware"

interface Desk {
  readonly agent: string
}

const issueRefund = Tool.make({
  name: "issueRefund",
  parameters: z.object({ order: z.string(), amount: z.coerce.number() }),
  execute: ({ amount }) => amount,
})

describe("Approval types", () => {
  it("forTool types the policy's arguments from the tool's schema, with no cast", () => {
    const policy = UseApproval.forTool(issueRefund, {
      when: (a, call) => {
        expectTypeOf(a).toEqualTypeOf<{ order: string; amount: number }>()
        return call.name === "issueRefund" && a.amount > 100
      },
      reason: (a) => `refund of ${a.amount} on ${a.order}`,
      payload: (a) => ({ order: a.order }),
    })
    expectTypeOf(policy).toEqualTypeOf<Builder.Capability<unknown>>()
    // @ts-expect-error: the tool's arguments have no "total"
    UseApproval.forTool(issueRefund, { when: (a) => a.total > 100 })
  })

  it("forTool takes the run context from the policy's ctx", () => {
    const hook = Approval.forTool(issueRefund, { when: (a, _call, ctx: HookContext<Desk>) => ctx.runContext.agent !== "intern" && a.amount > 100 })
    expectTypeOf(hook).toEqualTypeOf<Hook<Desk>>()
    expectTypeOf(AgentBuilder.make(UseTools([issueRefund]), UseApproval.forTool(issueRefund, { when: (_a, _c, ctx: HookContext<Desk>) => ctx.runContext.agent === "x" })))
      .toEqualTypeOf<Agent.Agent<Desk>>()
  })

  it("UseApproval's when gets the call with its decoded arguments, and the old shape still fits", () => {
    UseApproval({ decode: [issueRefund], when: (call) => (expectTypeOf(call.decoded).toEqualTypeOf<unknown>(), true) })
    const old: (toolCall: { readonly name: string }) => boolean = (c) => c.name === "x"
    UseApproval({ when: old })
    UseApproval({ tools: ["issueRefund"], reason: (call) => call.name })
    expectTypeOf(UseApproval({ tools: ["a"] })).toEqualTypeOf<Builder.Capability<unknown>>()
    expectTypeOf(t.string).not.toBeAny()
  })
})
