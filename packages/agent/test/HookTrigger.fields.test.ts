// `HookTrigger.fields` says which optional context fields each trigger carries. This
// checks it against the contexts a real run gives its hooks at every trigger, OnError
// included (a failed model call, handled, so the run goes on and completes).
import * as t from "io-ts"
import { describe, expect, it } from "vitest"
import { AgentBuilder, Tool, UseDriver, UseHook, UseTools } from "@hookline/agent"
import { HookContext, HookTrigger, HookTriggers } from "@hookline/core"
import { ScriptedDriver } from "@hookline/testing"

type Field = (typeof HookTrigger.fields)[HookTrigger][number]

const present = (ctx: HookContext): Array<Field> => {
  const out: Array<Field> = []
  if (ctx.request !== undefined) out.push("request")
  if (ctx.response !== undefined) out.push("response")
  if (ctx.toolCall !== undefined) out.push("toolCall")
  if (ctx.toolExecution !== undefined) out.push("toolExecution")
  if (ctx.errors.length > 0) out.push("errors")
  return out
}

describe("HookTrigger.fields", () => {
  it("lists exactly the fields a run's contexts carry at each trigger, errors at OnError", async () => {
    const seen = new Map<HookTrigger, Set<string>>()
    const record = (ctx: HookContext) => {
      seen.set(ctx.trigger, (seen.get(ctx.trigger) ?? new Set()).add(JSON.stringify(present(ctx))))
      return ctx.trigger === HookTrigger.OnError ? HookContext.markErrorsHandled(ctx) : ctx
    }
    const echo = Tool.make({ name: "echo", parameters: t.type({ s: t.string }), execute: ({ s }) => s })
    const driver = ScriptedDriver.make([
      ScriptedDriver.failure("overloaded", { status: 503 }),
      ScriptedDriver.toolCalls([{ name: "echo", arguments: { s: "hi" } }]),
      ScriptedDriver.text("done"),
    ])
    const final = await AgentBuilder.make(
      UseDriver(driver),
      UseTools([echo]),
      UseHook(record, { triggers: HookTriggers.all, name: "test:record" }),
    ).run("go")
    expect(final.execution.status).toBe("completed")
    expect([...seen.keys()].sort()).toEqual([...HookTrigger.all].sort())
    for (const trigger of HookTrigger.all) {
      expect([...seen.get(trigger)!], trigger).toEqual([JSON.stringify(HookTrigger.fields[trigger])])
    }
  })
})
