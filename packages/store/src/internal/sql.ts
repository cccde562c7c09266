// One schema and one SQL implementation of the store contract, for PGlite and
// PostgreSQL alike (PGlite is PostgreSQL compiled to WebAssembly: same dialect).
// A client is the least both drivers share: parameterized queries and transactions.
import { Effect } from "effect"
import type * as Checkpoint from "../Checkpoint.js"
import type * as RunStore from "../RunStore.js"
import * as StoreError from "../StoreError.js"
import * as CombinedRead from "./combinedRead.js"
import * as Ending from "./ending.js"

export interface SqlResult {
  readonly rows: ReadonlyArray<Record<string, unknown>>
  readonly affected: number
}

export interface SqlClient {
  /**
   * `name`: the statement's name, given for the fixed statements of a run's path. A driver
   * that keeps prepared statements (PostgreSQL's `pg`) parses and plans a named one once
   * per connection; one that does not ignores it.
   */
  readonly query: (text: string, params?: ReadonlyArray<unknown>, name?: string) => Promise<SqlResult>
  readonly transaction: <A>(f: (tx: SqlClient) => Promise<A>) => Promise<A>
}

// Migrations, in order; a database records the ones it applied, so opening a store
// applies only the new ones. Never edit one that shipped: add the next.
export const migrations: ReadonlyArray<ReadonlyArray<string>> = [
  [
    `CREATE TABLE IF NOT EXISTS hookline_runs (
      run_id text PRIMARY KEY,
      seq integer NOT NULL,
      status text NOT NULL,
      created_at bigint NOT NULL,
      updated_at bigint NOT NULL
    )`,
    `CREATE INDEX IF NOT EXISTS hookline_runs_status_updated ON hookline_runs (status, updated_at DESC)`,
    `CREATE INDEX IF NOT EXISTS hookline_runs_updated ON hookline_runs (updated_at DESC)`,
    `CREATE TABLE IF NOT EXISTS hookline_checkpoints (
      run_id text NOT NULL,
      seq integer NOT NULL,
      body text NOT NULL,
      PRIMARY KEY (run_id, seq)
    )`,
    `CREATE TABLE IF NOT EXISTS hookline_journal (
      run_id text NOT NULL,
      key text NOT NULL,
      body text NOT NULL,
      PRIMARY KEY (run_id, key)
    )`,
  ],
  // 2: run leases, apart from the runs (a new run takes its lease before its first
  // checkpoint). A database at version 1 gains the table and keeps its runs.
  [
    `CREATE TABLE IF NOT EXISTS hookline_leases (
      run_id text PRIMARY KEY,
      owner text NOT NULL,
      expires_at bigint NOT NULL
    )`,
  ],
]

// An arbitrary constant: the advisory lock that serializes migrations between processes.
const migrationLock = 7_310_413

// `upTo`: the last version to apply (the tests make a database of an older version).
export const migrate = async (client: SqlClient, upTo: number = migrations.length): Promise<number> =>
  client.transaction(async (tx) => {
    await tx.query(`SELECT pg_advisory_xact_lock(${migrationLock})`)
    await tx.query(`CREATE TABLE IF NOT EXISTS hookline_migrations (version integer PRIMARY KEY, applied_at bigint NOT NULL)`)
    const applied = await tx.query(`SELECT coalesce(max(version), 0) AS version FROM hookline_migrations`)
    const from = Number(applied.rows[0]?.["version"] ?? 0)
    if (from > migrations.length) {
      throw new Error(`the database is at schema version ${from}, newer than this library's ${migrations.length}`)
    }
    const to = Math.min(upTo, migrations.length)
    for (let version = from + 1; version <= to; version++) {
      for (const statement of migrations[version - 1] ?? []) await tx.query(statement)
      await tx.query(`INSERT INTO hookline_migrations (version, applied_at) VALUES ($1, $2)`, [version, Date.now()])
    }
    return Math.max(from, to)
  })

const head = async (tx: SqlClient, runId: string): Promise<number> => {
  const found = await tx.query(`SELECT seq FROM hookline_runs WHERE run_id = $1`, [runId], "hookline_head")
  return Number(found.rows[0]?.["seq"] ?? 0)
}

// Takes the lease in one statement: inserted when free, taken over when the holder's
// expired or is this owner. Of two takers at once, the second waits on the first's row
// and re-checks the condition against it (PostgreSQL's ON CONFLICT), so one wins.
// Answers undefined when taken, else the holder's expiry.
const take = async (client: SqlClient, lease: RunStore.Lease, now: number): Promise<number | undefined> => {
  // A holder that releases between the two statements: take again (bounded).
  for (let attempt = 0; attempt < 3; attempt++) {
    const taken = await client.query(
      `INSERT INTO hookline_leases (run_id, owner, expires_at) VALUES ($1, $2, $3)
       ON CONFLICT (run_id) DO UPDATE SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at
       WHERE hookline_leases.owner = EXCLUDED.owner OR hookline_leases.expires_at <= $4`,
      [lease.runId, lease.owner, lease.expiresAt, now],
      "hookline_lease_take",
    )
    if (taken.affected === 1) return undefined
    const holder = await client.query(`SELECT expires_at FROM hookline_leases WHERE run_id = $1`, [lease.runId])
    const row = holder.rows[0]
    if (row !== undefined) return Number(row["expires_at"])
  }
  throw new Error(`the lease of run ${lease.runId} changed hands three times while it was taken`)
}

class Conflict {
  constructor(readonly actual: number) {}
}

class Exists {}

// A new run's first checkpoint. Without `replace`: `commitFirst`, one statement. With
// `replace`: the run's row is taken first (an upsert
// locks it, so replacers go one at a time), then its old checkpoints and journal go, in
// one transaction.
const create = async (client: SqlClient, commit: RunStore.Commit, replace: boolean): Promise<void> => {
  if (!replace) {
    if (!(await commitFirst(client, commit))) throw new Exists()
    return
  }
  const values = [commit.runId, commit.status, commit.at]
  await client.transaction(async (tx) => {
    await tx.query(
      `INSERT INTO hookline_runs (run_id, seq, status, created_at, updated_at) VALUES ($1, 1, $2, $3, $3)
       ON CONFLICT (run_id) DO UPDATE SET seq = 1, status = EXCLUDED.status, created_at = EXCLUDED.created_at, updated_at = EXCLUDED.updated_at`,
      values,
    )
    await tx.query(`DELETE FROM hookline_checkpoints WHERE run_id = $1`, [commit.runId])
    await tx.query(`DELETE FROM hookline_journal WHERE run_id = $1`, [commit.runId])
    await tx.query(`INSERT INTO hookline_checkpoints (run_id, seq, body) VALUES ($1, 1, $2)`, [commit.runId, commit.body])
  })
}

// A checkpoint in one statement, its own transaction (one round trip, one commit): the
// head moves only from seq - 1, and the row goes in only when it moved. Of two writers
// from the same head, the second's update waits for the first's commit, re-checks the
// condition against the new row (PostgreSQL's read committed), finds it false and
// inserts nothing. Answers whether it wrote.
const commitOne = async (client: SqlClient, commit: RunStore.Commit): Promise<boolean> => {
  if (commit.seq === 1) return commitFirst(client, commit)
  const moved = await client.query(
    `WITH moved AS (
       UPDATE hookline_runs SET seq = $2, status = $3, updated_at = $4 WHERE run_id = $1 AND seq = $5 RETURNING run_id
     )
     INSERT INTO hookline_checkpoints (run_id, seq, body) SELECT run_id, $2, $6 FROM moved`,
    [commit.runId, commit.seq, commit.status, commit.at, commit.seq - 1, commit.body],
    "hookline_commit",
  )
  return moved.affected === 1
}

// A run's last checkpoint and its lease's release in one statement, its own transaction
// (one round trip, one commit, where a checkpoint then a release were two): the
// checkpoint as `commitOne` writes it, and the lease dropped if `owner` holds it, whether
// or not the head moved (PostgreSQL runs each data-modifying WITH once, whatever the
// outer query reads). Answers whether the checkpoint was written.
const commitAndRelease = async (client: SqlClient, commit: RunStore.Commit, owner: string): Promise<boolean> => {
  const done = await client.query(
    `WITH moved AS (
       UPDATE hookline_runs SET seq = $2, status = $3, updated_at = $4 WHERE run_id = $1 AND seq = $5 RETURNING run_id
     ), written AS (
       INSERT INTO hookline_checkpoints (run_id, seq, body) SELECT run_id, $2, $6 FROM moved RETURNING run_id
     ), released AS (
       DELETE FROM hookline_leases WHERE run_id = $1 AND owner = $7 RETURNING run_id
     )
     SELECT (SELECT count(*) FROM written) AS written`,
    [commit.runId, commit.seq, commit.status, commit.at, commit.seq - 1, commit.body, owner],
    "hookline_commit_release",
  )
  return Number(done.rows[0]?.["written"]) === 1
}

// A run's first checkpoint in one statement, its own transaction: the run's row inserted
// if absent and, only when it was, the checkpoint's row (of two creators one inserts, and
// PostgreSQL makes the second insert wait for the first's commit, then find the row).
// Answers whether it wrote.
const commitFirst = async (client: SqlClient, commit: RunStore.Commit): Promise<boolean> => {
  const inserted = await client.query(
    `WITH created AS (
       INSERT INTO hookline_runs (run_id, seq, status, created_at, updated_at) VALUES ($1, 1, $2, $3, $3)
       ON CONFLICT (run_id) DO NOTHING RETURNING run_id
     )
     INSERT INTO hookline_checkpoints (run_id, seq, body) SELECT run_id, 1, $4 FROM created`,
    [commit.runId, commit.status, commit.at, commit.body],
    "hookline_commit_first",
  )
  return inserted.affected === 1
}

export const make = (name: string, client: SqlClient, close: () => Promise<void>): RunStore.RunStore => {
  const lift = <A>(operation: string, f: () => Promise<A>) =>
    Effect.tryPromise({ try: f, catch: (cause) => StoreError.storeFailed(`${name} ${operation}`, cause) })
  // A checkpoint `write` answers whether it wrote; the head it found is read only on a
  // conflict, off the step's path.
  const committing = (commit: RunStore.Commit, write: () => Promise<boolean>) =>
    Effect.tryPromise({
      try: async () => {
        if (!(await write())) throw new Conflict(await head(client, commit.runId))
      },
      catch: (cause) =>
        cause instanceof Conflict
          ? StoreError.conflict(commit.runId, commit.seq - 1, cause.actual)
          : StoreError.storeFailed(`${name} commit`, cause),
    })
  const store: RunStore.RunStore = Object.freeze({
    _tag: "RunStore",
    name,
    commit: (commit: RunStore.Commit) => committing(commit, () => commitOne(client, commit)),
    create: (commit: RunStore.Commit, replace: boolean) =>
      Effect.tryPromise({
        try: () => create(client, commit, replace),
        catch: (cause) => cause instanceof Exists ? StoreError.runExists(commit.runId) : StoreError.storeFailed(`${name} create`, cause),
      }),
    head: (runId: string) => lift("head", () => head(client, runId)),
    rows: (runId: string) =>
      lift("rows", async () => {
        const found = await client.query(`SELECT seq, body FROM hookline_checkpoints WHERE run_id = $1 ORDER BY seq`, [runId], "hookline_rows")
        return Object.freeze(found.rows.map((row): Checkpoint.Row => Object.freeze({ seq: Number(row["seq"]), body: row["body"] as string })))
      }),
    list: (query: RunStore.ListQuery) =>
      lift("list", async () => {
        const where: Array<string> = []
        const params: Array<unknown> = []
        const statuses = query.status === undefined ? undefined : typeof query.status === "string" ? [query.status] : query.status
        if (statuses !== undefined) {
          if (statuses.length === 0) return Object.freeze([])
          where.push(`status IN (${statuses.map((s) => `$${params.push(s)}`).join(", ")})`)
        }
        if (query.updatedSince !== undefined) where.push(`updated_at >= $${params.push(query.updatedSince)}`)
        if (query.updatedBefore !== undefined) where.push(`updated_at < $${params.push(query.updatedBefore)}`)
        if (query.after !== undefined) {
          const at = params.push(query.after.updatedAt)
          where.push(`(updated_at < $${at} OR (updated_at = $${at} AND run_id COLLATE "C" > $${params.push(query.after.runId)}))`)
        }
        const limit = query.limit === undefined ? "" : ` LIMIT $${params.push(Math.max(0, Math.floor(query.limit)))}`
        const found = await client.query(
          `SELECT run_id, seq, status, created_at, updated_at FROM hookline_runs${where.length === 0 ? "" : ` WHERE ${where.join(" AND ")}`}
           ORDER BY updated_at DESC, run_id COLLATE "C"${limit}`,
          params,
        )
        return Object.freeze(found.rows.map((row): RunStore.RunSummary =>
          Object.freeze({
            runId: row["run_id"] as string,
            seq: Number(row["seq"]),
            status: row["status"] as RunStore.RunSummary["status"],
            createdAt: Number(row["created_at"]),
            updatedAt: Number(row["updated_at"]),
          })
        ))
      }),
    remove: (runId: string) =>
      lift("remove", () =>
        client.transaction(async (tx) => {
          const runs = await tx.query(`DELETE FROM hookline_runs WHERE run_id = $1`, [runId])
          await tx.query(`DELETE FROM hookline_checkpoints WHERE run_id = $1`, [runId])
          const journal = await tx.query(`DELETE FROM hookline_journal WHERE run_id = $1`, [runId])
          await tx.query(`DELETE FROM hookline_leases WHERE run_id = $1`, [runId])
          return runs.affected > 0 || journal.affected > 0
        })),
    journalPut: (runId: string, key: string, body: string) =>
      lift("journalPut", async () => {
        const put = await client.query(
          `INSERT INTO hookline_journal (run_id, key, body) VALUES ($1, $2, $3) ON CONFLICT (run_id, key) DO NOTHING`,
          [runId, key, body],
          "hookline_journal_put",
        )
        return put.affected === 1
      }),
    journalGet: (runId: string, key: string) =>
      lift("journalGet", async () => {
        const found = await client.query(`SELECT body FROM hookline_journal WHERE run_id = $1 AND key = $2`, [runId, key], "hookline_journal_get")
        return found.rows[0]?.["body"] as string | undefined
      }),
    takeLease: (lease: RunStore.Lease, now: number) =>
      Effect.flatMap(lift("takeLease", () => take(client, lease, now)), (holder) =>
        holder === undefined ? Effect.void : Effect.fail(StoreError.runLeased(lease.runId, holder))),
    renewLease: (lease: RunStore.Lease) =>
      lift("renewLease", async () => {
        const renewed = await client.query(`UPDATE hookline_leases SET expires_at = $3 WHERE run_id = $1 AND owner = $2`, [
          lease.runId,
          lease.owner,
          lease.expiresAt,
        ], "hookline_lease_renew")
        return renewed.affected === 1
      }),
    releaseLease: (runId: string, owner?: string | undefined) =>
      lift("releaseLease", async () => {
        const dropped = owner === undefined
          ? await client.query(`DELETE FROM hookline_leases WHERE run_id = $1`, [runId])
          : await client.query(`DELETE FROM hookline_leases WHERE run_id = $1 AND owner = $2`, [runId, owner], "hookline_lease_release")
        return dropped.affected > 0
      }),
    close: () => Effect.promise(close),
  })
  // A run's head and a journal entry in one statement (internal/combinedRead.ts).
  CombinedRead.register(store, (runId: string, key: string) =>
    lift("headAndJournal", async (): Promise<RunStore.HeadAndJournal> => {
      const found = await client.query(
        `SELECT (SELECT seq FROM hookline_runs WHERE run_id = $1) AS seq, (SELECT body FROM hookline_journal WHERE run_id = $1 AND key = $2) AS body`,
        [runId, key],
        "hookline_head_journal",
      )
      const row = found.rows[0]
      return Object.freeze({ head: row?.["seq"] == null ? 0 : Number(row["seq"]), body: (row?.["body"] ?? undefined) as string | undefined })
    }))
  return Ending.register(store, {
    commitAndRelease: (commit, owner) => committing(commit, () => commitAndRelease(client, commit, owner)),
  })
}
