// docs/triggers.md lists which trigger each built-in uses: this checks every row
// against `HookStack.explain` of a stack made from the capability itself, and that
// every capability `@hookline/middleware` exports has its rows. A wrong row fails here.
import { readFileSync } from "node:fs"
import * as t from "io-ts"
import { describe, expect, it } from "vitest"
import { AgentBuilder, Tool, UseDriver, UseTools } from "@hookline/agent"
import { HookStack, HookTrigger, WrapHook } from "@hookline/core"
import { McpServer, UseMcp } from "@hookline/mcp"
import * as Middleware from "@hookline/middleware"
import { MemoryStore, UseCheckpoints } from "@hookline/store"
import { ScriptedDriver } from "@hookline/testing"

const driver = () => ScriptedDriver.make([])

// One instance of each capability, with the fewest options it takes.
const capabilities: Readonly<Record<string, () => AgentBuilder.Capability>> = {
  UseSlidingWindow: () => Middleware.UseSlidingWindow({ maxMessages: 10 }),
  UseToolCallLimit: () => Middleware.UseToolCallLimit({ total: 5 }),
  UseModelCallLimit: () => Middleware.UseModelCallLimit({ max: 5 }),
  UseCostBudget: () => Middleware.UseCostBudget({ maxCost: 1, prices: {} }),
  UseClearToolResults: () => Middleware.UseClearToolResults(),
  UseSummarization: () => Middleware.UseSummarization({ driver: driver(), maxTokens: 100 }),
  // Every place, so the row lists every trigger the hook can register at.
  UsePiiRedaction: () => Middleware.UsePiiRedaction({ on: Middleware.PiiRedaction.places }),
  UseOutput: () => Middleware.UseOutput(t.type({ a: t.string })),
  UseApproval: () => Middleware.UseApproval({ tools: ["deploy"] }),
  UseModelRetry: () => Middleware.UseModelRetry(),
  UseToolRetry: () => Middleware.UseToolRetry({ tools: ["fetch"] }),
  UseFallbackModels: () => Middleware.UseFallbackModels([driver()]),
  UseModelTimeout: () => Middleware.UseModelTimeout({ ms: 1_000 }),
  UseToolTimeout: () => Middleware.UseToolTimeout({ ms: 1_000 }),
  UseMcp: () => UseMcp(McpServer.stdio({ name: "notes", command: process.execPath })),
  UseCheckpoints: () => UseCheckpoints(MemoryStore.make()),
  "Tool.fromAgent": () => UseTools([Tool.fromAgent(AgentBuilder.make(UseDriver(driver())), { name: "research" })]),
}

type Data =
  | { readonly _tag: "UseHook"; readonly hook: never; readonly options: HookStack.HookOptions }
  | { readonly _tag: "UseWrap"; readonly wrap: WrapHook.WrapHook<unknown, never>; readonly options: HookStack.WrapOptions }
  | { readonly _tag: "UseAll"; readonly capabilities: ReadonlyArray<AgentBuilder.Capability> }
  | { readonly _tag: "other" }

// The hooks a capability registers, as the agent builder folds them into its stack.
const stackOf = (capability: AgentBuilder.Capability, stack: HookStack.HookStack<unknown> = HookStack.empty): HookStack.HookStack<unknown> => {
  const data = capability as unknown as Data
  switch (data._tag) {
    case "UseHook":
      return HookStack.with(stack, data.hook, data.options)
    case "UseWrap":
      return HookStack.withWrap(stack, data.wrap, data.options)
    case "UseAll":
      return data.capabilities.reduce((s, c) => stackOf(c, s), stack)
    default:
      return stack
  }
}

interface Row {
  readonly triggers: ReadonlyArray<string>
  readonly priority: number | undefined
}

const points: ReadonlyArray<string> = [...HookTrigger.all, ...WrapHook.points]

// The rows of the Built-ins table, by capability, then by hook name.
const documented = (): Map<string, Map<string, Row>> => {
  const doc = readFileSync(new URL("../../docs/triggers.md", import.meta.url), "utf8")
  const section = doc.slice(doc.indexOf("## Built-ins"))
  const rows = new Map<string, Map<string, Row>>()
  for (const line of section.split("\n")) {
    const cells = line.split("|").slice(1, -1).map((c) => c.trim())
    if (cells.length !== 6 || cells[1] === "capability" || cells[1]!.startsWith("---")) continue
    const capability = /`([A-Za-z.]+)/.exec(cells[1]!)?.[1]
    const name = /`([^`]+)`/.exec(cells[2]!)?.[1]
    if (capability === undefined || name === undefined) throw new Error(`a row without a capability or name: ${line}`)
    const triggers = points.filter((p) => new RegExp(`\\b${p}\\b`).test(cells[3]!)).sort()
    const priority = cells[4] === "" ? undefined : Number(cells[4])
    const byName = rows.get(capability) ?? new Map<string, Row>()
    expect(byName.has(name), `two rows for ${capability} ${name}`).toBe(false)
    rows.set(capability, byName.set(name, { triggers, priority }))
  }
  return rows
}

const explained = (capability: AgentBuilder.Capability): Map<string, Row> => {
  const byName = new Map<string, { triggers: Array<string>; priorities: Set<number> }>()
  for (const { trigger, hooks } of HookStack.explain(stackOf(capability))) {
    for (const hook of hooks) {
      const entry = byName.get(hook.name) ?? { triggers: [], priorities: new Set<number>() }
      entry.triggers.push(trigger)
      entry.priorities.add(hook.priority)
      byName.set(hook.name, entry)
    }
  }
  return new Map([...byName].map(([name, e]) => {
    expect(e.priorities.size, `${name} has one priority at all its triggers`).toBe(1)
    return [name, { triggers: [...e.triggers].sort(), priority: [...e.priorities][0] }] as const
  }))
}

describe("docs/triggers.md, the Built-ins table", () => {
  const rows = documented()

  it("has rows for every capability @hookline/middleware exports, and only for known ones", () => {
    const exported = Object.keys(Middleware).filter((k) => k.startsWith("Use"))
    expect(exported.filter((k) => !(k in capabilities))).toEqual([])
    expect([...rows.keys()].sort()).toEqual(Object.keys(capabilities).sort())
  })

  it.each(Object.keys(capabilities))("lists the hooks of %s with their triggers and priorities", (key) => {
    const rowsOf = rows.get(key)!
    const actual = explained(capabilities[key]!())
    if ([...rowsOf.values()].every((r) => r.triggers.length === 0)) {
      // A row with no trigger (MCP tools): the capability registers no hook.
      expect(actual.size).toBe(0)
      return
    }
    expect(Object.fromEntries(rowsOf)).toEqual(Object.fromEntries(actual))
  })
})
