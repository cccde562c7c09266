// Whether a value may be kept by reference instead of as JSON text: a store that keeps
// it (the in-memory one) writes its text only when it is read, and a deferred journal
// entry only when it is flushed. Vouched for only when the plain path (encode, then the
// codec's guard and the counting walk of `Checkpoint.encodeChecked`, `JournalEntry.encode`)
// would take its own fast path and accept: the codec's guard passes, and the value is
// frozen plain JSON data whose text, however counted, is within a third of `maxBytes`,
// within `maxItems` and `maxDepth` (the encoded form leaves keys out and never adds
// data, so it is within them too). Anything else goes the plain way, which refuses
// exactly what loading would refuse (docs/decisions.md, "MemoryStore step cost").
import { Codecs, Json } from "@hookline/core"
import type * as t from "io-ts"
import * as Checkpoint from "../Checkpoint.js"
import { isAnswer, isExecution } from "./answerGuard.js"
import { isDelta } from "./deltaGuard.js"
import * as FrozenJson from "./frozenJson.js"

const maxItems = Checkpoint.limits.maxItems as number
const maxBytes = Checkpoint.limits.maxBytes as number

/** A measure within the bounds below which the plain path answers without parsing. */
export const measure = (): FrozenJson.Measure => FrozenJson.make(maxItems, Json.maxDepth, Math.floor(maxBytes / 3))

/** The codec's guard, which reads (and may throw on) a hostile value: false then. */
export const guarded = <A>(codec: t.Type<A, unknown, unknown>, value: unknown): boolean => {
  try {
    // A model answer's and a tool result's guards read by name (internal/answerGuard.ts), answering as the codecs'.
    const c: unknown = codec
    return c === Codecs.InferenceResponse ? isAnswer(value) : c === Codecs.ToolExecution ? isExecution(value) : codec.is(value)
  } catch {
    return false
  }
}

/** Whether `value` of `codec` may be kept by reference (its measure is kept until the next checkpoint's). */
export const vouched = <A>(measured: FrozenJson.Measure, codec: t.Type<A, unknown, unknown>, value: A): boolean => {
  if (measured.keep(value) < 0 || !guarded(codec, value)) return false
  // The step's checkpoint holds the same value: its guard need not check it again.
  measured.check(value, codec)
  return true
}

// A delta and the tails in it are the writer's own, made by `Checkpoint.diff` for this
// write: frozen here so that their text, written later, is the text of now.
const freezeTail = (tail: Checkpoint.Tail<unknown> | undefined): void => {
  if (tail !== undefined) Object.freeze(tail)
}

/** Whether checkpoint `delta` of run `runId` may be kept by reference; it is frozen when it may. */
export const vouchedDelta = (measured: FrozenJson.Measure, runId: string, delta: Checkpoint.Delta): boolean => {
  if (delta.v !== Checkpoint.version || delta.id !== runId) return false
  freezeTail(delta.messages)
  freezeTail(delta.steps)
  freezeTail(delta.errors)
  Object.freeze(delta)
  // The delta and its tails are plain objects `diff` made for this write: only what they hold is asked.
  if (measured.bytesOwn(delta, delta.messages, delta.steps, delta.errors) < 0) return false
  // `DeltaCodec.is`, less what this step's journal entries checked (internal/deltaGuard.ts).
  try {
    return isDelta(delta, measured.checked)
  } catch {
    return false
  }
}
