// Events follow the order of what happened: a consumer sees a tool call requested
// before the tool runs, however fast the tool (synchronous) and however many run together.
import { Effect, Stream } from "effect"
import * as t from "io-ts"
import { describe, expect, it } from "vitest"
import { AgentBuilder, AgentLoop, Tool, UseDriver, UseLoopOptions, UseTools } from "@hookline/agent"
import { ScriptedDriver } from "@hookline/testing"

const recording = () => {
  const log: Array<string> = []
  const note = Tool.make({
    name: "note",
    description: "Notes a word, at once",
    parameters: t.type({ word: t.string }),
    execute: ({ word }) => {
      log.push(`ran ${word}`)
      return word
    },
  })
  const later = Tool.make({
    name: "later",
    description: "Notes a word, a tick later",
    parameters: t.type({ word: t.string }),
    execute: async ({ word }) => {
      await Promise.resolve()
      log.push(`ran ${word}`)
      return word
    },
  })
  return { log, tools: [note, later] }
}

const script = () => [
  ScriptedDriver.toolCalls([
    { name: "note", arguments: { word: "a" } },
    { name: "later", arguments: { word: "b" } },
    { name: "note", arguments: { word: "c" } },
  ]),
  ScriptedDriver.text("done"),
]

const consume = async (events: AsyncIterable<{ readonly _tag: string }>, log: Array<string>) => {
  for await (const event of events) {
    // A consumer that takes its time (an await per event, like a UI write).
    await Promise.resolve()
    if (event._tag === "ToolCallRequested") log.push(`requested ${(event as unknown as { toolCall: { arguments: { word: string } } }).toolCall.arguments.word}`)
    if (event._tag === "ToolResult") log.push(`result ${(event as unknown as { execution: { toolCall: { arguments: { word: string } } } }).execution.toolCall.arguments.word}`)
  }
}

describe("event order", () => {
  it("gives the consumer every ToolCallRequested before a synchronous tool runs (sequential tools)", async () => {
    const { log, tools } = recording()
    const agent = AgentBuilder.make(UseDriver(ScriptedDriver.make(script())), UseTools(tools))
    await consume(agent.stream("note three words"), log)
    expect(log).toEqual(["requested a", "requested b", "requested c", "ran a", "result a", "ran b", "result b", "ran c", "result c"])
  })

  it("gives the consumer every ToolCallRequested before concurrent tools run", async () => {
    const { log, tools } = recording()
    const agent = AgentBuilder.make(UseDriver(ScriptedDriver.make(script())), UseTools(tools), UseLoopOptions({ toolConcurrency: "concurrent" }))
    await consume(agent.stream("note three words"), log)
    expect(log.slice(0, 3)).toEqual(["requested a", "requested b", "requested c"])
    expect(log.slice(3, 6).sort()).toEqual(["ran a", "ran b", "ran c"])
    expect(log.slice(6)).toEqual(["result a", "result b", "result c"])
  })

  it("holds in the Effect form, for a consumer that yields between events", async () => {
    const { log, tools } = recording()
    const loop = AgentLoop.make({ tools })
    await Effect.runPromise(
      Stream.runForEach(AgentLoop.stream(loop, "note three words"), (event) =>
        Effect.yieldNow.pipe(Effect.andThen(Effect.sync(() => {
          if (event._tag === "ToolCallRequested") log.push(`requested ${String((event.toolCall.arguments as { word: string }).word)}`)
        })))).pipe(Effect.provide(ScriptedDriver.make(script()).layer)),
    )
    expect(log.slice(0, 4)).toEqual(["requested a", "requested b", "requested c", "ran a"])
  })

  it("still aborts the run when the consumer leaves early", async () => {
    const { log, tools } = recording()
    const agent = AgentBuilder.make(UseDriver(ScriptedDriver.make(script())), UseTools(tools))
    for await (const event of agent.stream("note three words")) {
      if (event._tag === "ToolCallRequested") break
    }
    expect(log).toEqual([])
  })
})
