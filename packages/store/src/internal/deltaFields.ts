// The fields of a checkpoint's delta and their codecs: `Checkpoint.DeltaCodec` is built
// from them, and so is the delta's guard that skips what a journal entry of the same step
// checked already (internal/deltaGuard.ts), so the two cannot drift apart.
import { Codecs, Json } from "@hookline/core"
import * as t from "io-ts"

/** The index of a tail's first item: a safe integer, at least 0. */
export const index = t.refinement(t.number, (n) => Number.isSafeInteger(n) && n >= 0, "index")

/** The items appended from `from` on. */
export const tail = <A, O>(item: t.Type<A, O, unknown>) => t.type({ from: index, items: t.readonlyArray(item) })

// `null` clears the field; encoding does not ask the codec whether a value is its own
// (a union would, and the core codecs' `is` is strict about frozen shapes).
const nullable = <A, O>(codec: t.Type<A, O, unknown>): t.Type<A | null, O | null, unknown> =>
  new t.Type<A | null, O | null, unknown>(
    `${codec.name} | null`,
    (u): u is A | null => u === null || codec.is(u),
    (u, c) => (u === null ? t.success(null) : codec.validate(u, c)),
    (a) => (a === null ? null : codec.encode(a)),
  )

const finite = t.refinement(t.number, Number.isFinite, "finite number")

/**
 * A checkpoint's own plain strings (the run's id, the prompt, the parent's id, the stop
 * reason), held to the decode's `maxStringLength` as core's codecs hold every string: the
 * store's load and write check use `Checkpoint.limits` (the default), and a caller's
 * decode of `Checkpoint.DeltaCodec` under a tighter bound holds these fields to it too, as
 * it holds the messages. Core's bounded string codec is not exported; `Codecs.JsonValue`
 * reads a string under the decode's bound and fails with core's own message, so its
 * answer for a string is that codec's. The guard (`is`) holds the default, as core's do.
 */
export const text: t.Type<string, string, unknown> = new t.Type<string, string, unknown>(
  "string",
  (u): u is string => typeof u === "string" && u.length <= Json.maxStringLength,
  (u, c) => (typeof u === "string" ? (Codecs.JsonValue.validate(u, c) as t.Validation<string>) : t.failure(u, c)),
  t.identity,
)

type DeltaField =
  | "parentId" | "systemPrompt" | "responseFormat" | "contextMetadata" | "metadata" | "messages" | "steps"
  | "status" | "startedAt" | "runningSince" | "completedAt" | "stopSignals" | "continuationRequested"
  | "stopReason" | "executionMetadata" | "usage" | "errors" | "pendingCalls" | "suspendedStep"

/**
 * A delta's fields past `v` and `id` (all optional), the envelope aside (version 2 only).
 * Typed by name only: the declaration build cannot name core's inferred codec types, and
 * `Checkpoint`'s codecs state their own types.
 */
export const deltaFields: { readonly [K in DeltaField]: t.Mixed } = {
  parentId: nullable(text),
  systemPrompt: text,
  responseFormat: nullable(Codecs.ResponseFormat),
  contextMetadata: Codecs.Metadata,
  metadata: Codecs.Metadata,
  messages: tail(Codecs.Message),
  steps: tail(Codecs.Step),
  status: Codecs.ExecutionStatus,
  startedAt: nullable(finite),
  runningSince: nullable(finite),
  completedAt: nullable(finite),
  stopSignals: t.readonlyArray(Codecs.StopSignal),
  continuationRequested: t.boolean,
  stopReason: nullable(text),
  executionMetadata: Codecs.Metadata,
  usage: Codecs.Usage,
  errors: tail(Codecs.AgentError),
  pendingCalls: nullable(t.readonlyArray(Codecs.PendingCall)),
  suspendedStep: nullable(Codecs.Step),
}

