// `--trace`: the run's OpenTelemetry spans (UseTelemetry), kept in memory and printed as
// a tree with each span's hook events, what a tracing backend would show.
import { UseTelemetry } from "@hookline/otel"
import { context } from "@opentelemetry/api"
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks"
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"

export const startTracing = () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
  const exporter = new InMemorySpanExporter()
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
  const capability = UseTelemetry({ tracer: provider.getTracer("demo"), agentName: "notes" })
  const lines = () => treeLines(exporter.getFinishedSpans())
  return {
    capability,
    lines,
    print: () => {
      console.log("\nSpan tree (--trace; UseTelemetry, GenAI conventions, content off):")
      for (const line of lines()) console.log(line)
    },
  }
}

const ms = (s: ReadableSpan) => s.duration[0] * 1e3 + s.duration[1] / 1e6
const startOf = (s: ReadableSpan) => s.startTime[0] * 1e9 + s.startTime[1]

/** The spans as an indented tree, each with its duration, error type and hook events. */
export const treeLines = (spans: ReadonlyArray<ReadableSpan>): Array<string> => {
  const lines: Array<string> = []
  const ids = new Set(spans.map((s) => s.spanContext().spanId))
  const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId
  const walk = (parent: string | undefined, depth: number): void => {
    const children = spans.filter((s) => (parent === undefined ? !ids.has(parentOf(s) ?? "") : parentOf(s) === parent)).sort((a, b) => startOf(a) - startOf(b))
    for (const s of children) {
      const status = s.attributes["error.type"] === undefined ? "" : `  error.type=${String(s.attributes["error.type"])}`
      lines.push(`  ${"  ".repeat(depth)}${s.name}  (${ms(s).toFixed(1)} ms)${status}`)
      for (const e of s.events.filter((e) => e.name === "hookline.hook")) {
        lines.push(`  ${"  ".repeat(depth + 1)}· hook ${String(e.attributes?.["hookline.hook.name"])} on ${String(e.attributes?.["hookline.hook.trigger"])}: ${String(e.attributes?.["hookline.hook.outcome"])}`)
      }
      walk(s.spanContext().spanId, depth + 1)
    }
  }
  walk(undefined, 0)
  return lines
}
