import * as t from "io-ts"
import { describe, expectTypeOf, it } from "vitest"
import { AgentBuilder, type Agent, type AgentBuilder as Builder } from "@hookline/agent"
import type { AgentState } from "@hookline/core"
import { CostBudget, Output, UseOutput } from "@hookline/middleware"

const City = t.type({ city: t.string, population: t.number })

describe("@hookline/middleware types", () => {
  it("UseOutput is a capability that reads the typed answer", () => {
    const answer = UseOutput(City, { retries: 1 })
    expectTypeOf(answer).toExtend<Builder.Capability>()
    expectTypeOf(AgentBuilder.make(answer)).toEqualTypeOf<Agent>()
    expectTypeOf(answer.value).returns.toEqualTypeOf<Promise<{ city: string; population: number } | undefined>>()
    expectTypeOf(answer.error).returns.toEqualTypeOf<Output.OutputInvalid | undefined>()
    // @ts-expect-error retries is a count
    UseOutput(City, { retries: "2" })
  })

  it("CostBudget takes prices as a table or a function of the model id", () => {
    expectTypeOf<(modelId: string) => CostBudget.Price | undefined>().toExtend<CostBudget.Prices>()
    expectTypeOf<Record<string, CostBudget.Price>>().toExtend<CostBudget.Prices>()
    expectTypeOf(CostBudget.cost).parameter(1).toEqualTypeOf<CostBudget.Prices>()
    // @ts-expect-error a price function answers with a price, not a number
    CostBudget.cost({} as AgentState, () => 1)
  })
})
