// Shared test helpers: a loop over a stack, run with a scripted driver.
import { Effect } from "effect"
import * as t from "io-ts"
import { Hook, HookContext, HookStack, HookTriggers, type AgentState, type HookTrigger } from "@hookline/core"
import { AgentLoop, Tool } from "@hookline/agent"
import { ScriptedDriver } from "@hookline/testing"

export const add = Tool.make({
  name: "add",
  description: "Adds two numbers",
  parameters: t.type({ a: t.number, b: t.number }),
  execute: ({ a, b }) => a + b,
})

export const echo = Tool.make({
  name: "echo",
  description: "Returns its text",
  parameters: t.type({ text: t.string }),
  execute: ({ text }) => text,
})

/** A stack with a hook that records `trigger` (and the tool, if any) on every trigger. */
export const trail = () => {
  const seen: Array<string> = []
  const hook = Hook.observe((ctx: HookContext) => seen.push(ctx.toolCall ? `${ctx.trigger}:${ctx.toolCall.name}` : ctx.trigger))
  return { seen, hook, options: { triggers: HookTriggers.all, name: "test:trail", priority: -1000 } }
}

export const stackOf = (...hooks: ReadonlyArray<readonly [Hook.AnyHook<unknown, never>, HookStack.HookOptions]>) =>
  hooks.reduce<HookStack>((stack, [hook, options]) => HookStack.with(stack, hook, options), HookStack.empty)

/** Runs a loop to its end against a script; returns the final state and the driver. */
export const runWith = async (
  loop: AgentLoop,
  script: ReadonlyArray<ScriptedDriver.Turn>,
  input: AgentLoop.Input = "What is 2+2?",
  options?: AgentLoop.RunOptions,
): Promise<{ readonly final: AgentState; readonly driver: ScriptedDriver }> => {
  const driver = ScriptedDriver.make(script)
  const final = await Effect.runPromise(AgentLoop.run(loop, input, options).pipe(Effect.provide(driver.layer)))
  return { final, driver }
}

export const on = (trigger: HookTrigger, name: string, priority = 0): HookStack.HookOptions => ({ triggers: trigger, name, priority })

export const messages = (state: AgentState) =>
  [...state.context.messages].map((m) => (m.role === "assistant" && m.toolCalls.length > 0
    ? `assistant:${m.toolCalls.map((c) => `${c.name}(${JSON.stringify(c.arguments)})`).join(",")}`
    : `${m.role}:${m.content}`))

// -- helpers for the builder, the seed scenarios and the guards --------------------
import { AgentError, StopSignal } from "@hookline/core"

/** The InvalidConfiguration that `f` throws (as a HooklineError); fails the test otherwise. */
export const invalidConfiguration = (f: () => unknown): AgentError.InvalidConfiguration => {
  try {
    f()
  } catch (error) {
    if (error instanceof AgentError.HooklineError && error.error._tag === "InvalidConfiguration") return error.error
    throw error
  }
  throw new Error("expected a HooklineError(InvalidConfiguration), but nothing was thrown")
}

/** A model that calls `echo` on every turn, forever. */
export const echoForever = (options: ScriptedDriver.Options & ScriptedDriver.AnswerOptions = {}) => {
  const { usage, finishReason, ...driverOptions } = options
  return ScriptedDriver.make([ScriptedDriver.toolCalls([{ name: "echo", arguments: { text: "again" } }], { usage, finishReason })], {
    ...driverOptions,
    repeatLast: true,
  })
}

/** The tool messages of a state as [tool name, content, isError]. */
export const toolResults = (state: AgentState) =>
  [...state.context.messages].flatMap((m) => (m.role === "tool" ? [[m.toolName, m.content, m.isError] as const] : []))

/** The text of the assistant messages that answered in words (no tool calls). */
export const answers = (state: AgentState) =>
  [...state.context.messages].flatMap((m) => (m.role === "assistant" && m.toolCalls.length === 0 ? [m.content] : []))

/** The highest stop reason of a state. */
export const stopReason = (state: AgentState) => StopSignal.highest(state.execution.stopSignals)?.reason

/**
 * Runs `run` with a signal that aborts after `ms`: a run that would never end on its own
 * ends, and the test fails on what it returns instead of hanging.
 */
export const withSafety = async <A>(run: (signal: AbortSignal) => Promise<A>, ms = 10_000): Promise<A> => {
  const safety = new AbortController()
  const timer = setTimeout(() => safety.abort(), ms)
  try {
    return await run(safety.signal)
  } finally {
    clearTimeout(timer)
  }
}

/** The path of the first object under `value` that is not frozen, `undefined` when all are (an AppendLog's items by index). */
export const unfrozenPath = (value: unknown, path = "state"): string | undefined => {
  if (typeof value !== "object" || value === null) return undefined
  if (!Object.isFrozen(value)) return path
  const entries: Iterable<readonly [string, unknown]> = Symbol.iterator in value && !Array.isArray(value)
    ? Array.from(value as Iterable<unknown>, (v, i) => [String(i), v] as const)
    : Object.entries(value)
  for (const [key, item] of entries) {
    const found = unfrozenPath(item, `${path}.${key}`)
    if (found !== undefined) return found
  }
  return undefined
}
