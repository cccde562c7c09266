// The role policy reads a typed run context: its laws are checked with the context's
// generator, no cast, and a property of its own says what each role may call.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { AgentBuilder, UseDriver, UseHook } from "@hookline/agent"
import { Arbitraries, HookLaws, ScriptedDriver } from "@hookline/testing"
import { allowed, rolePolicy, rolePolicyOptions, type Caller } from "../src/rolePolicy.js"

const runContext = fc.record({ role: fc.constantFrom<Caller["role"]>("admin", "editor", "viewer") })
const toolNames = ["search", "write_file", "shell"]

describe("rolePolicy", () => {
  it("obeys the hook laws, and is idempotent", { timeout: 60_000 }, () => {
    HookLaws.check(rolePolicy, { ...rolePolicyOptions, idempotent: true, arbitraries: { runContext, toolNames }, numRuns: 50 })
  })

  it("blocks exactly the calls the caller's role may not make", () => {
    fc.assert(fc.property(Arbitraries.hookContext("BeforeToolUse", { runContext, toolNames }), (ctx) => {
      const out = rolePolicy(ctx)
      const name = ctx.toolCall?.name ?? ""
      expect(out.toolExecutionBlocked).toBe(ctx.toolExecutionBlocked || !allowed[ctx.runContext.role].includes(name))
    }))
  })

  it("takes the role from the run's context", async () => {
    const agent = AgentBuilder.make(
      UseDriver(ScriptedDriver.make([ScriptedDriver.toolCalls([{ name: "shell", arguments: {} }]), ScriptedDriver.text("ok")])),
      UseHook(rolePolicy, rolePolicyOptions),
    )
    const final = await agent.run("run it", { context: { role: "viewer" } })
    expect([...final.context.messages].find((m) => m.role === "tool")?.content).toBe("Blocked: a viewer may not call shell")
  })
})
