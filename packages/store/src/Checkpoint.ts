/**
 * Delta checkpoints. A run's history is append-only, so a checkpoint holds only what
 * changed since the previous one: the new messages, the new steps, the execution
 * fields that changed. Loading folds the deltas back into the state that was saved.
 * Every delta carries the format version `v`; what comes back from a store is
 * decoded with the core's io-ts codecs, and a bad row is a `DecodeFailed` naming its
 * path (`checkpoints[3].messages.items[0].role`).
 *
 * @since 0.1.0
 */
import { AgentState, AppendLog, Codecs, Json, type Message, type Step, type StopSignal } from "@hookline/core"
import { AgentError } from "@hookline/core"
import type { InferenceRequest, Usage } from "@hookline/core"
import { Result } from "effect"
import * as t from "io-ts"
import * as Envelope from "./Envelope.js"
import { detailOf } from "./internal/decodeDetail.js"
import { deltaFields, text } from "./internal/deltaFields.js"
import { isPlainWithin } from "./internal/plainJson.js"
import * as StoreError from "./StoreError.js"

/**
 * The format version this library writes and reads.
 *
 * @since 0.1.0
 * @category constants
 */
export const version = 2

/**
 * The format versions this library reads: version 1 (written by 0.1.0 before the
 * envelope) is migrated to version 2 as it loads (`migrate`).
 *
 * @since 0.1.0
 * @category constants
 */
export const versions: ReadonlyArray<number> = Object.freeze([1, 2])

/**
 * The bounds of one checkpoint, in one place: `rebuild` refuses a stored row past them
 * (it is untrusted input), and a writer refuses to write one (`encodeChecked`), so that
 * what a store acknowledged always loads back. The JSON codec's own bounds: at most
 * 100,000 items in one array or object, 64 MiB of UTF-8 per checkpoint, JSON values
 * nested at most 512 deep.
 *
 * @since 0.1.0
 * @category constants
 */
export const limits: Codecs.DecodeOptions = Object.freeze({ ...Codecs.defaultLimits })

/**
 * Items appended to a list from index `from`; a `from` below the stored length
 * replaces the tail (a hook that rewrote the history, a new execution).
 *
 * @since 0.1.0
 * @category models
 */
export interface Tail<A> {
  readonly from: number
  readonly items: ReadonlyArray<A>
}

/**
 * What changed in a state since the previous checkpoint; absent fields did not change.
 * `null` clears an optional field.
 *
 * @since 0.1.0
 * @category models
 */
export interface Delta {
  readonly v: typeof version
  readonly id: string
  readonly parentId?: string | null | undefined
  readonly systemPrompt?: string | undefined
  readonly responseFormat?: InferenceRequest.ResponseFormat | null | undefined
  readonly contextMetadata?: Json.Metadata | undefined
  readonly metadata?: Json.Metadata | undefined
  readonly messages?: Tail<Message> | undefined
  readonly steps?: Tail<Step> | undefined
  readonly status?: AgentState.ExecutionStatus | undefined
  readonly startedAt?: number | null | undefined
  readonly runningSince?: number | null | undefined
  readonly completedAt?: number | null | undefined
  readonly stopSignals?: ReadonlyArray<StopSignal> | undefined
  readonly continuationRequested?: boolean | undefined
  readonly stopReason?: string | null | undefined
  readonly executionMetadata?: Json.Metadata | undefined
  readonly usage?: Usage.Usage | undefined
  readonly errors?: Tail<AgentError.AgentError> | undefined
  readonly pendingCalls?: ReadonlyArray<AgentState.PendingCall> | null | undefined
  readonly suspendedStep?: Step | null | undefined
  /** The run's envelope (format version 2), whole, when it changed. */
  readonly envelope?: Envelope.Envelope | undefined
}

/**
 * A delta of format version 1: a version 2 delta without the envelope.
 *
 * @since 0.1.0
 * @category models
 */
export interface DeltaV1 extends Omit<Delta, "v" | "envelope"> {
  readonly v: 1
}

/**
 * The codec of a delta, version 2 (without the version check, which comes first).
 *
 * @since 0.1.0
 * @category codecs
 */
// Annotated: the declaration build cannot name the inferred io-ts type.
export const DeltaCodec: t.Type<Delta, unknown, unknown> = t.intersection([
  t.type({ v: t.literal(version), id: text }),
  t.partial({ ...deltaFields, envelope: Envelope.EnvelopeCodec }),
]) as unknown as t.Type<Delta, unknown, unknown>

/**
 * The codec of a delta, version 1, as 0.1.0 wrote it (read only: `migrate` makes it a
 * version 2 delta).
 *
 * @since 0.1.0
 * @category codecs
 */
export const DeltaV1Codec: t.Type<DeltaV1, unknown, unknown> = t.intersection([
  t.type({ v: t.literal(1), id: text }),
  t.partial(deltaFields),
]) as unknown as t.Type<DeltaV1, unknown, unknown>

/**
 * The one migration: a version 1 delta as version 2 (no envelope: the run's envelope
 * is empty until a version 2 checkpoint writes one).
 *
 * @since 0.1.0
 * @category decoding
 */
export const migrate = (delta: DeltaV1): Delta => ({ ...delta, v: version })

// The items of `next` after those of `prev`, when `next` extends `prev`; else all of
// `next`. Items are frozen and shared between snapshots, so the same reference at the
// first and at the last shared index means an append (a hook that rewrites the
// history makes new logs, which fail this check and are written whole).
const tailOf = <A>(prev: AppendLog<A>, next: AppendLog<A>): Tail<A> | undefined => {
  if (prev === next) return undefined
  const n = prev.length
  const extended = next.length >= n && (n === 0 || (next.at(0) === prev.at(0) && next.at(n - 1) === prev.at(n - 1)))
  if (extended) return next.length === n ? undefined : { from: n, items: next.slice(n) }
  return { from: 0, items: next.toArray() }
}

const arrayTailOf = <A>(prev: ReadonlyArray<A>, next: ReadonlyArray<A>): Tail<A> | undefined => {
  if (prev === next) return undefined
  const n = prev.length
  const extended = next.length >= n && (n === 0 || (next[0] === prev[0] && next[n - 1] === prev[n - 1]))
  if (extended) return next.length === n ? undefined : { from: n, items: next.slice(n) }
  return { from: 0, items: next }
}

const orNull = <A>(a: A | undefined): A | null => (a === undefined ? null : a)

/**
 * The delta from `prev` (the last checkpointed state, or nothing) to `next`;
 * `undefined` when nothing changed. Cost and size are those of the change, not of
 * the history.
 *
 * @since 0.1.0
 * @category constructors
 */
export const diff = (
  prev: AgentState | undefined,
  next: AgentState,
  envelopes?: { readonly prev?: Envelope.Envelope | undefined; readonly next?: Envelope.Envelope | undefined },
): Delta | undefined => {
  const delta: { -readonly [K in keyof Delta]: Delta[K] } = { v: version, id: next.id }
  let changed = prev === undefined
  const c0 = prev?.context
  const c1 = next.context
  const e0 = prev?.execution
  const e1 = next.execution
  if (prev === undefined ? next.parentId !== undefined : prev.parentId !== next.parentId) {
    delta.parentId = orNull(next.parentId)
    changed = true
  }
  if (c0 === undefined || c0.systemPrompt !== c1.systemPrompt) (delta.systemPrompt = c1.systemPrompt), (changed = true)
  if (c0 === undefined ? c1.responseFormat !== undefined : c0.responseFormat !== c1.responseFormat) {
    delta.responseFormat = orNull(c1.responseFormat)
    changed = true
  }
  if (c0 === undefined || c0.metadata !== c1.metadata) (delta.contextMetadata = c1.metadata), (changed = true)
  if (prev === undefined || prev.metadata !== next.metadata) (delta.metadata = next.metadata), (changed = true)
  const messages = c0 === undefined ? { from: 0, items: c1.messages.toArray() } : tailOf(c0.messages, c1.messages)
  if (messages !== undefined) (delta.messages = messages), (changed = true)
  const steps = e0 === undefined ? { from: 0, items: e1.steps.toArray() } : tailOf(e0.steps, e1.steps)
  if (steps !== undefined) (delta.steps = steps), (changed = true)
  if (e0 === undefined || e0.status !== e1.status) (delta.status = e1.status), (changed = true)
  if (e0 === undefined ? e1.startedAt !== undefined : e0.startedAt !== e1.startedAt) {
    delta.startedAt = orNull(e1.startedAt)
    changed = true
  }
  if (e0 === undefined ? e1.runningSince !== undefined : e0.runningSince !== e1.runningSince) {
    delta.runningSince = orNull(e1.runningSince)
    changed = true
  }
  if (e0 === undefined ? e1.completedAt !== undefined : e0.completedAt !== e1.completedAt) {
    delta.completedAt = orNull(e1.completedAt)
    changed = true
  }
  if (e0 === undefined || e0.stopSignals !== e1.stopSignals) (delta.stopSignals = e1.stopSignals), (changed = true)
  if (e0 === undefined || e0.continuationRequested !== e1.continuationRequested) {
    delta.continuationRequested = e1.continuationRequested
    changed = true
  }
  if (e0 === undefined || e0.usage !== e1.usage) (delta.usage = e1.usage), (changed = true)
  const errors = e0 === undefined ? { from: 0, items: e1.errors } : arrayTailOf(e0.errors, e1.errors)
  if (errors !== undefined) (delta.errors = errors), (changed = true)
  if (e0 === undefined ? e1.stopReason !== undefined : e0.stopReason !== e1.stopReason) {
    delta.stopReason = orNull(e1.stopReason)
    changed = true
  }
  if (e0 === undefined ? e1.metadata !== AgentState.emptyExecution.metadata : e0.metadata !== e1.metadata) {
    delta.executionMetadata = e1.metadata
    changed = true
  }
  if (e0 === undefined ? e1.pendingCalls !== undefined : e0.pendingCalls !== e1.pendingCalls) {
    delta.pendingCalls = orNull(e1.pendingCalls)
    changed = true
  }
  if (e0 === undefined ? e1.suspendedStep !== undefined : e0.suspendedStep !== e1.suspendedStep) {
    delta.suspendedStep = orNull(e1.suspendedStep)
    changed = true
  }
  const n0 = envelopes?.prev
  const n1 = envelopes?.next
  if (n1 !== undefined && n1 !== n0 && !Envelope.equals(n0 ?? Envelope.empty, n1)) (delta.envelope = n1), (changed = true)
  return changed ? delta : undefined
}

/**
 * A delta as JSON text, the form a store keeps.
 *
 * @since 0.1.0
 * @category encoding
 */
export const toJson = (delta: Delta): string => JSON.stringify(DeltaCodec.encode(delta as t.TypeOf<typeof DeltaCodec>))

/**
 * One stored checkpoint: its sequence number and the delta's JSON text.
 *
 * @since 0.1.0
 * @category models
 */
export interface Row {
  readonly seq: number
  readonly body: string
}

// The fold's accumulator: plain arrays, made into a state once at the end.
interface Acc {
  id: string
  parentId: string | undefined
  systemPrompt: string
  responseFormat: InferenceRequest.ResponseFormat | undefined
  contextMetadata: Json.Metadata
  metadata: Json.Metadata
  messages: Array<Message>
  steps: Array<Step>
  status: AgentState.ExecutionStatus
  startedAt: number | undefined
  runningSince: number | undefined
  completedAt: number | undefined
  stopSignals: ReadonlyArray<StopSignal>
  continuationRequested: boolean
  stopReason: string | undefined
  executionMetadata: Json.Metadata
  usage: Usage.Usage
  errors: Array<AgentError.AgentError>
  pendingCalls: ReadonlyArray<AgentState.PendingCall> | undefined
  suspendedStep: Step | undefined
  envelope: Envelope.Envelope
}

const applyTail = <A>(list: Array<A>, tail: Tail<A> | undefined, runId: string, at: string): Result.Result<void, StoreError.DecodeFailed> => {
  if (tail === undefined) return Result.void
  if (tail.from > list.length) {
    return Result.fail(StoreError.decodeFailed(runId, `${at}.from`, `a gap: ${tail.from} is past the ${list.length} items stored before it`))
  }
  list.length = tail.from
  for (const item of tail.items) list.push(item)
  return Result.void
}

interface Bad {
  readonly path: string
  readonly detail: string
}

// One checkpoint's text as a delta of run `runId`, within `limits`; a failure's path is
// within the checkpoint.
const decodeBody = (runId: string, body: string): Result.Result<Delta, Bad> => {
  if (typeof body !== "string") return Result.fail({ path: "", detail: "expected the checkpoint's JSON text" })
  const json = Codecs.fromJson(t.unknown, body, limits)
  if (Result.isFailure(json)) {
    const detail = detailOf(json.failure)
    return Result.fail({ path: "", detail: detail.includes("maxBytes") ? detail : `not JSON: ${detail}` })
  }
  const parsed = json.success
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return Result.fail({ path: "", detail: "expected a checkpoint object" })
  }
  const v = (parsed as { v?: unknown }).v
  if (v !== version && v !== 1) {
    return Result.fail({ path: "v", detail: `unknown format version ${v === undefined ? "(none)" : Json.excerpt(v, 60)}: this library reads versions ${versions.join(" and ")}` })
  }
  const decoded = v === 1
    ? Result.map(Codecs.decode(DeltaV1Codec, parsed, limits), migrate)
    : Codecs.decode(DeltaCodec, parsed, limits)
  if (Result.isFailure(decoded)) return Result.fail({ path: decoded.failure.path, detail: detailOf(decoded.failure) })
  // Excerpted, as every value an error shows: the id is the row's, up to the string bound.
  if (decoded.success.id !== runId) return Result.fail({ path: "id", detail: `the checkpoint is of run ${Json.excerpt(decoded.success.id, 200)}` })
  return Result.succeed(decoded.success)
}

const decodeRow = (runId: string, row: Row, i: number): Result.Result<Delta, StoreError.DecodeFailed> => {
  const at = `checkpoints[${i}]`
  return Result.mapError(decodeBody(runId, row.body), ({ path, detail }) => StoreError.decodeFailed(runId, path === "" ? at : `${at}.${path}`, detail))
}

/**
 * Checks a checkpoint's JSON text the way a store's row is checked when it is loaded
 * (parsed, then decoded within `limits`): text that would not load back is a
 * `CheckpointRefused` naming the path and the bound. `seq` is the checkpoint's sequence
 * number, for the error. `encodeChecked` runs this only for a delta its fast check
 * cannot vouch for; a store written by hand may run it on text it was handed.
 *
 * @since 0.1.0
 * @category encoding
 */
export const checkBody = (runId: string, seq: number, body: string): Result.Result<string, StoreError.CheckpointRefused> => {
  const checked = decodeBody(runId, body)
  return Result.isFailure(checked)
    ? Result.fail(StoreError.checkpointRefused(runId, seq, checked.failure.path, checked.failure.detail))
    : Result.succeed(body)
}

const encodeFailed = (runId: string, seq: number, cause: unknown): StoreError.CheckpointRefused => {
  // JSON.stringify throws past the longest string the engine makes.
  const detail = cause instanceof RangeError ? `too long for one string (${cause.message})` : AgentError.messageOf(cause)
  return StoreError.checkpointRefused(runId, seq, "", `${detail}; at most ${limits.maxBytes} bytes load back (the maxBytes limit)`)
}

const maxItems = limits.maxItems as number
const maxBytes = limits.maxBytes as number

/**
 * A delta as JSON text, checked so that nothing unreadable is ever written: text that
 * would not load back (past a bound of `limits`, or too long for a string at all) is a
 * `CheckpointRefused` naming the path and the bound, as loading it would name them. `seq`
 * is the checkpoint's sequence number, for the error.
 *
 * On the write path, so it does not parse what it just wrote: a delta the codec vouches
 * for (`DeltaCodec.is`), of this run and version, whose encoded form is plain JSON data
 * within the bounds (a counting walk that copies nothing) and whose text is short enough
 * to be within `maxBytes` however it is counted, loads back equal. Anything else is
 * checked the slow way (`checkBody`), which answers exactly as loading would.
 *
 * @since 0.1.0
 * @category encoding
 */
export const encodeChecked = (runId: string, seq: number, delta: Delta): Result.Result<string, StoreError.CheckpointRefused> => {
  let body: string
  let encoded: unknown
  try {
    encoded = DeltaCodec.encode(delta as t.TypeOf<typeof DeltaCodec>)
    body = JSON.stringify(encoded)
  } catch (cause) {
    return Result.fail(encodeFailed(runId, seq, cause))
  }
  if (typeof body !== "string") return checkBody(runId, seq, body)
  const vouched = body.length * 3 <= maxBytes && delta.v === version && delta.id === runId && isPlainWithin(encoded, maxItems, Json.maxDepth) &&
    isDelta(delta)
  return vouched ? Result.succeed(body) : checkBody(runId, seq, body)
}

// The codec's guard, which reads (and may throw on) a hostile value: false then.
const isDelta = (delta: Delta): boolean => {
  try {
    return DeltaCodec.is(delta)
  } catch {
    return false
  }
}

/**
 * Folds stored checkpoints (oldest first) into the state they describe; no rows is no
 * state. A row of an unknown version, a corrupt row or a gap in the sequence is a
 * `DecodeFailed` naming its path.
 *
 * @since 0.1.0
 * @category decoding
 */
export const rebuild = (runId: string, rows: ReadonlyArray<Row>): Result.Result<AgentState | undefined, StoreError.DecodeFailed> =>
  Result.map(restore(runId, rows), (restored) => restored?.state)

/**
 * A run as its checkpoints describe it: its state and its envelope.
 *
 * @since 0.1.0
 * @category models
 */
export interface Restored {
  readonly state: AgentState
  readonly envelope: Envelope.Envelope
}

/**
 * `rebuild`, with the run's envelope (empty for a run stored before format version 2).
 *
 * @since 0.1.0
 * @category decoding
 */
export const restore = (runId: string, rows: ReadonlyArray<Row>): Result.Result<Restored | undefined, StoreError.DecodeFailed> => {
  if (rows.length === 0) return Result.succeed(undefined)
  const acc: Acc = {
    id: runId,
    parentId: undefined,
    systemPrompt: "",
    responseFormat: undefined,
    contextMetadata: {},
    metadata: {},
    messages: [],
    steps: [],
    status: "pending",
    startedAt: undefined,
    runningSince: undefined,
    completedAt: undefined,
    stopSignals: [],
    continuationRequested: false,
    usage: AgentState.emptyExecution.usage,
    errors: [],
    stopReason: undefined,
    executionMetadata: AgentState.emptyExecution.metadata,
    pendingCalls: undefined,
    suspendedStep: undefined,
    envelope: Envelope.empty,
  }
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i] as Row
    if (row.seq !== i + 1) {
      return Result.fail(StoreError.decodeFailed(runId, `checkpoints[${i}].seq`, `expected sequence number ${i + 1}, got ${Json.excerpt(row.seq, 60)}`))
    }
    const decoded = decodeRow(runId, row, i)
    if (Result.isFailure(decoded)) return Result.fail(decoded.failure)
    const d = decoded.success
    if (d.parentId !== undefined) acc.parentId = d.parentId ?? undefined
    if (d.systemPrompt !== undefined) acc.systemPrompt = d.systemPrompt
    if (d.responseFormat !== undefined) acc.responseFormat = d.responseFormat ?? undefined
    if (d.contextMetadata !== undefined) acc.contextMetadata = d.contextMetadata
    if (d.metadata !== undefined) acc.metadata = d.metadata
    const applied = [
      applyTail(acc.messages, d.messages, runId, `checkpoints[${i}].messages`),
      applyTail(acc.steps, d.steps, runId, `checkpoints[${i}].steps`),
      applyTail(acc.errors, d.errors, runId, `checkpoints[${i}].errors`),
    ].find(Result.isFailure)
    if (applied !== undefined && Result.isFailure(applied)) return Result.fail(applied.failure)
    if (d.status !== undefined) acc.status = d.status
    if (d.startedAt !== undefined) acc.startedAt = d.startedAt ?? undefined
    if (d.runningSince !== undefined) acc.runningSince = d.runningSince ?? undefined
    if (d.completedAt !== undefined) acc.completedAt = d.completedAt ?? undefined
    if (d.stopSignals !== undefined) acc.stopSignals = d.stopSignals
    if (d.continuationRequested !== undefined) acc.continuationRequested = d.continuationRequested
    if (d.stopReason !== undefined) acc.stopReason = d.stopReason ?? undefined
    if (d.executionMetadata !== undefined) acc.executionMetadata = d.executionMetadata
    if (d.usage !== undefined) acc.usage = d.usage
    if (d.pendingCalls !== undefined) acc.pendingCalls = d.pendingCalls ?? undefined
    if (d.suspendedStep !== undefined) acc.suspendedStep = d.suspendedStep ?? undefined
    if (d.envelope !== undefined) acc.envelope = d.envelope
  }
  const base = AgentState.make({ id: acc.id, parentId: acc.parentId, metadata: acc.metadata })
  const state = AgentState.withExecution(
    AgentState.withContext(base, {
      systemPrompt: acc.systemPrompt,
      responseFormat: acc.responseFormat,
      messages: AppendLog.fromIterable(acc.messages),
      metadata: acc.contextMetadata,
    }),
    {
      status: acc.status,
      startedAt: acc.startedAt,
      runningSince: acc.runningSince,
      completedAt: acc.completedAt,
      steps: AppendLog.fromIterable(acc.steps),
      stopSignals: Object.freeze([...acc.stopSignals]),
      continuationRequested: acc.continuationRequested,
      stopReason: acc.stopReason,
      metadata: acc.executionMetadata,
      usage: acc.usage,
      errors: Object.freeze([...acc.errors]),
      ...(acc.pendingCalls === undefined ? {} : { pendingCalls: acc.pendingCalls }),
      ...(acc.suspendedStep === undefined ? {} : { suspendedStep: acc.suspendedStep }),
    },
  )
  return Result.succeed({ state: Codecs.rememberBuilt(state), envelope: acc.envelope })
}
