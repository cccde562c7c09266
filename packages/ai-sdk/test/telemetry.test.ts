// What the driver tells telemetry, over the loopback OpenAI-compatible server: the server
// its calls go to (server.address/port on UseTelemetry's chat spans, through
// DriverShape.model), and, on ai 7 (the CI leg runs this file there), that the AI SDK's
// own telemetry stays silent unless the driver is given settings: no second report of
// a call beside hookline's `chat` span.
import { tracingChannel } from "node:diagnostics_channel"
import { createOpenAI } from "@ai-sdk/openai"
import * as Ai from "ai"
import { describe, expect, it } from "vitest"
import { WrapHook } from "@hookline/core"
import { AgentBuilder, Driver, UseDriver, UseWrap } from "@hookline/agent"
import { AiSdkDriver } from "@hookline/ai-sdk"
import { Effect } from "effect"
import * as Server from "../src/internal/server.js"
import { apiKey, reply, serverPerTest } from "./support/openaiServer.js"
import { aiMajor } from "./support/specModels.js"

const server = serverPerTest()

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

  // ai 7 reports a call to the integrations registered with `registerTelemetry` (the
  // @ai-sdk/otel integration is one) and on the `ai:telemetry` tracing channel (what APM
  // agents subscribe to), unless the call's settings say `isEnabled: false`.
  if (aiMajor === 7) {
    describe.each(["generate", "stream"] as const)("ai 7 telemetry default (%s)", (mode) => {
      const listen = () => {
        const heard: Array<string> = []
        const integration = new Proxy({}, {
          get: (_, key) => typeof key === "string" && /^(on|execute)/.test(key) ? (...args: Array<unknown>) => {
            heard.push(`integration:${key}`)
            const last = args[0] as { readonly execute?: () => unknown } | undefined
            return key.startsWith("execute") && typeof last?.execute === "function" ? last.execute() : undefined
          } : undefined,
        })
        ;(Ai as unknown as { registerTelemetry: (...integrations: ReadonlyArray<unknown>) => void }).registerTelemetry(integration)
        // ai 7's Ai.AI_SDK_TELEMETRY_TRACING_CHANNEL (ai 6's types, which this file is checked against, lack it).
        const channel = tracingChannel((Ai as unknown as { readonly AI_SDK_TELEMETRY_TRACING_CHANNEL: string }).AI_SDK_TELEMETRY_TRACING_CHANNEL)
        const onStart = () => void heard.push("channel:start")
        const handlers = { start: onStart, end: () => {}, asyncStart: () => {}, asyncEnd: () => {}, error: () => {} }
        channel.subscribe(handlers)
        const stop = () => {
          channel.unsubscribe(handlers)
          ;(globalThis as { AI_SDK_TELEMETRY_INTEGRATIONS?: unknown }).AI_SDK_TELEMETRY_INTEGRATIONS = undefined
        }
        return { heard, stop }
      }

      const run = async (options: AiSdkDriver.AiSdkDriverOptions) => {
        server.script(reply.text("hi"))
        const agent = AgentBuilder.make(UseDriver(AiSdkDriver.make(createOpenAI({ baseURL: server.baseURL, apiKey }).chat("gpt-4o-mini"), options)))
        if (mode === "generate") return await agent.run("hello")
        let final
        for await (const event of agent.stream("hello")) if (event._tag === "RunEnded") final = event.state
        return final
      }

      it("reports nothing to a registered integration or the tracing channel when the driver is given no telemetry settings", async () => {
        const { heard, stop } = listen()
        try {
          const final = await run({})
          expect(final?.execution.status).toBe("completed")
          expect(heard).toEqual([])
        } finally {
          stop()
        }
      })

      it("reports the call when the driver is given settings that turn it on (the listeners above can hear)", async () => {
        const { heard, stop } = listen()
        try {
          const final = await run({ telemetry: { isEnabled: true } as never })
          expect(final?.execution.status).toBe("completed")
          expect(heard).toContain("channel:start")
          expect(heard.some((h) => h.startsWith("integration:on"))).toBe(true)
        } finally {
          stop()
        }
      })
    })
  }
})
