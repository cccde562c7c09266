import { describe, expect, it } from "vitest"
import { makeAgent, script } from "../src/agent.js"

describe("mcp-tools example", () => {
  it("reads the notes through the MCP server, redacted, within the limit", async () => {
    const driver = script()
    const final = await makeAgent(driver).run("What is in my notes?")
    expect(final.execution.status).toBe("completed")
    // The server's tools, filtered and prefixed, are what the model was offered.
    expect(driver.requests[0]?.tools.map((t) => t.name)).toEqual(["notes_list_notes", "notes_read_note"])
    const tools = [...final.context.messages].flatMap((m) => (m.role === "tool" ? [m.content] : []))
    expect(tools[0]).toBe("standup\nbilling")
    expect(tools[1]).toBe("Ship the MCP example. Call Dana at [REDACTED:phone].")
    expect(tools[2]).toBe("Customer card [REDACTED:card], contact [REDACTED:email].")
    expect(tools[3]).toContain("Tool call limit reached: 2/2 calls of notes_read_note")
  })
})
