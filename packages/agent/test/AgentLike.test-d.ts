// `Tool.fromAgent` takes a structural `Tool.AgentLike<C>` (issue 23: Tool.ts no longer
// imports Agent.ts, which closed the agent package's import circle). Every built agent is
// one, with its run context; what is not an agent is refused.
import { describe, expectTypeOf, it } from "vitest"
import { Tool, type Agent } from "@hookline/agent"

interface Ctx {
  readonly tenant: string
}

declare const plain: Agent
declare const withContext: Agent<Ctx>

describe("Tool.AgentLike", () => {
  it("is what every agent is, with the agent's run context", () => {
    expectTypeOf(plain).toExtend<Tool.AgentLike<unknown>>()
    expectTypeOf(withContext).toExtend<Tool.AgentLike<Ctx>>()
  })
  it("does not take an agent's context for another", () => {
    expectTypeOf(withContext).not.toExtend<Tool.AgentLike<{ readonly other: number }>>()
  })
})
