// An agent that declares its run context (UseRunContext): a run without one, or with one
// that does not decode, fails at its start with InvalidConfiguration at `context`, before
// any hook reads it; a failed run writes one warning through Effect's logger.
import { Effect, Logger } from "effect"
import * as t from "io-ts"
import { describe, expect, expectTypeOf, it } from "vitest"
import { AgentError, type Hook, HookContext, HookTrigger } from "@hookline/core"
import { Agent, AgentBuilder, Tool, UseDriver, UseHook, UseRunContext, UseTools } from "@hookline/agent"
import { ScriptedDriver } from "@hookline/testing"

const Caller = t.type({ role: t.union([t.literal("admin"), t.literal("viewer")]) })
type Caller = t.TypeOf<typeof Caller>

const seen: Array<string> = []
const policy: Hook<Caller> = (ctx) => {
  seen.push(`${ctx.trigger}:${ctx.runContext.role}`)
  return ctx.toolCall?.name === "delete" && ctx.runContext.role !== "admin"
    ? HookContext.withToolExecutionBlocked(ctx, "viewers may not delete")
    : ctx
}

const deleteTool = Tool.make({
  name: "delete",
  description: "Deletes a record",
  parameters: t.type({ id: t.string }),
  execute: ({ id }, { runContext }: Tool.ToolContext<Caller>) => `${runContext.role} deleted ${id}`,
})

const agentOf = () =>
  AgentBuilder.make(
    UseRunContext(Caller),
    UseDriver(ScriptedDriver.make([ScriptedDriver.toolCalls([{ name: "delete", arguments: { id: "r1" } }]), ScriptedDriver.text("done")])),
    UseTools([deleteTool]),
    UseHook(policy, { triggers: [HookTrigger.BeforeExecution, HookTrigger.BeforeToolUse], name: "policy", priority: 100 }),
  )

const errorOf = (state: Parameters<typeof Agent.failure>[0]) => Agent.failure(state)

describe("UseRunContext", () => {
  it("types the agent's run context from the codec", () => {
    expectTypeOf(agentOf()).toEqualTypeOf<Agent.Agent<Caller>>()
  })

  it("runs as before with a context that decodes", async () => {
    seen.length = 0
    const final = await agentOf().run("delete r1", { context: { role: "admin" } })
    expect(final.execution.status).toBe("completed")
    expect(seen).toEqual(["BeforeExecution:admin", "BeforeToolUse:admin"])
  })

  it("fails a run given no context at its start, with InvalidConfiguration at `context`, before any hook reads it", async () => {
    seen.length = 0
    // A JavaScript caller who forgot `{ context }`.
    const run = agentOf().run as (input: string) => Promise<Parameters<typeof Agent.failure>[0]>
    const final = await run("delete r1")
    expect(final.execution.status).toBe("failed")
    const error = errorOf(final)
    expect(error?._tag).toBe("InvalidConfiguration")
    expect(error?._tag === "InvalidConfiguration" && error.path).toBe("context")
    expect(error?.message).toMatch(/\{ context \}/)
    expect(seen.filter((s) => s.startsWith("BeforeExecution"))).toEqual([])
    expect(final.context.messages.toArray().some((m) => m.role === "tool")).toBe(false)
  })

  it("names the field of a context that does not decode, and runOrThrow rejects with it", async () => {
    const agent = agentOf()
    const wrong = { role: "root" } as unknown as Caller
    const final = await agent.run("delete r1", { context: wrong })
    const error = errorOf(final)
    expect(error?._tag === "InvalidConfiguration" && error.path).toBe("context.role")
    // The context carries credentials and is never stored; the error is: no value in it.
    expect(error?.message).not.toContain("root")
    await expect(agent.runOrThrow("delete r1", { context: wrong })).rejects.toSatisfy((e: unknown) =>
      e instanceof AgentError.HooklineError && e.error._tag === "InvalidConfiguration" && e.error.path === "context.role"
    )
  })

  it("is refused when given twice, or without a codec", () => {
    expect(() => AgentBuilder.make(UseRunContext(Caller), UseRunContext(Caller))).toThrow(/capabilities\[1\]: UseRunContext is given twice/)
    expect(() => AgentBuilder.make(UseRunContext({} as unknown as typeof Caller))).toThrow(/capabilities\[0\]\.schema/)
  })
})

describe("a failed run", () => {
  it("writes one warning through Effect's logger naming the run id and the error; a completed run writes none", async () => {
    const lines: Array<{ readonly level: string; readonly message: unknown }> = []
    const logger = Logger.make((o) => void lines.push({ level: o.logLevel, message: o.message }))
    const agent = agentOf()
    const failed = await Effect.runPromise(
      agent.runEffect("delete r1", { context: { role: "nobody" } as unknown as Caller }).pipe(Effect.provide(Logger.layer([logger]))),
    )
    expect(failed.execution.status).toBe("failed")
    expect(lines).toHaveLength(1)
    expect(lines[0]?.level).toBe("Warn")
    const text = String(lines[0]?.message)
    expect(text).toContain(failed.id)
    expect(text).toContain("InvalidConfiguration")
    lines.length = 0
    await Effect.runPromise(agent.runEffect("delete r1", { context: { role: "admin" } }).pipe(Effect.provide(Logger.layer([logger]))))
    expect(lines).toEqual([])
  })
})
