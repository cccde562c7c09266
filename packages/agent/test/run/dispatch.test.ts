// A step's dispatches build their contexts through one input the run fills and empties
// (run/dispatch.ts `dispatchAt`), and a trigger with no hooks gives back no context at
// all. Neither may show: a context a hook keeps holds its own parts whatever later
// dispatches fill in, and a run whose steps have silent triggers ends as one whose
// hooks there return their input.
import * as t from "io-ts"
import { describe, expect, it } from "vitest"
import { AgentBuilder, Tool, UseDriver, UseHook, UseTools } from "@hookline/agent"
import { type AgentState, type HookContext, HookTrigger, HookTriggers } from "@hookline/core"
import { ScriptedDriver } from "@hookline/testing"

const echo = Tool.make({ name: "echo", parameters: t.type({ s: t.string }), execute: async ({ s }) => s })
const script = () =>
  ScriptedDriver.make([
    ScriptedDriver.toolCalls([{ name: "echo", arguments: { s: "a" } }]),
    ScriptedDriver.toolCalls([{ name: "echo", arguments: { s: "b" } }]),
    ScriptedDriver.text("done"),
  ])

// What a run leaves, without its clock readings.
const timeless = (state: AgentState) =>
  JSON.parse(JSON.stringify(state, (key, value) => (/At$|Since$|durationMs|^id$/.test(key) ? 0 : value)))

describe("dispatchAt", () => {
  it("gives each kept context its own parts, whatever later dispatches fill in", async () => {
    const kept: Array<{ readonly ctx: HookContext; readonly parts: string }> = []
    const parts = (ctx: HookContext) =>
      JSON.stringify([ctx.trigger, ctx.createdAt, ctx.request?.messages.length, ctx.response?.text, ctx.toolCall?.id, ctx.toolExecution?.status, ctx.runContext])
    const keep = (ctx: HookContext) => {
      kept.push({ ctx, parts: parts(ctx) })
      return ctx
    }
    const final = await AgentBuilder.make(
      UseDriver(script()),
      UseTools([echo]),
      UseHook(keep, { triggers: HookTriggers.all, name: "test:keep" }),
    ).run("go", { context: { tenant: "t1" } })
    expect(final.execution.status).toBe("completed")
    // Two tool steps of six dispatches each, and a last one of four (no tools).
    expect(kept.filter((k) => k.ctx.trigger !== HookTrigger.BeforeExecution && k.ctx.trigger !== HookTrigger.AfterExecution && k.ctx.trigger !== HookTrigger.OnStop)).toHaveLength(16)
    for (const { ctx, parts: then } of kept) {
      expect(parts(ctx)).toBe(then)
      expect(Object.isFrozen(ctx)).toBe(true)
      expect(ctx.runContext).toEqual({ tenant: "t1" })
    }
    // Each trigger's own parts, not the last dispatch's.
    const at = (trigger: HookTrigger) => kept.filter((k) => k.ctx.trigger === trigger).map((k) => k.ctx)
    expect(at(HookTrigger.BeforeToolUse).map((c) => [c.toolCall?.arguments, c.toolExecution])).toEqual([[{ s: "a" }, undefined], [{ s: "b" }, undefined]])
    expect(at(HookTrigger.AfterToolUse).map((c) => c.toolExecution?.status)).toEqual(["success", "success"])
    expect(at(HookTrigger.BeforeStep).every((c) => c.request === undefined && c.toolCall === undefined)).toBe(true)
  })

  it("ends a run with silent step triggers as one whose hooks there return their input", async () => {
    const only = (triggers: HookTriggers.HookTriggers) =>
      AgentBuilder.make(UseDriver(script()), UseTools([echo]), UseHook((ctx) => ctx, { triggers, name: "test:identity" })).run("go")
    const silent = await only(HookTriggers.of(HookTrigger.BeforeExecution))
    const identity = await only(HookTriggers.all)
    expect(silent.execution.status).toBe("completed")
    expect(timeless(silent)).toEqual(timeless(identity))
  })
})
