import { describe, expect, it } from "vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { McpTool } from "@hookline/mcp"
import { makeAgent, notesServer, script } from "../src/agent.js"

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

  it("adds a note once when a call is repeated with the same idempotency key, as after a crash", async () => {
    const client = new Client({ name: "test", version: "1.0.0" })
    await client.connect(new StdioClientTransport({ command: notesServer.command, args: [...notesServer.args] }))
    try {
      const add = (key: string) =>
        client.callTool({ name: "add_note", arguments: { title: "retro", text: "Friday" }, _meta: { [McpTool.idempotencyKeyMeta]: key } })
      const first = await add("run-1:call-1")
      const again = await add("run-1:call-1")
      const other = await add("run-1:call-2")
      expect(again).toEqual(first)
      expect(first.content).toEqual([{ type: "text", text: "added \"retro\" (3 notes)" }])
      expect(other.content).toEqual([{ type: "text", text: "added \"retro\" (4 notes)" }])
    } finally {
      await client.close()
    }
  })
})
