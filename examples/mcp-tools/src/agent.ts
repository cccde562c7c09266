// An agent whose tools come from the notes MCP server, with two built-ins on top: a
// tool-call limit and PII redaction. The model is scripted, so it runs offline.
import { fileURLToPath } from "node:url"
import { AgentBuilder, UseDriver, type Agent } from "@hookline/agent"
import { McpServer, UseMcp } from "@hookline/mcp"
import { UsePiiRedaction, UseToolCallLimit } from "@hookline/middleware"
import { ScriptedDriver } from "@hookline/testing"

export const notesServer = McpServer.stdio({
  name: "notes",
  command: process.execPath,
  args: [fileURLToPath(new URL("./notesServer.mjs", import.meta.url))],
})

/** The script a model might follow: list, read two notes, try a third read, answer. */
export const script = () =>
  ScriptedDriver.make([
    ScriptedDriver.toolCalls([{ name: "notes_list_notes", arguments: {} }]),
    ScriptedDriver.toolCalls([
      { name: "notes_read_note", arguments: { title: "standup" } },
      { name: "notes_read_note", arguments: { title: "billing" } },
    ]),
    ScriptedDriver.toolCalls([{ name: "notes_read_note", arguments: { title: "standup" } }]),
    ScriptedDriver.text("Two notes: ship the MCP example (call Dana), and a billing contact."),
  ])

export const makeAgent = (driver: ScriptedDriver.ScriptedDriver = script()): Agent =>
  AgentBuilder.make(
    UseDriver(driver),
    UseMcp(notesServer, { prefix: "notes_", tools: ["list_notes", "read_note"] }),
    UseToolCallLimit({ perTool: { notes_read_note: 2 } }),
    UsePiiRedaction(),
  )
