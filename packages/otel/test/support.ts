// An OpenTelemetry SDK in memory: spans through a SimpleSpanProcessor into an
// InMemorySpanExporter, metrics into an in-memory reader, and the async-hooks context
// manager (what a Node service registers), so a Promise's continuation keeps its context.
import { context, trace } from "@opentelemetry/api"
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks"
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics"
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"

let manager: AsyncLocalStorageContextManager | undefined
/** Registers the async-hooks context manager once per test file. */
export const withContextManager = (): void => {
  if (manager !== undefined) return
  manager = new AsyncLocalStorageContextManager().enable()
  context.setGlobalContextManager(manager)
}

export const sdk = () => {
  withContextManager()
  const exporter = new InMemorySpanExporter()
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
  const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE)
  const reader = new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 3_600_000 })
  const meterProvider = new MeterProvider({ readers: [reader] })
  const tracer = provider.getTracer("test")
  const meter = meterProvider.getMeter("test")
  const spans = (): ReadonlyArray<ReadableSpan> => exporter.getFinishedSpans()
  const metrics = async () => {
    await reader.forceFlush()
    return metricExporter.getMetrics().flatMap((rm) => rm.scopeMetrics.flatMap((sm) => sm.metrics))
  }
  return { tracer, meter, spans, metrics, provider }
}

export const parentId = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId

/** The span tree as indented names, children in start order. */
export const tree = (spans: ReadonlyArray<ReadableSpan>): string => {
  const ids = new Set(spans.map((s) => s.spanContext().spanId))
  const children = (id: string | undefined) =>
    spans.filter((s) => (id === undefined ? parentId(s) === undefined || !ids.has(parentId(s)!) : parentId(s) === id))
      .sort((a, b) => (a.startTime[0] - b.startTime[0]) * 1e9 + (a.startTime[1] - b.startTime[1]))
  const lines: Array<string> = []
  const walk = (id: string | undefined, depth: number) => {
    for (const s of children(id)) {
      lines.push(`${"  ".repeat(depth)}${s.name}`)
      walk(s.spanContext().spanId, depth + 1)
    }
  }
  walk(undefined, 0)
  return lines.join("\n")
}

export const byName = (spans: ReadonlyArray<ReadableSpan>, name: string): ReadableSpan => {
  const found = spans.find((s) => s.name === name)
  if (found === undefined) throw new Error(`no span ${name} in ${spans.map((s) => s.name).join(", ")}`)
  return found
}

void trace
