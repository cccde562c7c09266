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
 * A new run's id is stored already: this run did nothing (no model call, no tool, no
 * checkpoint) and the stored run is untouched. Resume the stored run by its id
 * (`agent.resume(runId)`), start the new one under another id, or replace the stored run
 * on purpose with `UseCheckpoints(store, { ifExists: "replace" })`.
 *
 * @since 0.1.0
 * @category errors
 */
export class RunExists extends Data.TaggedError("RunExists")<{
  readonly runId: string
  readonly message: string
}> {}

/**
 * A stored run misses a checkpoint: the store records `head` as the run's latest
 * checkpoint and holds only the checkpoints before `seq` in sequence (a lost row, a
 * restored backup that is behind its head record). Nothing is written over it; the run
 * cannot be loaded until the missing checkpoint is restored or the run removed.
 *
 * @since 0.1.0
 * @category errors
 */
export class CheckpointMissing extends Data.TaggedError("CheckpointMissing")<{
  readonly runId: string
  /** The first sequence number the store does not hold. */
  readonly seq: number
  /** The run's latest checkpoint as the store records it (0: no record of the run). */
  readonly head: number
  readonly message: string
}> {}

/**
 * A checkpoint that would not load back was refused before it was written: it passes a
 * bound of the checkpoint format (`Checkpoint.limits`: items per array, bytes per
 * checkpoint, depth), named with its path (`messages.items`). Nothing was written; what
 * the run committed before stays as it was.
 *
 * @since 0.1.0
 * @category errors
 */
export class CheckpointRefused extends Data.TaggedError("CheckpointRefused")<{
  readonly runId: string
  /** The checkpoint's sequence number. */
  readonly seq: number
  /** The first value past the bound (`""`: the checkpoint as a whole). */
  readonly path: string
  readonly message: string
}> {}

/**
 * A journal entry (a model answer or a tool result) that would not load back was refused
 * before it was written: it passes a bound of `Checkpoint.limits`, named with its path
 * (`text`, `output`). Nothing was written; the run fails as it would on a refused
 * checkpoint, and what it committed before stays as it was.
 *
 * @since 0.1.0
 * @category errors
 */
export class JournalRefused extends Data.TaggedError("JournalRefused")<{
  readonly runId: string
  /** The entry's journal key. */
  readonly key: string
  /** The first value past the bound (`""`: the entry as a whole). */
  readonly path: string
  readonly message: string
}> {}

/**
 * @since 0.1.0
 * @category models
 */
export type StoreError =
  | CheckpointConflict
  | DecodeFailed
  | StoreFailed
  | RunLeased
  | RunExists
  | CheckpointMissing
  | CheckpointRefused
  | JournalRefused

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

/**
 * @since 0.1.0
 * @category constructors
 */
export const runExists = (runId: string): RunExists =>
  new RunExists({
    runId,
    message: `run ${runId} is stored already: this new run of that id did nothing (resume the stored run with agent.resume("${runId}"), or replace it with UseCheckpoints(store, { ifExists: "replace" }))`,
  })

/**
 * @since 0.1.0
 * @category constructors
 */
export const checkpointMissing = (runId: string, seq: number, head: number): CheckpointMissing =>
  new CheckpointMissing({
    runId,
    seq,
    head,
    message: head === 0
      ? `run ${runId} has checkpoints but no head record: the store lost the run's record (checkpoint ${seq} and on are unaccounted for)`
      : `run ${runId} misses checkpoint ${seq}: the store records checkpoint ${head} as its latest and holds only ${seq - 1} in sequence`,
  })

/**
 * @since 0.1.0
 * @category constructors
 */
export const checkpointRefused = (runId: string, seq: number, path: string, detail: string): CheckpointRefused =>
  new CheckpointRefused({
    runId,
    seq,
    path,
    message: `checkpoint ${seq} of run ${runId} was not written, it would not load back: at ${path === "" ? "the checkpoint as a whole" : path}, ${detail}`,
  })

/**
 * @since 0.1.0
 * @category constructors
 */
export const journalRefused = (runId: string, key: string, path: string, detail: string): JournalRefused =>
  new JournalRefused({
    runId,
    key,
    path,
    message: `journal entry ${key} of run ${runId} was not written, it would not load back: at ${path === "" ? "the entry as a whole" : path}, ${detail}`,
  })
