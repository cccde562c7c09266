// The span current in a run's fiber, so that logs join traces. A run's hooks all run in
// its own fiber, one dispatch at a time, so one span is current at any moment: the run's,
// its model call's (from the call to AfterInference) or a tool call's (BeforeToolUse to
// AfterToolUse). The capability wraps each run (`UseAroundRun`) with a `RunSpan` as
// Effect's parent span and with log annotations read from it when a record is written:
// Effect's loggers read the parent span (the OTLP logger does) or the annotations
// `trace_id`/`span_id` (the console, logfmt and JSON loggers print them).
import type { Span } from "@opentelemetry/api"
import { Context, Effect, References, Tracer } from "effect"

const traceKey = "trace_id"
const spanKey = "span_id"

/** A run's current span as Effect's parent span: read when used, not when made. */
export class RunSpan implements Tracer.ExternalSpan {
  readonly _tag = "ExternalSpan"
  readonly annotations = Context.empty()
  /** The span the run is in now; `undefined` before its span starts (the caller's then). */
  current: Span | undefined = undefined
  constructor(readonly outer: Tracer.AnySpan | undefined) {}
  get traceId(): string {
    return this.current?.spanContext().traceId ?? this.outer?.traceId ?? "0".repeat(32)
  }
  get spanId(): string {
    return this.current?.spanContext().spanId ?? this.outer?.spanId ?? "0".repeat(16)
  }
  get sampled(): boolean {
    return this.current === undefined ? this.outer?.sampled ?? false : (this.current.spanContext().traceFlags & 1) === 1
  }
  /** Whether there is a span to name at all. */
  get known(): boolean {
    return this.current !== undefined || this.outer !== undefined
  }
}

const isIdKey = (key: string | symbol): key is typeof traceKey | typeof spanKey => key === traceKey || key === spanKey

// The caller's annotations and the run span's ids, read each time a logger reads them
// (a logger walks `Object.entries`); with no span to name, no ids.
const annotationsOf = (base: Readonly<Record<string, unknown>>, live: RunSpan): Readonly<Record<string, unknown>> => {
  const own = { ...baseOf(base) }
  const annotations = new Proxy(own, {
    ownKeys: (target) => {
      const keys = Reflect.ownKeys(target)
      return live.known ? [...keys.filter((k) => !isIdKey(k)), traceKey, spanKey] : keys
    },
    getOwnPropertyDescriptor: (target, key) =>
      live.known && isIdKey(key)
        ? { value: key === traceKey ? live.traceId : live.spanId, enumerable: true, configurable: true, writable: false }
        : Reflect.getOwnPropertyDescriptor(target, key),
    get: (target, key, receiver) => (live.known && isIdKey(key) ? (key === traceKey ? live.traceId : live.spanId) : Reflect.get(target, key, receiver)),
    has: (target, key) => (live.known && isIdKey(key)) || Reflect.has(target, key),
  })
  bases.set(annotations, own)
  return annotations
}

// Each of our annotation records and the caller's annotations under it.
const bases = new WeakMap<object, Readonly<Record<string, unknown>>>()

/**
 * The caller's annotations under one of our records (so that a record made over it
 * copies plain data, not our ids read through the proxy), or the record itself.
 */
export const baseOf = (annotations: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> =>
  bases.get(annotations) ?? annotations

/**
 * `run` with a fresh `RunSpan` (over the caller's parent span) as its parent span and
 * its ids in the log annotations. The run's hooks find it as their parent span.
 */
export const around = <A, E, R>(run: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(Effect.serviceOption(Tracer.ParentSpan), (outer) => {
    const live = new RunSpan(outer._tag === "Some" ? outer.value : undefined)
    return run.pipe(
      Effect.updateService(References.CurrentLogAnnotations, (base) => annotationsOf(base, live)),
      Effect.withParentSpan(live),
    )
  })
