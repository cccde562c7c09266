/**
 * What travels between a client and a runner: a run's summary, the typed errors a
 * runner answers with, and the messages of the `HooklineRun` entity. Everything here is
 * a Schema, so it crosses the socket and the message table as JSON, and a reply read
 * back is decoded before anyone uses it.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { ClusterSchema } from "effect/cluster"
import { Rpc } from "effect/rpc"

/** Bounds of what a client sends (a message is untrusted until the agent checks it). */
const bounds = { agentName: 256, input: 1_000_000, decisions: 1_024 } as const

const bounded = (max: number) => Schema.String.check(Schema.isMaxLength(max))

/**
 * A call a suspended run waits on.
 *
 * @since 0.1.0
 * @category models
 */
export const PendingCall = Schema.Struct({
  toolCallId: Schema.String,
  name: Schema.String,
  arguments: Schema.Unknown,
  reason: Schema.String,
})

/**
 * @since 0.1.0
 * @category models
 */
export type PendingCall = typeof PendingCall.Type

/**
 * What a client learns of a run: its status, why it stopped, what it waits on, and the
 * last assistant text. The full state is in the store (`RunStore.load`).
 *
 * @since 0.1.0
 * @category models
 */
export const RunSummary = Schema.Struct({
  runId: Schema.String,
  agent: Schema.String,
  status: Schema.Literals(["pending", "running", "suspended", "completed", "stopped", "failed"]),
  stopReason: Schema.optional(Schema.String),
  pending: Schema.Array(PendingCall),
  text: Schema.optional(Schema.String),
  steps: Schema.Number,
})

/**
 * @since 0.1.0
 * @category models
 */
export type RunSummary = typeof RunSummary.Type

/**
 * The run names an agent this runner has not registered: the run is kept (its state
 * stored, with the agent's name), for a runner that has it.
 *
 * @since 0.1.0
 * @category errors
 */
export class UnknownAgent extends Schema.TaggedError<UnknownAgent>()("UnknownAgent", { runId: Schema.String, agent: Schema.String }) {
  override get message(): string {
    return `run ${JSON.stringify(this.runId)} names agent ${JSON.stringify(this.agent)}, which this runner does not have`
  }
}

/**
 * The run's checkpoint came from an agent of that name with other tools (names or JSON
 * Schemas): it is not resumed with these, and it is kept as it is.
 *
 * @since 0.1.0
 * @category errors
 */
export class ToolSetMismatch extends Schema.TaggedError<ToolSetMismatch>()("ToolSetMismatch", { runId: Schema.String, agent: Schema.String }) {
  override get message(): string {
    return `run ${JSON.stringify(this.runId)} was stored by agent ${JSON.stringify(this.agent)} with another tool set than this runner's`
  }
}

/**
 * No run of that id is stored (yet: its Start may not have been handled).
 *
 * @since 0.1.0
 * @category errors
 */
export class RunNotFound extends Schema.TaggedError<RunNotFound>()("RunNotFound", { runId: Schema.String }) {
  override get message(): string {
    return `no run ${JSON.stringify(this.runId)} is stored`
  }
}

/**
 * The run refused what it was given (a decision that does not fit, a Start naming
 * another agent than the stored run's): `reason` is the agent's or store's error tag.
 *
 * @since 0.1.0
 * @category errors
 */
export class RunRejected extends Schema.TaggedError<RunRejected>()("RunRejected", {
  runId: Schema.String,
  reason: Schema.String,
  detail: Schema.String,
}) {
  override get message(): string {
    return `run ${JSON.stringify(this.runId)} refused the request (${this.reason}): ${this.detail}`
  }
}

/**
 * What a run's messages fail with.
 *
 * @since 0.1.0
 * @category errors
 */
export const RunError = Schema.Union([UnknownAgent, ToolSetMismatch, RunNotFound, RunRejected])

/**
 * @since 0.1.0
 * @category errors
 */
export type RunError = UnknownAgent | ToolSetMismatch | RunNotFound | RunRejected

/**
 * Starts the run (persisted, one per run id: a resend gets the stored reply). Its reply
 * is the run's summary when it ends or suspends.
 *
 * @since 0.1.0
 * @category messages
 */
export const Start = Rpc.make("Start", {
  payload: { agent: bounded(bounds.agentName), input: bounded(bounds.input) },
  success: RunSummary,
  error: RunError,
  primaryKey: () => "start",
}).annotate(ClusterSchema.Persisted, true)

/**
 * A decision as sent: checked by the agent (`Decision.validate`) before anything runs.
 */
const DecisionPayload = Schema.Unknown

/**
 * The key of a Resume: its decisions' kinds and call ids (a resend of the same
 * decisions gets the stored reply; a repeat after that is a no-op in the agent).
 */
const resumeKey = (decisions: ReadonlyArray<unknown>): string =>
  decisions.map((d) => {
    const o = (typeof d === "object" && d !== null ? d : {}) as { readonly _tag?: unknown; readonly toolCallId?: unknown }
    return `${String(o._tag).slice(0, 16)}:${String(o.toolCallId).slice(0, 128)}`
  }).join(",").slice(0, 4_096)

/**
 * Goes on with a suspended run with a person's decisions (persisted).
 *
 * @since 0.1.0
 * @category messages
 */
export const Resume = Rpc.make("Resume", {
  payload: { decisions: Schema.Array(DecisionPayload).check(Schema.isMaxLength(bounds.decisions)) },
  success: RunSummary,
  error: RunError,
  primaryKey: (p) => `resume:${resumeKey(p.decisions)}`,
}).annotate(ClusterSchema.Persisted, true)

/**
 * The run's summary as stored (volatile; answers while the run is in flight).
 *
 * @since 0.1.0
 * @category messages
 */
export const Status = Rpc.make("Status", { success: RunSummary, error: RunError })

/**
 * The longest a `Result` waits on its runner (`wait`), in milliseconds.
 *
 * @since 0.1.0
 * @category constants
 */
export const maxResultWait = 60_000

/**
 * The run's summary once no Start or Resume of it is queued or in flight on its owner
 * (volatile; it waits behind them, without holding the run's other messages back). A run
 * not stored yet, or stored running with no Start or Resume here (handed over, queued
 * elsewhere), is waited for up to `wait` milliseconds (default 0) for one to come; then
 * it answers what the run is (`RunNotFound` for a run not stored). A runner shutting down
 * interrupts it rather than waiting for it (the client asks the next owner).
 *
 * @since 0.1.0
 * @category messages
 */
export const Result = Rpc.make("Result", {
  payload: { wait: Schema.optional(Schema.Number.check(Schema.isInt(), Schema.isBetween({ minimum: 0, maximum: maxResultWait }))) },
  success: RunSummary,
  error: RunError,
}).annotate(ClusterSchema.InterruptOnTermination, true)

/**
 * Cancels the run: stored first (a later Start, Resume or redelivery honours it), then
 * the run in flight is aborted; a queued or suspended run is stopped in the store.
 * Answers while the run is in flight, with the run's summary, or `null` when no run of
 * that id is stored yet (its Start, when it comes, stores it stopped).
 *
 * @since 0.1.0
 * @category messages
 */
export const Cancel = Rpc.make("Cancel", { success: Schema.NullOr(RunSummary), error: RunError })
