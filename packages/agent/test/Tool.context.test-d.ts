// What a user writes for a tool that reads the run context (issue 26): before,
// `(args, { runContext }: Tool.ToolContext<Desk>) => …` on every tool; now
// `Tool.make<Desk>()({ … })` types execute's context, and the agent takes Desk.
import * as t from "io-ts"
import { describe, expectTypeOf, it } from "vitest"
import * as z from "zod"
import { AgentBuilder, Tool, UseTools, type Agent } from "@hookline/agent"

interface Desk {
  readonly agent: string
  readonly limit: number
}

describe("Tool.make<C>()", () => {
  it("types execute's run context and args with no annotation", () => {
    const refund = Tool.make<Desk>()({
      name: "refund",
      parameters: z.object({ amount: z.coerce.number() }),
      execute: ({ amount }, { runContext }) => {
        expectTypeOf(amount).toEqualTypeOf<number>()
        expectTypeOf(runContext).toEqualTypeOf<Desk>()
        return amount <= runContext.limit
      },
    })
    expectTypeOf(refund).toEqualTypeOf<Tool.Tool<{ amount: number }, Desk>>()
    const desk = Tool.make<Desk>()
    const who = desk({ name: "who", parameters: t.type({}), execute: (_, { runContext }) => runContext.agent })
    expectTypeOf(who).toEqualTypeOf<Tool.Tool<{}, Desk>>()
    // The agent takes the tools' context.
    expectTypeOf(AgentBuilder.make(UseTools([refund, who]))).toEqualTypeOf<Agent.Agent<Desk>>()
  })

  it("keeps the one-argument forms", () => {
    expectTypeOf(Tool.make({ name: "a", parameters: t.type({ a: t.number }), execute: ({ a }) => a })).toEqualTypeOf<Tool.Tool<{ a: number }, unknown>>()
    expectTypeOf(Tool.make<{ a: number }, Desk>({ name: "a", parameters: t.type({ a: t.number }), execute: ({ a }, c) => a + c.runContext.limit }))
      .toEqualTypeOf<Tool.Tool<{ a: number }, Desk>>()
    // @ts-expect-error: the context has no field "tenant"
    Tool.make<Desk>()({ name: "a", parameters: t.type({}), execute: (_, { runContext }) => runContext.tenant })
  })
})

describe("Tool.argumentsOf", () => {
  it("is typed from the tool's schema", () => {
    const refund = Tool.make({ name: "refund", parameters: z.object({ amount: z.coerce.number() }), execute: () => "ok" })
    expectTypeOf(Tool.argumentsOf(refund, undefined)).toEqualTypeOf<{ amount: number } | undefined>()
  })
})
