// The same agent on a scripted model (no network, no server): streamed, and checked
// turn by turn. ScriptedDriver is how users test their own agents offline.
import { describe, expect, it } from "vitest"
import { HookExecuted } from "@hookline/core"
import { ScriptedDriver } from "@hookline/testing"
import { makeAgent } from "../src/agent.js"

const script = () =>
  ScriptedDriver.make([
    ScriptedDriver.toolCalls([{ name: "read_file", arguments: { path: "notes/todo.md" } }]),
    ScriptedDriver.toolCalls([{ name: "read_file", arguments: { path: "/etc/passwd" } }]),
    ScriptedDriver.toolCalls([{ name: "count_lines", arguments: { text: "- buy milk\n- ship hookline" } }]),
    ScriptedDriver.text("Your todo list has 2 items: buy milk, ship hookline.", {
      chunks: ["Your todo list has 2 items: ", "buy milk, ", "ship hookline."],
    }),
  ])

describe("http-agent example on a scripted model", () => {
  it("answers from the notes with the configured system prompt", async () => {
    const driver = script()
    const final = await makeAgent(driver, () => {}).run("How many items are on my todo list?")
    expect(final.execution.status).toBe("completed")
    expect(final.context.messages.last()?.content).toBe("Your todo list has 2 items: buy milk, ship hookline.")
    expect(driver.requests[0]?.systemPrompt).toMatch(/^You answer questions about the user's notes\./)
  })

  it("blocks the read outside notes/ and tells the model why", async () => {
    const final = await makeAgent(script(), () => {}).run("go")
    const blocked = [...final.context.messages].find((m) => m.role === "tool" && m.isError)
    expect(blocked?.content).toBe("Blocked: reading /etc/passwd is not allowed: only notes/ may be read")
  })

  it("streams the final answer in chunks and reports every hook execution", async () => {
    const { sink, events } = HookExecuted.collect()
    const deltas: Array<string> = []
    for await (const e of makeAgent(script(), () => {}).stream("go", { sink })) if (e._tag === "TextDelta") deltas.push(e.text)
    expect(deltas.join("")).toBe("Your todo list has 2 items: buy milk, ship hookline.")
    expect(events.filter((e) => e.hook === "policy:notes_only").map((e) => e.outcome)).toEqual(["unchanged", "changed", "unchanged"])
  })
})
