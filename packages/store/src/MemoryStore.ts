/**
 * A store in memory, for tests and short-lived processes: the same contract as the
 * durable stores (sequence, conflicts, first journal write wins), nothing survives
 * the process.
 *
 * @since 0.1.0
 */
import { Effect, Exit } from "effect"
import * as Checkpoint from "./Checkpoint.js"
import * as AtOnce from "./internal/atOnce.js"
import * as JournalEntry from "./internal/journalEntry.js"
import * as RunStore from "./RunStore.js"
import * as StoreError from "./StoreError.js"

/**
 * One run as the memory store keeps it. Mutable: the store's own record.
 *
 * @since 0.1.0
 * @category models
 */
export interface RunData {
  readonly rows: Array<Checkpoint.Row>
  /** The latest checkpoint's sequence number, kept apart from the rows as a database keeps it. */
  head: number
  status: RunStore.RunSummary["status"]
  createdAt: number
  updatedAt: number
  /**
   * The journal: each entry's JSON text by key. Entries the checkpoint hooks wrote by
   * reference are kept as their frozen value and their text written when first read
   * (through `get` or any iteration), so every read gives text, as before.
   */
  readonly journal: Map<string, string>
}

/**
 * What a memory store holds. Two stores made over one `Data` are two processes over one
 * database; a test may change it as a database administrator would (drop a row).
 *
 * @since 0.1.0
 * @category models
 */
export interface Data {
  readonly runs: Map<string, RunData>
  /** Apart from the runs: a new run takes its lease before its first checkpoint. */
  readonly leases: Map<string, RunStore.Lease>
}

/**
 * Nothing stored.
 *
 * @since 0.1.0
 * @category constructors
 */
export const emptyData = (): Data => ({ runs: new Map(), leases: new Map() })

// A row kept as the delta it was committed from (frozen, vouched for by the writer:
// internal/byReference.ts), its text written when first read: the text the writer would
// have committed. Private fields, so the row itself stays frozen.
class DeltaRow implements Checkpoint.Row {
  readonly seq: number
  readonly #delta: Checkpoint.Delta
  #body: string | undefined
  constructor(seq: number, delta: Checkpoint.Delta) {
    this.seq = seq
    this.#delta = delta
    Object.freeze(this)
  }
  get body(): string {
    return (this.#body ??= Checkpoint.toJson(this.#delta))
  }
}

// A run's journal, some entries kept as the frozen value they were written from (vouched
// for: internal/byReference.ts) until their text is first read: the text the writer would
// have written. Every reading (get, iteration) gives text; a test that swaps in a plain
// Map (as an administrator edits a table) still works, with text only. A kept entry sits
// in the map itself in its text's place (one map insert a write, not two), replaced by its
// text when read.
class Journal extends Map<string, string> {
  keep(key: string, entry: JournalEntry.Entry): void {
    super.set(key, entry as unknown as string)
  }
  #text(key: string, body: string | JournalEntry.Entry): string {
    if (typeof body === "string") return body
    const text = JournalEntry.textOf(body)
    super.set(key, text)
    return text
  }
  #writeAll(): void {
    let kept: Array<string> | undefined
    for (const [key, body] of super.entries()) if (typeof body !== "string") (kept ??= []).push(key)
    if (kept !== undefined) for (const key of kept) this.#text(key, super.get(key) as string | JournalEntry.Entry)
  }
  override get(key: string): string | undefined {
    const body = super.get(key) as string | JournalEntry.Entry | undefined
    return body === undefined ? undefined : this.#text(key, body)
  }
  override forEach(f: (body: string, key: string, map: Map<string, string>) => void, thisArg?: unknown): void {
    this.#writeAll()
    super.forEach(f, thisArg)
  }
  override entries(): MapIterator<[string, string]> {
    this.#writeAll()
    return super.entries()
  }
  override values(): MapIterator<string> {
    this.#writeAll()
    return super.values()
  }
  override [Symbol.iterator](): MapIterator<[string, string]> {
    return this.entries()
  }
}

// A row as the store gives it: plain, whatever it was kept as.
const plainRow = (row: Checkpoint.Row): Checkpoint.Row => (row instanceof DeltaRow ? Object.freeze({ seq: row.seq, body: row.body }) : row)

// A journal write's answers, made once (an Exit is a value): no object per write.
const wrote: Exit.Exit<boolean> = Exit.succeed(true)
const notWritten: Exit.Exit<boolean> = Exit.succeed(false)

const fresh = (): RunData => ({ rows: [], head: 0, status: "pending", createdAt: 0, updatedAt: 0, journal: new Journal() })

/**
 * A store over `data` (a new, empty one by default).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (data: Data = emptyData()): RunStore.RunStore => {
  const { runs, leases } = data
  // The first checkpoint: the run's record starts over; a journal written before it stays.
  const first = (commit: Omit<RunStore.Commit, "body">, row: Checkpoint.Row, journal: Map<string, string>) => {
    runs.set(commit.runId, {
      rows: [row],
      head: 1,
      status: commit.status,
      createdAt: commit.at,
      updatedAt: commit.at,
      journal,
    })
  }
  // Each write is one synchronous block (nothing runs between its check and its write), so
  // the checkpoint hooks may call it at once (internal/atOnce.ts).
  const commitRow = (commit: Omit<RunStore.Commit, "body">, row: Checkpoint.Row): Exit.Exit<void, StoreError.CheckpointConflict> => {
    const run = runs.get(commit.runId)
    const head = run?.head ?? 0
    if (commit.seq !== head + 1) return Exit.fail(StoreError.conflict(commit.runId, commit.seq - 1, head))
    if (run === undefined || head === 0) {
      first(commit, row, run?.journal ?? new Journal())
    } else {
      run.rows.push(row)
      run.head = commit.seq
      run.status = commit.status
      run.updatedAt = commit.at
    }
    return Exit.void
  }
  const create = (commit: Omit<RunStore.Commit, "body">, row: Checkpoint.Row, replace: boolean): Exit.Exit<void, StoreError.RunExists> => {
    const run = runs.get(commit.runId)
    if (run !== undefined && run.head > 0 && !replace) return Exit.fail(StoreError.runExists(commit.runId))
    first(commit, row, replace || run === undefined ? new Journal() : run.journal)
    return Exit.void
  }
  const commitNow = (commit: RunStore.Commit) => commitRow(commit, Object.freeze({ seq: commit.seq, body: commit.body }))
  // `body`: the entry's text, or the entry itself (vouched for), kept by reference.
  const put = (runId: string, key: string, body: string | JournalEntry.Entry): boolean => {
    let run = runs.get(runId)
    if (run === undefined) {
      // A journal entry may come before the run's first checkpoint.
      run = fresh()
      runs.set(runId, run)
    }
    const journal = run.journal
    if (journal.has(key)) return false
    if (typeof body === "string") journal.set(key, body)
    else if (journal instanceof Journal) journal.keep(key, body)
    else journal.set(key, JournalEntry.textOf(body))
    return true
  }
  const release = (runId: string, owner: string | undefined): boolean => {
    const held = leases.get(runId)
    if (held === undefined || (owner !== undefined && held.owner !== owner)) return false
    return leases.delete(runId)
  }
  const store: RunStore.RunStore = Object.freeze({
    _tag: "RunStore",
    name: "memory",
    commit: (commit: RunStore.Commit) => Effect.suspend(() => commitNow(commit)),
    // One check and one write in one synchronous block: nothing runs between them.
    create: (commit: RunStore.Commit, replace: boolean) => Effect.suspend(() => create(commit, Object.freeze({ seq: 1, body: commit.body }), replace)),
    rows: (runId: string) => Effect.sync(() => Object.freeze((runs.get(runId)?.rows ?? []).map(plainRow))),
    head: (runId: string) => Effect.sync(() => runs.get(runId)?.head ?? 0),
    list: (query: RunStore.ListQuery) =>
      Effect.sync(() => {
        const statuses = RunStore.statusesOf(query)
        const found: Array<RunStore.RunSummary> = []
        for (const [runId, run] of runs) {
          if (run.head === 0) continue
          if (statuses !== undefined && !statuses.includes(run.status)) continue
          if (query.updatedSince !== undefined && run.updatedAt < query.updatedSince) continue
          if (query.updatedBefore !== undefined && run.updatedAt >= query.updatedBefore) continue
          if (!RunStore.isAfter({ updatedAt: run.updatedAt, runId }, query.after)) continue
          found.push(Object.freeze({ runId, seq: run.head, status: run.status, createdAt: run.createdAt, updatedAt: run.updatedAt }))
        }
        found.sort((a, b) => b.updatedAt - a.updatedAt || (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0))
        return Object.freeze(query.limit === undefined ? found : found.slice(0, query.limit))
      }),
    remove: (runId: string) =>
      Effect.sync(() => {
        leases.delete(runId)
        return runs.delete(runId)
      }),
    journalPut: (runId: string, key: string, body: string) => Effect.sync(() => put(runId, key, body)),
    journalGet: (runId: string, key: string) => Effect.sync(() => runs.get(runId)?.journal.get(key)),
    takeLease: (lease: RunStore.Lease, now: number) =>
      Effect.suspend(() => {
        const held = leases.get(lease.runId)
        if (held !== undefined && held.owner !== lease.owner && held.expiresAt > now) {
          return Effect.fail(StoreError.runLeased(lease.runId, held.expiresAt))
        }
        leases.set(lease.runId, Object.freeze({ ...lease }))
        return Effect.void
      }),
    renewLease: (lease: RunStore.Lease) =>
      Effect.sync(() => {
        if (leases.get(lease.runId)?.owner !== lease.owner) return false
        leases.set(lease.runId, Object.freeze({ ...lease }))
        return true
      }),
    releaseLease: (runId: string, owner?: string | undefined) => Effect.sync(() => release(runId, owner)),
    close: () => Effect.void,
  })
  return AtOnce.register(store, {
    commit: commitNow,
    journalPut: (runId, key, body) => (put(runId, key, body) ? wrote : notWritten),
    journalKeep: (runId, key, entry) => (put(runId, key, entry) ? wrote : notWritten),
    commitDelta: (commit, delta) => commitRow(commit, new DeltaRow(commit.seq, delta)),
    createDelta: (commit, delta, replace) => create(commit, new DeltaRow(1, delta), replace),
    releaseLease: (runId, owner) => (release(runId, owner) ? wrote : notWritten),
  })
}
