// An agent as users build it: tools, guards, a tool policy and an audit hook.
// The model is scripted here so the example runs offline and deterministically.
import * as t from "io-ts"
import { Hook, HookContext, HookTrigger, HookTriggers, type HookExecuted } from "@hookline/core"
import { AgentBuilder, Tool, UseContextConfig, UseDriver, UseGuards, UseHook, UseTools, type Agent } from "@hookline/agent"
import { ScriptedDriver } from "@hookline/testing"

const files: Readonly<Record<string, string>> = {
  "notes/todo.md": "- buy milk\n- ship hookline",
  "notes/ideas.md": "- hooks all the way down",
}

export const readFile = Tool.make({
  name: "read_file",
  description: "Reads a file from the notes folder",
  parameters: t.type({ path: t.string }),
  execute: ({ path }) => files[path] ?? `no such file: ${path}`,
})

export const countLines = Tool.make({
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

export const script = () => [
  ScriptedDriver.toolCalls([{ name: "read_file", arguments: { path: "notes/todo.md" } }], { usage: { inputTokens: 120, outputTokens: 18 } }),
  ScriptedDriver.toolCalls([{ name: "read_file", arguments: { path: "/etc/passwd" } }], { usage: { inputTokens: 180, outputTokens: 20 } }),
  ScriptedDriver.toolCalls([{ name: "count_lines", arguments: { text: "- buy milk\n- ship hookline" } }], {
    usage: { inputTokens: 240, outputTokens: 25 },
  }),
  ScriptedDriver.text("Your todo list has 2 items: buy milk, ship hookline.", {
    usage: { inputTokens: 300, outputTokens: 14 },
    chunks: ["Your todo list has 2 items: ", "buy milk, ", "ship hookline."],
  }),
]

export const makeAgent = (audit: (line: string) => void): Agent =>
  AgentBuilder.make(
    UseDriver(ScriptedDriver.make(script())),
    UseTools([readFile, countLines]),
    UseContextConfig({ systemPrompt: "You answer questions about the user's notes." }),
    UseGuards({ maxSteps: 8, maxTokens: 20_000 }),
    UseHook(notesOnly, { triggers: HookTrigger.BeforeToolUse, priority: 150, name: "policy:notes_only" }),
    UseHook(
      Hook.observe((ctx) => {
        if (ctx.trigger === HookTrigger.AfterToolUse && ctx.toolExecution) {
          audit(`${ctx.toolExecution.toolCall.name} -> ${ctx.toolExecution.status}`)
        }
      }),
      { triggers: HookTriggers.of(HookTrigger.AfterToolUse), priority: 100, name: "log:audit", onError: "skip" },
    ),
  )

export type { HookExecuted }
