// W3C trace context (traceparent) to and from a span context; what a checkpoint's
// envelope keeps for a resumed run's span to link to.
import { type SpanContext, TraceFlags } from "@opentelemetry/api"

const pattern = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/
const allZero = /^0+$/

export const format = (sc: SpanContext): string =>
  `00-${sc.traceId}-${sc.spanId}-${(sc.traceFlags & 0xff).toString(16).padStart(2, "0")}`

/** A traceparent read from outside (a stored envelope): `undefined` unless well formed. */
export const parse = (traceparent: unknown): SpanContext | undefined => {
  if (typeof traceparent !== "string") return undefined
  const m = pattern.exec(traceparent)
  if (m === null || allZero.test(m[1]!) || allZero.test(m[2]!)) return undefined
  return { traceId: m[1]!, spanId: m[2]!, traceFlags: parseInt(m[3]!, 16) & TraceFlags.SAMPLED, isRemote: true }
}
