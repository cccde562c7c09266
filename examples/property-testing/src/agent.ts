// An agent with both hooks, answering from a scripted model: it searches three times
// (the third search is over the limit) and every search result holds an API key.
import * as t from "io-ts"
import { AgentBuilder, Tool, UseDriver, UseGuards, UseHook, UseTools, type Agent } from "@hookline/agent"
import { ScriptedDriver } from "@hookline/testing"
import { rateLimit, rateLimitOptions, type RateLimit } from "./rateLimit.js"
import { redactSecrets, redactSecretsOptions } from "./redaction.js"

export const search = Tool.make({
  name: "search",
  description: "Searches the team's notes",
  parameters: t.type({ q: t.string }),
  execute: ({ q }) => ({ hits: [`${q}: the staging key is sk-test-4f9a2`], total: 1 }),
})

export const limit: RateLimit = { tool: "search", max: 2 }

export const script = () => [
  ScriptedDriver.toolCalls([{ name: "search", arguments: { q: "staging" } }, { name: "search", arguments: { q: "prod" } }]),
  ScriptedDriver.toolCalls([{ name: "search", arguments: { q: "billing" } }]),
  ScriptedDriver.text("I found two notes; I may not search again."),
]

export const makeAgent = (turns: ReadonlyArray<ScriptedDriver.Turn> = script()): Agent =>
  AgentBuilder.make(
    UseDriver(ScriptedDriver.make(turns)),
    UseTools([search]),
    UseGuards({ maxSteps: 5 }),
    UseHook(rateLimit(limit), rateLimitOptions(limit)),
    UseHook(redactSecrets, redactSecretsOptions),
  )
