/**
 * The telemetry benchmark (issue 28): what `UseTelemetry` costs per step.
 *
 * Every run is the same: a fake model asks for one tool call per step for `steps` steps,
 * then answers; the tool answers at once. Cases:
 * - off: no telemetry;
 * - on, no-op exporter: UseTelemetry over an SDK tracer whose exporter drops every span
 *   (the spans are made, ended and handed on: the cost of hookline's instrumentation);
 * - on, in-memory exporter: the same, kept in an InMemorySpanExporter (reset each round).
 * Per-step cost = median run time / steps (wall clock), and the CPU time of each round's
 * batch / its steps (median over rounds: steadier than the wall clock on a loaded
 * machine). Rounds interleave the cases. With `--expose-gc` and a young generation large
 * enough that a batch triggers no collection (`--max-semi-space-size=256`), also the heap
 * each step allocates (heap used after the batch minus before, after a full GC).
 *
 *   pnpm --filter @hookline/bench exec tsx src/otel.ts        (BENCH_QUICK=1: a short run)
 *   pnpm --filter @hookline/bench exec node --expose-gc --max-semi-space-size=256 --import tsx src/otel.ts
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
const cpu = new Map<string, Array<number>>(agents.map(([name]) => [name, []]))
const heap = new Map<string, Array<number>>(agents.map(([name]) => [name, []]))
const gc = (globalThis as { gc?: () => void }).gc
for (const [, agent] of agents) for (let i = 0; i < 20; i++) await agent.run("go") // warm-up
for (let r = 0; r < rounds; r++) {
  for (const [name, agent] of agents) {
    gc?.()
    const heapBefore = process.memoryUsage().heapUsed
    const cpuBefore = process.cpuUsage()
    for (let i = 0; i < runsPerRound; i++) {
      const t0 = performance.now()
      const final = await agent.run("go")
      times.get(name)!.push(performance.now() - t0)
      if (final.execution.status !== "completed") throw new Error(`${name}: the run ended ${final.execution.status}`)
    }
    const used = process.cpuUsage(cpuBefore)
    cpu.get(name)!.push((used.user + used.system) / runsPerRound / steps)
    heap.get(name)!.push((process.memoryUsage().heapUsed - heapBefore) / runsPerRound / steps)
  }
  memory.reset()
  process.stderr.write(`round ${r + 1}/${rounds}\n`)
}

const medianOf = (xs: ReadonlyArray<number>) => quantile([...xs].sort((a, b) => a - b), 0.5)
const median = (name: string) => medianOf(times.get(name)!)
const off = median("off")
console.log(`# telemetry per step${quick ? " (BENCH_QUICK=1: indicative only)" : ""}`)
console.log("")
console.log(`${steps} tool steps per run, ${rounds} rounds x ${runsPerRound} runs per case, interleaved; median run / ${steps}`)
console.log("")
const cpuOff = medianOf(cpu.get("off")!)
const heapOff = medianOf(heap.get("off")!)
console.log(`| case | µs per step | vs off | CPU µs per step | vs off |${gc === undefined ? "" : " heap bytes per step | vs off |"}`)
console.log(`| --- | --- | --- | --- | --- |${gc === undefined ? "" : " --- | --- |"}`)
for (const [name] of agents) {
  const m = median(name)
  const c = medianOf(cpu.get(name)!)
  const h = medianOf(heap.get(name)!)
  const vs = (x: number, base: number, unit: string) => (name === "off" ? "" : `+${(x - base).toFixed(unit === "" ? 0 : 1)}${unit}`)
  console.log(
    `| ${name} | ${((m / steps) * 1000).toFixed(1)} | ${vs((m / steps) * 1000, (off / steps) * 1000, " µs")} | ${c.toFixed(1)} | ${vs(c, cpuOff, " µs")} |` +
      (gc === undefined ? "" : ` ${h.toFixed(0)} | ${vs(h, heapOff, "")} |`),
  )
}
