/**
 * A store in memory, for tests and short-lived processes: the same contract as the
 * durable stores (sequence, conflicts, first journal write wins), nothing survives
 * the process.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import type * as Checkpoint from "./Checkpoint.js"
import * as RunStore from "./RunStore.js"
import * as StoreError from "./StoreError.js"

interface Run {
  readonly rows: Array<Checkpoint.Row>
  status: RunStore.RunSummary["status"]
  readonly createdAt: number
  updatedAt: number
  readonly journal: Map<string, string>
}

/**
 * A new, empty store.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (): RunStore.RunStore => {
  const runs = new Map<string, Run>()
  // Apart from the runs: a new run takes its lease before its first checkpoint.
  const leases = new Map<string, RunStore.Lease>()
  return Object.freeze({
    _tag: "RunStore",
    name: "memory",
    commit: (commit: RunStore.Commit) =>
      Effect.suspend(() => {
        const run = runs.get(commit.runId)
        const head = run?.rows.length ?? 0
        if (commit.seq !== head + 1) return Effect.fail(StoreError.conflict(commit.runId, commit.seq - 1, head))
        const row = Object.freeze({ seq: commit.seq, body: commit.body })
        if (run === undefined || head === 0) {
          const journal = run?.journal ?? new Map<string, string>()
          runs.set(commit.runId, { rows: [row], status: commit.status, createdAt: commit.at, updatedAt: commit.at, journal })
        } else {
          run.rows.push(row)
          run.status = commit.status
          run.updatedAt = commit.at
        }
        return Effect.void
      }),
    rows: (runId: string) => Effect.sync(() => Object.freeze([...(runs.get(runId)?.rows ?? [])])),
    list: (query: RunStore.ListQuery) =>
      Effect.sync(() => {
        const statuses = RunStore.statusesOf(query)
        const found: Array<RunStore.RunSummary> = []
        for (const [runId, run] of runs) {
          if (run.rows.length === 0) continue
          if (statuses !== undefined && !statuses.includes(run.status)) continue
          if (query.updatedSince !== undefined && run.updatedAt < query.updatedSince) continue
          if (query.updatedBefore !== undefined && run.updatedAt >= query.updatedBefore) continue
          found.push(Object.freeze({ runId, seq: run.rows.length, status: run.status, createdAt: run.createdAt, updatedAt: run.updatedAt }))
        }
        found.sort((a, b) => b.updatedAt - a.updatedAt || (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0))
        return Object.freeze(query.limit === undefined ? found : found.slice(0, query.limit))
      }),
    remove: (runId: string) =>
      Effect.sync(() => {
        leases.delete(runId)
        return runs.delete(runId)
      }),
    journalPut: (runId: string, key: string, body: string) =>
      Effect.sync(() => {
        let run = runs.get(runId)
        if (run === undefined) {
          // A journal entry may come before the run's first checkpoint.
          run = { rows: [], status: "pending", createdAt: 0, updatedAt: 0, journal: new Map() }
          runs.set(runId, run)
        }
        if (run.journal.has(key)) return false
        run.journal.set(key, body)
        return true
      }),
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
    releaseLease: (runId: string, owner?: string | undefined) =>
      Effect.sync(() => {
        const held = leases.get(runId)
        if (held === undefined || (owner !== undefined && held.owner !== owner)) return false
        return leases.delete(runId)
      }),
    close: () => Effect.void,
  })
}
