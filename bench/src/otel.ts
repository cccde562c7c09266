/**
 * The telemetry benchmark (issue 28): what `UseTelemetry` costs per step.
 *
 * Every run is the same: a fake model asks for one tool call per step for `steps` steps,
 * then answers; the tool answers at once. Cases:
 * - off: no telemetry;
 * - on, no-op exporter: UseTelemetry over an SDK tracer whose exporter drops every span
 *   (the spans are made, ended and handed on: the cost of hookline's instrumentation);
 * - on, in-memory exporter: the same, kept in an InMemorySpanExporter (reset each round).
 * Per-step cost = median run time / steps. Rounds interleave the cases; wall clock.
 *
 *   pnpm --filter @hookline/bench exec tsx src/otel.ts        (BENCH_QUICK=1: a short run)
 */
import { AgentBuilder, type Agent, Driver, Tool, UseDriver, UseTools } from "@hookline/agent"
import { InferenceResponse, ToolCall } from "@hookline/core"
import { UseTelemetry } from "@hookline/otel"
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type SpanExporter } from "@opentelemetry/sdk-trace-base"
import * as t from "io-ts"
import { quantile } from "./measure.js"

const quick = process.env["BENCH_QUICK"] === "1"
const steps = 10
const rounds = quick ? 4 : 10
const runsPerRound = quick ? 30 : 100

const model = Driver.fromPromise({
  generate: async (request) => {
    const asked = request.messages.toArray().filter((m) => m.role === "tool").length
    return asked < steps
      ? InferenceResponse.make({ toolCalls: [ToolCall.make({ id: `c${asked}`, name: "echo", arguments: { n: asked } })] })
      : InferenceResponse.make({ text: "done" })
  },
})
const echo = Tool.make({ name: "echo", parameters: t.type({ n: t.number }), execute: ({ n }) => n })

const noop: SpanExporter = { export: (_spans, done) => done({ code: 0 }), shutdown: async () => {} }
const memory = new InMemorySpanExporter()
const tracerOver = (exporter: SpanExporter) => new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer("bench")

const agents: ReadonlyArray<readonly [string, Agent]> = [
  ["off", AgentBuilder.make(UseDriver(model), UseTools([echo]))],
  ["on, no-op exporter", AgentBuilder.make(UseDriver(model), UseTools([echo]), UseTelemetry({ tracer: tracerOver(noop) }))],
  ["on, in-memory exporter", AgentBuilder.make(UseDriver(model), UseTools([echo]), UseTelemetry({ tracer: tracerOver(memory) }))],
]

const times = new Map<string, Array<number>>(agents.map(([name]) => [name, []]))
for (const [, agent] of agents) for (let i = 0; i < 20; i++) await agent.run("go") // warm-up
for (let r = 0; r < rounds; r++) {
  for (const [name, agent] of agents) {
    for (let i = 0; i < runsPerRound; i++) {
      const t0 = performance.now()
      const final = await agent.run("go")
      times.get(name)!.push(performance.now() - t0)
      if (final.execution.status !== "completed") throw new Error(`${name}: the run ended ${final.execution.status}`)
    }
  }
  memory.reset()
  process.stderr.write(`round ${r + 1}/${rounds}\n`)
}

const median = (name: string) => quantile([...times.get(name)!].sort((a, b) => a - b), 0.5)
const off = median("off")
console.log(`# telemetry per step${quick ? " (BENCH_QUICK=1: indicative only)" : ""}`)
console.log("")
console.log(`${steps} tool steps per run, ${rounds} rounds x ${runsPerRound} runs per case, interleaved; median run / ${steps}`)
console.log("")
console.log("| case | µs per step | vs off |")
console.log("| --- | --- | --- |")
for (const [name] of agents) {
  const m = median(name)
  console.log(`| ${name} | ${((m / steps) * 1000).toFixed(1)} | ${name === "off" ? "" : `+${(((m - off) / steps) * 1000).toFixed(1)} µs`} |`)
}
