/**
 * What a stored run keeps beside its state, in its checkpoints (format version 2): named
 * fields for the code that runs it, never in `state.metadata` (which users see and edit).
 *
 * - `agent`: the name the run's agent is registered under (a cluster runs a stored run
 *   with the agent of that name).
 * - `toolSet`: the identity of the agent's tools, its tool names sorted with a hash of
 *   each tool's JSON Schema (`toolSetOf`): a run stored by an agent with other tools is
 *   told apart before it resumes.
 * - `traceContext`: the W3C trace context (`traceparent`, `tracestate`) the run's
 *   telemetry span had, for a resumed run's span to link to, in another process too.
 *
 * Every field is optional and bounded; a stored envelope is untrusted input, decoded with
 * `EnvelopeCodec` when the run loads.
 *
 * @since 0.1.0
 */
import type { JsonValue } from "@hookline/core"
import { Effect } from "effect"
import * as t from "io-ts"

/**
 * A W3C trace context (https://www.w3.org/TR/trace-context/).
 *
 * @since 0.1.0
 * @category models
 */
export interface TraceContext {
  /** `version-traceid-parentid-flags`, lowercase hex: `00-<32>-<16>-<2>`. */
  readonly traceparent: string
  /** Vendor entries, at most 512 characters. */
  readonly tracestate?: string | undefined
}

/**
 * One tool of a tool set: its name and `sha256:<hex>` of its JSON Schema (keys sorted).
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolIdentity {
  readonly name: string
  readonly schema: string
}

/**
 * The identity of an agent's tools: one entry per tool, sorted by name.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolSet {
  readonly tools: ReadonlyArray<ToolIdentity>
}

/**
 * A run's envelope; absent fields are not known.
 *
 * @since 0.1.0
 * @category models
 */
export interface Envelope {
  readonly agent?: string | undefined
  readonly toolSet?: ToolSet | undefined
  readonly traceContext?: TraceContext | undefined
}

/**
 * The bounds of an envelope, in one place.
 *
 * @since 0.1.0
 * @category constants
 */
export const bounds = Object.freeze({ agentName: 256, toolName: 256, tools: 1_024, tracestate: 512 })

const bounded = (max: number, name: string) =>
  t.refinement(t.string, (s) => s.length > 0 && s.length <= max, `${name} (1 to ${max} characters)`)

const traceparentPattern = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/
const allZero = /^0+$/
const isTraceparent = (s: string): boolean => {
  if (!traceparentPattern.test(s) || s.startsWith("ff")) return false
  const [, traceId = "", parentId = ""] = s.split("-")
  return !allZero.test(traceId) && !allZero.test(parentId)
}

const Traceparent = t.refinement(t.string, isTraceparent, "traceparent (00-<32 hex>-<16 hex>-<2 hex>)")
const Tracestate = t.refinement(
  t.string,
  (s) => s.length <= bounds.tracestate && /^[\x20-\x7e]*$/.test(s),
  `tracestate (at most ${bounds.tracestate} printable characters)`,
)

/**
 * @since 0.1.0
 * @category codecs
 */
// By hand: io-ts's intersection would put its member's index in a failure's path.
export const TraceContextCodec: t.Type<TraceContext, TraceContext, unknown> = new t.Type<TraceContext, TraceContext, unknown>(
  "TraceContext",
  (u): u is TraceContext => {
    if (typeof u !== "object" || u === null) return false
    const { traceparent, tracestate } = u as { readonly traceparent?: unknown; readonly tracestate?: unknown }
    return Traceparent.is(traceparent) && (tracestate === undefined || Tracestate.is(tracestate))
  },
  (u, c) => {
    const record = t.UnknownRecord.validate(u, c)
    if (record._tag === "Left") return record
    const { traceparent, tracestate } = record.right
    const parent = Traceparent.validate(traceparent, t.appendContext(c, "traceparent", Traceparent, traceparent))
    if (parent._tag === "Left") return parent
    if (tracestate === undefined) return t.success(Object.freeze({ traceparent: parent.right }))
    const state = Tracestate.validate(tracestate, t.appendContext(c, "tracestate", Tracestate, tracestate))
    if (state._tag === "Left") return state
    return t.success(Object.freeze({ traceparent: parent.right, tracestate: state.right }))
  },
  (a) => (a.tracestate === undefined ? { traceparent: a.traceparent } : { traceparent: a.traceparent, tracestate: a.tracestate }),
)

const ToolIdentityCodec = t.exact(t.type({
  name: bounded(bounds.toolName, "tool name"),
  schema: t.refinement(t.string, (s) => /^sha256:[0-9a-f]{64}$/.test(s), "schema hash (sha256:<64 hex>)"),
}))

/**
 * @since 0.1.0
 * @category codecs
 */
export const ToolSetCodec: t.Type<ToolSet, ToolSet, unknown> = t.exact(t.type({
  tools: t.refinement(
    t.readonlyArray(ToolIdentityCodec),
    (tools) => tools.length <= bounds.tools && tools.every((tool, i) => i === 0 || (tools[i - 1] as ToolIdentity).name < tool.name),
    `tools (at most ${bounds.tools}, sorted by name, each name once)`,
  ),
})) as unknown as t.Type<ToolSet, ToolSet, unknown>

/**
 * @since 0.1.0
 * @category codecs
 */
export const EnvelopeCodec: t.Type<Envelope, Envelope, unknown> = t.exact(t.partial({
  agent: bounded(bounds.agentName, "agent name"),
  toolSet: ToolSetCodec,
  traceContext: TraceContextCodec,
})) as unknown as t.Type<Envelope, Envelope, unknown>

/**
 * No field known.
 *
 * @since 0.1.0
 * @category constructors
 */
export const empty: Envelope = Object.freeze({})

/**
 * `next`'s fields over `previous`'s: a field `next` leaves out is kept.
 *
 * @since 0.1.0
 * @category combinators
 */
export const merge = (previous: Envelope | undefined, next: Envelope | undefined): Envelope => {
  if (next === undefined || next === previous) return previous ?? empty
  if (previous === undefined) return next
  return Object.freeze({
    ...previous,
    ...(next.agent === undefined ? {} : { agent: next.agent }),
    ...(next.toolSet === undefined ? {} : { toolSet: next.toolSet }),
    ...(next.traceContext === undefined ? {} : { traceContext: next.traceContext }),
  })
}

/**
 * Whether two envelopes hold the same fields.
 *
 * @since 0.1.0
 * @category predicates
 */
export const equals = (a: Envelope | undefined, b: Envelope | undefined): boolean =>
  a === b || JSON.stringify(EnvelopeCodec.encode(a ?? empty)) === JSON.stringify(EnvelopeCodec.encode(b ?? empty))

// JSON text with object keys sorted, so that one schema has one hash.
const canonical = (value: JsonValue): string => {
  if (value === null || typeof value !== "object") return JSON.stringify(value)
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`
  const keys = Object.keys(value).sort()
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, JsonValue>)[k] as JsonValue)}`).join(",")}}`
}

const sha256 = (text: string): Effect.Effect<string> =>
  Effect.promise(async () => {
    const digest = await globalThis.crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))
    return `sha256:${Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("")}`
  })

/**
 * The tool set of an agent's tools (anything with a `name` and a `jsonSchema`, as
 * `Tool.make` gives): sorted by name, each with the SHA-256 of its JSON Schema with keys
 * sorted. Two agents with the same names and schemas have equal tool sets.
 *
 * @since 0.1.0
 * @category constructors
 */
export const toolSetOfEffect = (
  tools: ReadonlyArray<{ readonly name: string; readonly jsonSchema: JsonValue }>,
): Effect.Effect<ToolSet> =>
  Effect.map(
    Effect.forEach(tools, (tool) => Effect.map(sha256(canonical(tool.jsonSchema)), (schema): ToolIdentity => Object.freeze({ name: tool.name, schema }))),
    (identities) => Object.freeze({ tools: Object.freeze([...identities].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) }),
  )

/**
 * @since 0.1.0
 * @category constructors
 */
export const toolSetOf = (tools: ReadonlyArray<{ readonly name: string; readonly jsonSchema: JsonValue }>): Promise<ToolSet> =>
  Effect.runPromise(toolSetOfEffect(tools))

/**
 * Whether two tool sets name the same tools with the same schemas.
 *
 * @since 0.1.0
 * @category predicates
 */
export const sameToolSet = (a: ToolSet, b: ToolSet): boolean =>
  a.tools.length === b.tools.length && a.tools.every((tool, i) => tool.name === b.tools[i]?.name && tool.schema === b.tools[i]?.schema)
