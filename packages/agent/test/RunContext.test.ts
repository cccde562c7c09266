// The per-run context: given with each run, read by hooks and tools, never in the state.
import { Effect, Stream } from "effect"
import * as t from "io-ts"
import { describe, expect, expectTypeOf, it } from "vitest"
import { AgentState, Codecs, Hook, HookContext, HookTrigger, HookTriggers, Message } from "@hookline/core"
import { AgentBuilder, AgentLoop, Tool, UseDriver, UseGuards, UseHook, UseTools } from "@hookline/agent"
import { ScriptedDriver } from "@hookline/testing"
import { stackOf, toolResults } from "./support.js"

interface Caller {
  readonly role: "admin" | "viewer"
  readonly tenant: string
  readonly token: string
}

// A permission hook that reads the caller's role: viewers may not delete.
const onlyAdminsDelete: Hook<Caller> = (ctx) =>
  ctx.toolCall?.name === "delete" && ctx.runContext.role !== "admin"
    ? HookContext.withToolExecutionBlocked(ctx, `${ctx.runContext.role} may not delete`)
    : ctx

// A tool that reads the tenant (and would use the token) from the run's context.
const deleteTool = Tool.make({
  name: "delete",
  description: "Deletes a record of the caller's tenant",
  parameters: t.type({ id: t.string }),
  execute: ({ id }, { runContext }: Tool.ToolContext<Caller>) => `deleted ${runContext.tenant}/${id}`,
})

const script = () => [
  ScriptedDriver.toolCalls([{ name: "delete", arguments: { id: "r1" } }]),
  ScriptedDriver.text("done"),
]

const agentFor = (driver = ScriptedDriver.make(script())) =>
  AgentBuilder.make(
    UseDriver(driver),
    UseTools([deleteTool]),
    UseGuards({ maxSteps: 5 }),
    UseHook(onlyAdminsDelete, { triggers: HookTriggers.of(HookTrigger.BeforeToolUse), name: "policy:only_admins_delete", priority: 100 }),
  )

const admin: Caller = { role: "admin", tenant: "acme", token: "secret-token-8f2c" }
const viewer: Caller = { role: "viewer", tenant: "globex", token: "secret-token-77aa" }

// Every string anywhere in a value, keys included.
const strings = (value: unknown): ReadonlyArray<string> =>
  typeof value === "string"
    ? [value]
    : typeof value === "object" && value !== null
    ? Object.entries(value).flatMap(([k, v]) => [k, ...strings(v)])
    : []

describe("RunOptions.context", () => {
  it("reaches hooks as ctx.runContext and tools as context.runContext", async () => {
    const allowed = await agentFor().run("delete r1", { context: admin })
    expect(toolResults(allowed)).toEqual([["delete", "deleted acme/r1", false]])
    const denied = await agentFor().run("delete r1", { context: viewer })
    expect(toolResults(denied)).toEqual([["delete", "Blocked: viewer may not delete", true]])
  })

  it("is the same in stream, iterate, runEffect and the Effect form", async () => {
    const events: Array<string> = []
    for await (const event of agentFor().stream("delete r1", { context: viewer })) {
      if (event._tag === "ToolResult") events.push(event.execution.status)
    }
    expect(events).toEqual(["blocked"])
    const states: Array<AgentState> = []
    for await (const state of agentFor().iterate("delete r1", { context: admin })) states.push(state)
    expect(toolResults(states.at(-1)!)).toEqual([["delete", "deleted acme/r1", false]])
    expect(toolResults(await Effect.runPromise(agentFor().runEffect("delete r1", { context: viewer })))[0]?.[2]).toBe(true)
    const agent = agentFor()
    const driver = ScriptedDriver.make(script())
    const viaLoop = await Effect.runPromise(
      AgentLoop.run(agent.loop, "delete r1", { context: admin }).pipe(Effect.provide(driver.layer)),
    )
    expect(toolResults(viaLoop)).toEqual([["delete", "deleted acme/r1", false]])
    const streamed = await Effect.runPromise(
      Stream.runCollect(AgentLoop.stream(agent.loop, "delete r1", { context: viewer })).pipe(Effect.provide(ScriptedDriver.make(script()).layer)),
    )
    expect(streamed.flatMap((e) => (e._tag === "ToolResult" ? [e.execution.status] : []))).toEqual(["blocked"])
  })

  it("never enters the state: the final state and its encoding hold none of it", async () => {
    const seen: Array<unknown> = []
    const record = Hook.observe((ctx: HookContext<Caller>) => seen.push(ctx.runContext))
    const agent = AgentBuilder.make(
      UseDriver(ScriptedDriver.make(script())),
      UseTools([deleteTool]),
      UseHook(onlyAdminsDelete, { triggers: HookTriggers.of(HookTrigger.BeforeToolUse), name: "policy:only_admins_delete" }),
      UseHook(record, { triggers: HookTriggers.all, name: "log:record" }),
    )
    const final = await agent.run("delete r1", { context: admin })
    // Every hook saw the caller's own object.
    expect(seen.length).toBeGreaterThan(5)
    expect(seen.every((c) => c === admin)).toBe(true)
    const encoded = Codecs.toJson(Codecs.AgentState, final)
    for (const secret of [admin.token, "admin", "tenant", "runContext"]) {
      expect(encoded).not.toContain(secret)
      expect(strings(final).some((s) => s.includes(secret))).toBe(false)
    }
    // The tool used the tenant: its result names it, and that is all the state holds of it.
    expect(encoded).toContain("deleted acme/r1")
    // A context encoded with the codec leaves it out too.
    const ctx = HookContext.make({ trigger: "BeforeStep", state: final, createdAt: 0, runContext: admin })
    expect(ctx.runContext).toBe(admin)
    expect(Codecs.toJson(Codecs.HookContext, ctx)).not.toContain(admin.token)
  })

  it("is given again by the caller on a later run of the same state", async () => {
    const agent = agentFor(ScriptedDriver.make([...script(), ...script()]))
    const first = await agent.run("delete r1", { context: admin })
    const decoded = Codecs.decodeUnsafe(Codecs.AgentState, JSON.parse(Codecs.toJson(Codecs.AgentState, first)))
    const again = AgentState.appendMessage(decoded, Message.user("delete r1 again"))
    const second = await agent.run(again, { context: viewer })
    expect(toolResults(second).map(([, content]) => content)).toEqual(["deleted acme/r1", "Blocked: viewer may not delete"])
  })

  it("is undefined for a run given none, and runs of an agent that reads none need none", async () => {
    const seen: Array<unknown> = []
    const loop = AgentLoop.make({ interceptor: stackOf([Hook.observe((ctx) => seen.push(ctx.runContext)), { triggers: "BeforeStep", name: "log" }]) })
    const driver = ScriptedDriver.make([ScriptedDriver.text("hi")])
    await Effect.runPromise(AgentLoop.run(loop, "hi").pipe(Effect.provide(driver.layer)))
    expect(seen).toEqual([undefined])
    const plain = AgentBuilder.make(UseDriver(ScriptedDriver.make([ScriptedDriver.text("hi")])))
    expect((await plain.run("hi")).execution.status).toBe("completed")
  })

  it("types the context from the hooks and tools, and asks for it on every run", () => {
    const agent = agentFor()
    expectTypeOf(agent.run).parameter(1).toEqualTypeOf<AgentLoop.RunOptions<Caller> & { readonly context: Caller }>()
    // @ts-expect-error the agent reads a Caller: a run must give one
    void (() => agent.run("delete r1"))
    // @ts-expect-error a context of the wrong shape
    void (() => agent.run("delete r1", { context: { role: "root" } }))
    const plain = AgentBuilder.make(UseDriver(ScriptedDriver.make([])))
    expectTypeOf(plain.run).parameter(1).toEqualTypeOf<AgentLoop.RunOptions<unknown> | undefined>()
    expectTypeOf(deleteTool).toEqualTypeOf<Tool<{ id: string }, Caller>>()
  })
})
