import { HookExecuted } from "@hookline/core"
import { describe, expect, it } from "vitest"
import { makeAgent } from "../src/agent.js"

describe("scripted-agent example", () => {
  it("answers from the notes and completes", async () => {
    const final = await makeAgent(() => {}).run("How many items are on my todo list?")
    expect(final.execution.status).toBe("completed")
    expect(final.context.messages.last()?.content).toBe("Your todo list has 2 items: buy milk, ship hookline.")
    expect(final.context.systemPrompt).toBe("You answer questions about the user's notes.")
  })

  it("blocks the read outside notes/ and tells the model why", async () => {
    const audit: Array<string> = []
    const final = await makeAgent((line) => audit.push(line)).run("go")
    const blocked = [...final.context.messages].find((m) => m.role === "tool" && m.isError)
    expect(blocked?.content).toBe("Blocked: reading /etc/passwd is not allowed: only notes/ may be read")
    expect(audit).toEqual(["read_file -> success", "read_file -> blocked", "count_lines -> success"])
  })

  it("streams the final answer in chunks and reports every hook execution", async () => {
    const { sink, events } = HookExecuted.collect()
    const deltas: Array<string> = []
    for await (const e of makeAgent(() => {}).stream("go", { sink })) if (e._tag === "TextDelta") deltas.push(e.text)
    expect(deltas.join("")).toBe("Your todo list has 2 items: buy milk, ship hookline.")
    expect(events.filter((e) => e.hook === "policy:notes_only").map((e) => e.outcome)).toEqual(["unchanged", "changed", "unchanged"])
  })
})
