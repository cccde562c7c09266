/**
 * The typed errors of a run store. Each is an `Error` (a rejected Promise carries it
 * as is) and a tagged Effect error (`Effect.catchTag("CheckpointConflict", ...)`).
 *
 * @since 0.1.0
 */
import { Data } from "effect"

/**
 * Another writer committed to the run first: the checkpoint was not written and the
 * winner's rows are untouched. Load the run again to go on from the winner's state.
 *
 * @since 0.1.0
 * @category errors
 */
export class CheckpointConflict extends Data.TaggedError("CheckpointConflict")<{
  readonly runId: string
  /** The sequence number this writer expected as the run's head. */
  readonly expected: number
  /** The head the store holds. */
  readonly actual: number
  readonly message: string
}> {}

/**
 * A stored checkpoint or journal entry did not decode (an unknown format version, a
 * corrupt row); `path` names the first bad value (`checkpoints[3].messages.items[0].role`).
 * Nothing is written over it.
 *
 * @since 0.1.0
 * @category errors
 */
export class DecodeFailed extends Data.TaggedError("DecodeFailed")<{
  readonly runId: string
  readonly path: string
  readonly message: string
}> {}

/**
 * The store itself failed (the database refused, the folder is not writable).
 *
 * @since 0.1.0
 * @category errors
 */
export class StoreFailed extends Data.TaggedError("StoreFailed")<{
  readonly operation: string
  readonly message: string
  readonly cause?: unknown
}> {}

/**
 * A store's database library is not installed. It is an optional peer of
 * `@hookline/store`, loaded only when that store opens: `PostgresStore` needs `pg`,
 * `PgliteStore` needs `@electric-sql/pglite`. `message` names the package to install.
 *
 * @since 0.1.0
 * @category errors
 */
export class PeerMissing extends Data.TaggedError("PeerMissing")<{
  /** The package to install (`pg`, `@electric-sql/pglite`). */
  readonly peer: string
  /** The store that needs it (`PostgresStore`). */
  readonly store: string
  readonly message: string
  readonly cause?: unknown
}> {}

/**
 * No run with this id is stored.
 *
 * @since 0.1.0
 * @category errors
 */
export class RunNotFound extends Data.TaggedError("RunNotFound")<{
  readonly runId: string
  readonly message: string
}> {}

/**
 * Another run of this run id holds its lease (a resume still running, here or in
 * another process): this run did nothing (no model call, no tool, no checkpoint). Resume
 * again after `expiresAt`, or, when you know the holder's process is dead, take the run
 * over with `RunStore.breakLease`.
 *
 * @since 0.1.0
 * @category errors
 */
export class RunLeased extends Data.TaggedError("RunLeased")<{
  readonly runId: string
  /** When the holder's lease ends unless it renews it (epoch ms). */
  readonly expiresAt: number
  readonly message: string
}> {}

/**
 * @since 0.1.0
 * @category models
 */
export type StoreError = CheckpointConflict | DecodeFailed | StoreFailed | RunLeased

/**
 * @since 0.1.0
 * @category constructors
 */
export const conflict = (runId: string, expected: number, actual: number): CheckpointConflict =>
  new CheckpointConflict({
    runId,
    expected,
    actual,
    message: `checkpoint conflict on run ${runId}: expected head ${expected}, the store holds ${actual}`,
  })

/**
 * @since 0.1.0
 * @category constructors
 */
export const decodeFailed = (runId: string, path: string, detail: string): DecodeFailed =>
  new DecodeFailed({ runId, path, message: `cannot decode run ${runId} at ${path === "" ? "the root" : path}: ${detail}` })

/**
 * @since 0.1.0
 * @category constructors
 */
export const storeFailed = (operation: string, cause: unknown): StoreFailed =>
  new StoreFailed({ operation, message: `${operation} failed: ${cause instanceof Error ? cause.message : String(cause)}`, cause })

/**
 * @since 0.1.0
 * @category constructors
 */
export const peerMissing = (peer: string, store: string, cause?: unknown): PeerMissing =>
  new PeerMissing({
    peer,
    store,
    message: `${store} needs the package ${peer}, an optional peer of @hookline/store that is not installed: npm install ${peer}`,
    cause,
  })

/**
 * @since 0.1.0
 * @category constructors
 */
export const runNotFound = (runId: string): RunNotFound => new RunNotFound({ runId, message: `no run ${runId} is stored` })

/**
 * @since 0.1.0
 * @category constructors
 */
export const runLeased = (runId: string, expiresAt: number): RunLeased =>
  new RunLeased({
    runId,
    expiresAt,
    message: `run ${runId} is leased by another run of it until ${
      Number.isFinite(expiresAt) ? new Date(expiresAt).toISOString() : "an unknown time"
    } (unless its holder renews the lease): this run did nothing`,
  })

/**
 * A run that held its lease and lost it while it ran (broken with `RunStore.breakLease`,
 * or taken by another run after it expired): `RunLeased`, with no known expiry.
 *
 * @since 0.1.0
 * @category constructors
 */
export const runLost = (runId: string): RunLeased =>
  new RunLeased({
    runId,
    expiresAt: Number.NaN,
    message: `run ${runId} lost its lease while it ran (broken, or taken by another run after it expired): it ran no more tools and wrote no more checkpoints`,
  })
