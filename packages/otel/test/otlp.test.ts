// The spans as a collector receives them: exported over OTLP/HTTP (JSON) to a receiver on
// 127.0.0.1 (a node:http server in this test), then decoded.
import { AgentBuilder, Tool, UseDriver, UseTools } from "@hookline/agent"
import { UseTelemetry } from "@hookline/otel"
import { ScriptedDriver } from "@hookline/testing"
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http"
import { BasicTracerProvider, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import * as t from "io-ts"
import { afterAll, describe, expect, it } from "vitest"
import { withContextManager } from "./support.js"

interface OtlpSpan {
  readonly name: string
  readonly kind: number
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly attributes: ReadonlyArray<{ readonly key: string; readonly value: Record<string, unknown> }>
}

const bodies: Array<unknown> = []
const server = createServer((req, res) => {
  const chunks: Array<Buffer> = []
  req.on("data", (c: Buffer) => chunks.push(c))
  req.on("end", () => {
    bodies.push({ path: req.url, type: req.headers["content-type"], body: JSON.parse(Buffer.concat(chunks).toString("utf8")) })
    res.writeHead(200, { "content-type": "application/json" }).end("{}")
  })
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

describe("UseTelemetry over OTLP/HTTP", () => {
  it("sends the run's spans to a collector on 127.0.0.1, with the conventions' names and attributes", async () => {
    withContextManager()
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const { port } = server.address() as AddressInfo
    const exporter = new OTLPTraceExporter({ url: `http://127.0.0.1:${port}/v1/traces` })
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
    const tool = Tool.make({ name: "add", parameters: t.type({ a: t.number, b: t.number }), execute: ({ a, b }) => a + b })
    const driver = ScriptedDriver.make([ScriptedDriver.toolCalls([{ id: "c1", name: "add", arguments: { a: 1, b: 2 } }]), ScriptedDriver.text("3")], { modelId: "m" })
    const agent = AgentBuilder.make(UseDriver(driver), UseTools([tool]), UseTelemetry({ tracer: provider.getTracer("t"), agentName: "calc" }))
    await agent.run("1 + 2?")
    await provider.forceFlush()
    await provider.shutdown()
    expect(bodies.length).toBeGreaterThan(0)
    expect((bodies[0] as { path: string }).path).toBe("/v1/traces")
    const spans: Array<OtlpSpan> = bodies.flatMap((b) =>
      (b as { body: { resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<OtlpSpan> }> }> } }).body.resourceSpans
        .flatMap((r) => r.scopeSpans.flatMap((s) => s.spans))
    )
    const attr = (s: OtlpSpan, key: string) => s.attributes.find((a) => a.key === key)?.value
    const run = spans.find((s) => s.name === "invoke_agent calc")!
    expect(attr(run, "gen_ai.operation.name")).toEqual({ stringValue: "invoke_agent" })
    expect(attr(run, "gen_ai.agent.name")).toEqual({ stringValue: "calc" })
    const chats = spans.filter((s) => s.name === "chat m")
    expect(chats).toHaveLength(2)
    expect(chats.every((c) => c.kind === 3 && c.parentSpanId === run.spanId && c.traceId === run.traceId)).toBe(true) // 3: CLIENT
    const tool_ = spans.find((s) => s.name === "execute_tool add")!
    expect(tool_.parentSpanId).toBe(run.spanId)
    expect(attr(tool_, "gen_ai.tool.call.id")).toEqual({ stringValue: "c1" })
  })
})
