/**
 * A run's events as a client sees them from any process (`client.events(runId)`): each
 * committed step (`StepEnded`), a suspension (`Suspended`) and the run's end
 * (`RunEnded`), read from the run's checkpoints in the store the runners share. Each
 * event carries the cursor after it: `events(runId, { after: cursor })` goes on from
 * there, with no gap and no repeat, whichever runner owns the run meanwhile.
 *
 * @since 0.1.0
 */
import type { Step } from "@hookline/core"
import { Codecs } from "@hookline/core"
import { Data, Result, Schema } from "effect"
import { Rpc } from "effect/rpc"
import { RunError, RunSummary } from "./Protocol.js"

/**
 * The bounds of one batch of events a runner answers: at most `maxEvents` events (the
 * client asks for its `eventsBatch`), and steps of at most `maxBytes` of JSON together
 * (a single larger step still goes, alone; a step is bounded by the store's own
 * checkpoint bounds).
 *
 * @since 0.1.0
 * @category constants
 */
export const bounds = Object.freeze({ maxEvents: 256, maxBytes: 4 * 1024 * 1024, suspensionKey: 128 })

const count = Schema.Number.check(Schema.isInt(), Schema.isGreaterThanOrEqualTo(0))

/**
 * Where a stream of a run's events stands: the steps it gave, the suspension it gave
 * last (its key), whether it gave the run's end, and the checkpoint it had read all of
 * (0 when it had not: a runner answers an ask at that checkpoint from the run's head
 * alone). Pass an event's `cursor` back as it was given.
 *
 * @since 0.1.0
 * @category models
 */
export const EventCursor = Schema.Struct({
  steps: count,
  suspension: Schema.String.check(Schema.isMaxLength(bounds.suspensionKey)),
  ended: Schema.Boolean,
  seq: count,
})

/**
 * @since 0.1.0
 * @category models
 */
export type EventCursor = typeof EventCursor.Type

/**
 * The cursor before a run's first event.
 *
 * @since 0.1.0
 * @category constants
 */
export const start: EventCursor = Object.freeze({ steps: 0, suspension: "", ended: false, seq: 0 })

/**
 * An event as it crosses from a runner: a step as its JSON (decoded by the client with
 * the core codec, bounded, before anyone uses it).
 *
 * @since 0.1.0
 * @category models
 */
export const WireEvent = Schema.Union([
  Schema.TaggedStruct("StepEnded", { index: count, step: Schema.Unknown, cursor: EventCursor }),
  Schema.TaggedStruct("Suspended", { summary: RunSummary, cursor: EventCursor }),
  Schema.TaggedStruct("RunEnded", { summary: RunSummary, cursor: EventCursor }),
])

/**
 * @since 0.1.0
 * @category models
 */
export type WireEvent = typeof WireEvent.Type

/**
 * A runner's answer to one ask: the events after the asked cursor, and the cursor
 * after them (the asked one when there are none).
 *
 * @since 0.1.0
 * @category models
 */
export const EventBatch = Schema.Struct({
  events: Schema.Array(WireEvent).check(Schema.isMaxLength(bounds.maxEvents)),
  cursor: EventCursor,
})

/**
 * @since 0.1.0
 * @category models
 */
export type EventBatch = typeof EventBatch.Type

/**
 * The run's events after `after`, at most `max` (volatile, forked: answers while the run
 * is in flight, from the store, on whichever runner owns the run).
 *
 * @since 0.1.0
 * @category messages
 */
export const Events = Rpc.make("Events", {
  payload: { after: EventCursor, max: count.check(Schema.isBetween({ minimum: 1, maximum: bounds.maxEvents })) },
  success: EventBatch,
  error: RunError,
})

/**
 * A run's event as a client gets it. `StepEnded`: a committed step (`index` from 0, each
 * once, in order). `Suspended`: the run is stored suspended; `summary.pending` lists the
 * calls it waits on. `RunEnded`: the run ended (completed, stopped or failed), the last
 * event. Every event carries the cursor after it.
 *
 * @since 0.1.0
 * @category models
 */
export type RunEvent =
  | { readonly _tag: "StepEnded"; readonly runId: string; readonly index: number; readonly step: Step; readonly cursor: EventCursor }
  | { readonly _tag: "Suspended"; readonly runId: string; readonly summary: RunSummary; readonly cursor: EventCursor }
  | { readonly _tag: "RunEnded"; readonly runId: string; readonly summary: RunSummary; readonly cursor: EventCursor }

/**
 * A step a runner sent that does not decode as a step (a runner of another version, a
 * corrupt answer): `path` names the first bad value. The stream ends with it; nothing in
 * the run changed.
 *
 * @since 0.1.0
 * @category errors
 */
export class EventInvalid extends Data.TaggedError("EventInvalid")<{
  readonly runId: string
  readonly index: number
  readonly path: string
  readonly detail: string
}> {
  override get message(): string {
    return `step ${this.index} of run ${JSON.stringify(this.runId)} as a runner sent it is not a step (${this.detail})`
  }
}

/**
 * The client's event from a runner's, its step decoded (untrusted until then).
 *
 * @since 0.1.0
 * @category decoding
 */
export const decode = (runId: string, event: WireEvent): Result.Result<RunEvent, EventInvalid> => {
  if (event._tag !== "StepEnded") return Result.succeed({ ...event, runId })
  const step = Codecs.decode(Codecs.Step, event.step)
  return Result.isFailure(step)
    ? Result.fail(new EventInvalid({ runId, index: event.index, path: step.failure.path, detail: step.failure.message }))
    : Result.succeed({ _tag: "StepEnded", runId, index: event.index, step: step.success, cursor: event.cursor })
}

/**
 * Whether the event ends a stream: the run's end always, a suspension when asked.
 *
 * @since 0.1.0
 * @category guards
 */
export const isLast = (event: RunEvent, endAt: "end" | "suspension"): boolean =>
  event._tag === "RunEnded" || (event._tag === "Suspended" && endAt === "suspension")
