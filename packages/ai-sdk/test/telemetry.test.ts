// What the driver tells telemetry, over the loopback OpenAI-compatible server: the server
// its calls go to (server.address/port on UseTelemetry's chat spans, through
// DriverShape.model). The CI leg of AI SDK 7 runs this file there too.
import { createOpenAI } from "@ai-sdk/openai"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { WrapHook } from "@hookline/core"
import { AgentBuilder, Driver, UseDriver, UseWrap } from "@hookline/agent"
import { AiSdkDriver } from "@hookline/ai-sdk"
import { Effect } from "effect"
import * as Server from "../src/internal/server.js"
import { reply, start, type OpenAiServer } from "./support/openaiServer.js"

const apiKey = "sk-test-secret"

let server: OpenAiServer
beforeEach(async () => {
  server = await start()
})
afterEach(async () => {
  await server.close()
})

const portOf = (baseURL: string) => Number(new URL(baseURL).port)

describe("AiSdkDriver", () => {
  describe("model.server", () => {
    it("names the host and port of the provider's base URL, for a chat and a responses model", () => {
      const provider = createOpenAI({ baseURL: server.baseURL, apiKey })
      for (const model of [provider.chat("gpt-4o-mini"), provider.responses("gpt-4o-mini")]) {
        const driver = AiSdkDriver.make(model)
        expect(driver.model).toEqual({ provider: "openai", id: "gpt-4o-mini", server: { address: "127.0.0.1", port: portOf(server.baseURL) } })
        expect(Driver.modelOf(driver)).toEqual(driver.model)
      }
    })

    it("tells each model call's AroundCall the server before the call goes there", async () => {
      server.script(reply.text("hi"))
      const seen: Array<unknown> = []
      const tap = WrapHook.inference((ctx, next) =>
        next(ctx).pipe(Effect.provideService(Driver.AroundCall, (call, attempt) => Effect.suspend(() => (seen.push(attempt.model?.server), call))))
      )
      const agent = AgentBuilder.make(UseDriver(AiSdkDriver.make(createOpenAI({ baseURL: server.baseURL, apiKey }).chat("gpt-4o-mini"))), UseWrap(tap))
      const final = await agent.run("hello")
      expect(final.execution.status).toBe("completed")
      expect(seen).toEqual([{ address: "127.0.0.1", port: portOf(server.baseURL) }])
      expect(server.requests).toHaveLength(1)
    })

    it("keeps the host and port only: never a path, a query, a user or a password", () => {
      expect(Server.fromUrl("https://user:secret@api.example.test/v1/openai?api-key=k1#x")).toEqual({ address: "api.example.test", port: 443 })
      expect(Server.fromUrl("http://10.0.0.7/v1")).toEqual({ address: "10.0.0.7", port: 80 })
      expect(Server.fromUrl("http://[::1]:8080/v1")).toEqual({ address: "::1", port: 8080 })
      for (const bad of ["file:///etc/passwd", "ws://h/x", "not a url", "", 42, undefined, `https://h/${"x".repeat(3_000)}`]) {
        expect(Server.fromUrl(bad)).toBeUndefined()
      }
    })

    it("names no server, and makes the driver all the same, when the model's config is missing, odd or throws", () => {
      const base = { specificationVersion: "v2", provider: "acme.chat", modelId: "m", supportedUrls: {}, doGenerate: async () => ({}), doStream: async () => ({}) }
      const cases = [
        base,
        { ...base, config: { baseURL: 7 } },
        { ...base, config: { url: () => { throw new Error("boom") } } },
        { ...base, config: { url: () => ({ not: "a string" }) } },
        Object.defineProperty({ ...base }, "config", { get: () => { throw new Error("boom") } }),
      ]
      for (const model of cases) expect(AiSdkDriver.make(model as never).model).toEqual({ provider: "acme", id: "m" })
      expect(AiSdkDriver.make({ ...base, config: { baseURL: "https://api.acme.test/v2" } } as never).model.server).toEqual({ address: "api.acme.test", port: 443 })
    })
  })
})
