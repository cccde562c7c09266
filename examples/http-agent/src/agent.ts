// The agent: two tools, guards, a tool policy and an audit hook, over any driver.
import * as t from "io-ts"
import { Hook, HookContext, HookTrigger, HookTriggers } from "@hookline/core"
import { AgentBuilder, Tool, UseContextConfig, UseDriver, UseGuards, UseHook, UseTools, type Agent, type Driver } from "@hookline/agent"

const files: Readonly<Record<string, string>> = {
  "notes/todo.md": "- buy milk\n- ship hookline",
  "notes/ideas.md": "- hooks all the way down",
}

const readFile = Tool.make({
  name: "read_file",
  description: "Reads a file of the user's notes. Paths look like notes/todo.md",
  parameters: t.type({ path: t.string }),
  execute: ({ path }) => files[path] ?? `no such file: ${path}`,
})

const countLines = Tool.make({
  name: "count_lines",
  description: "Counts the lines of a text",
  parameters: t.type({ text: t.string }),
  execute: ({ text }) => text.split("\n").length,
})

// A pure policy hook: nothing outside notes/ may be read.
export const notesOnly: Hook = (ctx) => {
  const path = (ctx.toolCall?.arguments as { readonly path?: unknown } | undefined)?.path
  return ctx.toolCall?.name === "read_file" && typeof path === "string" && !path.startsWith("notes/")
    ? HookContext.withToolExecutionBlocked(ctx, `reading ${path} is not allowed: only notes/ may be read`)
    : ctx
}

export const makeAgent = (driver: Driver, audit: (line: string) => void, ...more: ReadonlyArray<AgentBuilder.Capability>): Agent =>
  AgentBuilder.make(
    UseDriver(driver),
    UseTools([readFile, countLines]),
    UseContextConfig({ systemPrompt: "You answer questions about the user's notes. Use the tools; read notes/todo.md first." }),
    UseGuards({ maxSteps: 8, maxTokens: 20_000 }),
    UseHook(notesOnly, { triggers: HookTrigger.BeforeToolUse, priority: 150, name: "policy:notes_only" }),
    UseHook(
      Hook.observe((ctx) => {
        if (ctx.toolExecution) audit(`${ctx.toolExecution.toolCall.name} -> ${ctx.toolExecution.status}`)
      }),
      { triggers: HookTriggers.of(HookTrigger.AfterToolUse), priority: -150, name: "log:audit", onError: "skip" },
    ),
    ...more,
  )
