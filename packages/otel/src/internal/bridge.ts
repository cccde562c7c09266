// Effect's tracer over an OpenTelemetry tracer, for the parts of a run this package
// wraps (a model call, a tool execution): spans a tool or a driver makes with Effect
// (`Effect.withSpan`) become OpenTelemetry spans under ours, and while a fiber runs
// there, OpenTelemetry's active context is its current span, so a Promise tool's own
// instrumentation (an HTTP client's spans) nests under `execute_tool` too. The run
// guarantees a tool runs in the context of its wrap point (Tools.context.test.ts).
import {
  type Attributes,
  type Context as OtelContext,
  context as otelContext,
  type Span as OtelSpan,
  SpanKind,
  SpanStatusCode,
  trace,
  type Tracer as OtelTracer,
} from "@opentelemetry/api"
import { Context, Effect, Exit, Option, References, Tracer } from "effect"
import * as Current from "./current.js"

// The OpenTelemetry context of each span Effect knows as ours (a parent we gave it, or
// one our tracer made).
const contexts = new WeakMap<object, OtelContext>()

const evaluate = "~effect/Effect/evaluate"

/** Our span as an Effect parent span: Effect spans made under it are its children. */
export const parentOf = (ctx: OtelContext): Tracer.ExternalSpan => {
  const sc = trace.getSpanContext(ctx)
  const span = Tracer.externalSpan({ traceId: sc?.traceId ?? "0".repeat(32), spanId: sc?.spanId ?? "0".repeat(16), sampled: ((sc?.traceFlags ?? 0) & 1) === 1 })
  contexts.set(span, ctx)
  return span
}

/** The OpenTelemetry context of an Effect span of ours, or `undefined`. */
export const contextOf = (span: Tracer.AnySpan | undefined): OtelContext | undefined =>
  span === undefined ? undefined : contexts.get(span)

const kindOf = (kind: Tracer.SpanKind): SpanKind =>
  kind === "client" ? SpanKind.CLIENT : kind === "server" ? SpanKind.SERVER : kind === "producer" ? SpanKind.PRODUCER
  : kind === "consumer" ? SpanKind.CONSUMER : SpanKind.INTERNAL

const nanosToHr = (n: bigint): [number, number] => [Number(n / 1_000_000_000n), Number(n % 1_000_000_000n)]

const attributeValue = (u: unknown): Attributes[string] =>
  typeof u === "string" || typeof u === "number" || typeof u === "boolean" ? u : u === undefined ? undefined : String(u)

// An Effect span that is an OpenTelemetry span.
class BridgedSpan implements Tracer.Span {
  readonly _tag = "Span"
  status: Tracer.SpanStatus
  readonly attributes = new Map<string, unknown>()
  links: Array<Tracer.SpanLink>
  constructor(
    readonly span: OtelSpan,
    readonly name: string,
    readonly parent: Option.Option<Tracer.AnySpan>,
    readonly annotations: Context.Context<never>,
    links: ReadonlyArray<Tracer.SpanLink>,
    readonly sampled: boolean,
    readonly kind: Tracer.SpanKind,
    startTime: bigint,
  ) {
    this.links = [...links]
    this.status = { _tag: "Started", startTime }
  }
  get spanId() {
    return this.span.spanContext().spanId
  }
  get traceId() {
    return this.span.spanContext().traceId
  }
  end(endTime: bigint, exit: Exit.Exit<unknown, unknown>): void {
    if (this.status._tag === "Ended") return
    this.status = { _tag: "Ended", startTime: this.status.startTime, endTime, exit }
    // Only the kind of failure: an error's message may hold content.
    if (Exit.isFailure(exit)) {
      const error = exit.cause.reasons.find((r) => r._tag === "Fail")
      const tag = error !== undefined && typeof error.error === "object" && error.error !== null
        ? (error.error as { _tag?: unknown })._tag
        : undefined
      this.span.setAttribute("error.type", typeof tag === "string" ? tag : "_OTHER")
      this.span.setStatus({ code: SpanStatusCode.ERROR })
    }
    this.span.end(nanosToHr(endTime))
  }
  attribute(key: string, value: unknown): void {
    this.attributes.set(key, value)
    this.span.setAttribute(key, attributeValue(value) as never)
  }
  event(name: string, startTime: bigint, attributes?: Record<string, unknown>): void {
    const attrs: Attributes = {}
    for (const [k, v] of Object.entries(attributes ?? {})) attrs[k] = attributeValue(v)
    this.span.addEvent(name, attrs, nanosToHr(startTime))
  }
  addLinks(links: ReadonlyArray<Tracer.SpanLink>): void {
    this.links.push(...links)
  }
}

/** Effect's tracer over `tracer`. */
export const make = (tracer: OtelTracer): Tracer.Tracer =>
  Tracer.make({
    span: (options) => {
      const parent = Option.getOrUndefined(options.parent)
      const parentContext = options.root ? otelContext.active() : contextOf(parent) ?? (parent === undefined
        ? otelContext.active()
        : trace.setSpanContext(otelContext.active(), { traceId: parent.traceId, spanId: parent.spanId, traceFlags: parent.sampled ? 1 : 0, isRemote: true }))
      const span = tracer.startSpan(options.name, { kind: kindOf(options.kind), startTime: nanosToHr(options.startTime), root: options.root }, parentContext)
      const bridged = new BridgedSpan(span, options.name, options.parent, options.annotations, options.links, options.sampled, options.kind, options.startTime)
      contexts.set(bridged, trace.setSpan(parentContext, span))
      return bridged
    },
    // While a fiber evaluates, OpenTelemetry's active context is its current span's.
    // (Called for every step a fiber takes in a model call or a tool: no closure per step.)
    context: (primitive, fiber) => {
      const ctx = contextOf(Context.getOrUndefined(fiber.context, Tracer.ParentSpan))
      const run = (primitive as unknown as Record<string, (f: unknown) => never>)[evaluate]!
      return ctx === undefined ? run.call(primitive, fiber) : otelContext.with(ctx, run, primitive, fiber)
    },
  })

/**
 * `effect` in the OpenTelemetry context `ctx`: its Effect spans are children of that
 * span, OpenTelemetry's active context is it while it runs, and its logs carry the
 * trace and span ids. One context update (not one per service), `extra` included: this
 * is on every model call's and tool's path.
 */
export const within = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  ctx: OtelContext,
  tracer: Tracer.Tracer,
  extra?: (context: Context.Context<never>) => Context.Context<never>,
): Effect.Effect<A, E, R> => {
  const parent = parentOf(ctx)
  const known = trace.getSpanContext(ctx) !== undefined
  return Effect.updateContext(effect, (context: Context.Context<R>) => {
    let next = Context.add(Context.add(context, Tracer.ParentSpan, parent), Tracer.Tracer, tracer)
    if (known) {
      const base = Current.baseOf(Context.get(context as Context.Context<never>, References.CurrentLogAnnotations))
      next = Context.add(next, References.CurrentLogAnnotations, { ...base, trace_id: parent.traceId, span_id: parent.spanId })
    }
    return (extra === undefined ? next : extra(next as Context.Context<never>)) as Context.Context<R>
  })
}
