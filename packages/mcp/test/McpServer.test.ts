import { fileURLToPath } from "node:url"
import { afterEach, describe, expect, it } from "vitest"
import type { Tool } from "@hookline/agent"
import { McpConnection, McpServer } from "@hookline/mcp"

const script = fileURLToPath(new URL("./support/poolServer.mjs", import.meta.url))

const secret = "HOOKLINE_TEST_SECRET"
afterEach(() => {
  delete process.env[secret]
})

// The value of `name` in the environment of a server started from `server`.
const envOf = async (server: McpServer, names: ReadonlyArray<string>): Promise<ReadonlyArray<unknown>> => {
  const connection = await McpConnection.open(server)
  try {
    const tool = connection.tools().find((t) => t.name === "env")!
    const context = { signal: new AbortController().signal, idempotencyKey: "test:env" } as Tool.ToolContext
    return await Promise.all(names.map(async (name) => JSON.parse(String(await tool.run({ name }, context)))))
  } finally {
    await connection.close()
  }
}

describe("McpServer", () => {
  describe("defaultEnv", () => {
    it("is the environment a stdio server starts with, and leaves this process's secrets out", async () => {
      process.env[secret] = "s3cret"
      const env = McpServer.defaultEnv()
      expect(Object.isFrozen(env)).toBe(true)
      expect(env.PATH).toBe(process.env.PATH)
      expect(secret in env).toBe(false)
      const server = McpServer.stdio({ name: "env", command: process.execPath, args: [script] })
      expect(await envOf(server, ["PATH", "HOME", secret])).toEqual([env.PATH, env.HOME ?? null, null])
    })
  })

  describe("stdio", () => {
    it("adds env on top of defaultEnv: the default stays, a given variable wins", async () => {
      process.env[secret] = "s3cret"
      const server = McpServer.stdio({
        name: "env",
        command: process.execPath,
        args: [script],
        env: { TENANT_TOKEN: "t1", HOME: "/nowhere" },
      })
      expect(await envOf(server, ["PATH", "TENANT_TOKEN", "HOME", secret])).toEqual([process.env.PATH, "t1", "/nowhere", null])
    })
  })
})
