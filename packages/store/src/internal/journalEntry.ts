// A journal entry (a model answer, a tool result) as JSON text, written and read within
// the bounds a checkpoint is (`Checkpoint.limits`): what the journal acknowledges, it
// reads back.
import { AgentError, Codecs, Json } from "@hookline/core"
import { Effect, Result } from "effect"
import type * as t from "io-ts"
import * as Checkpoint from "../Checkpoint.js"
import * as StoreError from "../StoreError.js"
import { guarded, vouched } from "./byReference.js"
import { detailOf } from "./decodeDetail.js"
import type * as FrozenJson from "./frozenJson.js"
import { isPlainWithin } from "./plainJson.js"

const maxItems = Checkpoint.limits.maxItems as number
const maxBytes = Checkpoint.limits.maxBytes as number

/**
 * `value` as JSON text, or a `JournalRefused` naming the path and the bound when the
 * text would not load back. As `Checkpoint.encodeChecked`: a value the codec vouches
 * for, plain JSON within the bounds once encoded and short enough, is not parsed again.
 */
export const encode = <A>(runId: string, key: string, codec: t.Type<A, unknown, unknown>, value: A): Result.Result<string, StoreError.JournalRefused> => {
  let body: string
  let encoded: unknown
  try {
    encoded = codec.encode(value)
    body = JSON.stringify(encoded)
  } catch (cause) {
    const detail = cause instanceof RangeError ? `too long for one string (${cause.message})` : AgentError.messageOf(cause)
    return Result.fail(StoreError.journalRefused(runId, key, "", `${detail}; at most ${maxBytes} bytes load back (the maxBytes limit)`))
  }
  if (body.length * 3 <= maxBytes && isPlainWithin(encoded, maxItems, Json.maxDepth) && guarded(codec, value)) return Result.succeed(body)
  const checked = Codecs.fromJson(codec, body, Checkpoint.limits)
  return Result.isFailure(checked)
    ? Result.fail(StoreError.journalRefused(runId, key, checked.failure.path, detailOf(checked.failure)))
    : Result.succeed(body)
}

/**
 * An entry to write later: its text, or the frozen value it will be written from (one
 * `encode` would accept without parsing: internal/byReference.ts), so an entry that is
 * never written (the step's checkpoint, which holds it, committed first) is never encoded.
 */
export interface Entry {
  readonly key: string
  readonly body: string | undefined
  readonly codec: t.Type<any, unknown, unknown>
  readonly value: unknown
}

/** `value` as an entry under `key`, or the `JournalRefused` that `encode` gives. */
export const entry = <A>(
  measured: FrozenJson.Measure,
  runId: string,
  key: string,
  codec: t.Type<A, unknown, unknown>,
  value: A,
): Result.Result<Entry, StoreError.JournalRefused> => {
  if (vouched(measured, codec, value)) return Result.succeed({ key, body: undefined, codec, value })
  return Result.map(encode(runId, key, codec, value), (body) => ({ key, body, codec, value }))
}

/** An entry's JSON text (for a vouched value, the text `encode` would have given). */
export const textOf = (entry: Entry): string => entry.body ?? JSON.stringify(entry.codec.encode(entry.value))

/** An entry's text back as a value, within the same bounds; a bad one is a `DecodeFailed` naming `journal[key]`. */
export const decode = <A>(runId: string, key: string, codec: t.Decoder<unknown, A>, body: string): Effect.Effect<A, StoreError.DecodeFailed> => {
  const decoded = Codecs.fromJson(codec, body, Checkpoint.limits)
  if (Result.isFailure(decoded)) {
    const { path } = decoded.failure
    return Effect.fail(StoreError.decodeFailed(runId, path === "" ? `journal[${key}]` : `journal[${key}].${path}`, detailOf(decoded.failure)))
  }
  return Effect.succeed(decoded.success)
}
