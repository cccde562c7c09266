/**
 * The settings a park shares, where every process reads them: each runner records its
 * `Settings.Shared` in `hookline_cluster_settings` (beside effect/cluster's tables, on the
 * cluster's database) as it starts, after it compared them with the live runners'; a
 * client-only process reads them once, before its cluster starts. Nothing here is on a
 * message's path. The decisions are `Settings.agreeRunner` / `Settings.agreeClient`.
 *
 * A record is live while its runner's heartbeat (effect/cluster's `cluster_runners`) is
 * younger than the record's lock expiry, or while the record itself is (a runner that
 * recorded and has not registered yet).
 *
 * @since 0.1.0
 */
import { Clock, Effect, Result } from "effect"
import { ShardingConfig } from "effect/cluster"
import { SqlClient } from "effect/sql"
import * as Settings from "./Settings.js"

/**
 * effect/cluster's shard groups as hookline runs them (its defaults: every process's).
 *
 * @since 0.1.0
 * @category constants
 */
export const shardGroups: ReadonlyArray<string> = [...ShardingConfig.defaults.availableShardGroups].sort()

// One key for the record's transaction (a runner's read of the live records and its
// write are one step for every other starting runner): "hookline-settings" in ASCII.
const lockKey = 0x686b7374

const maxShardGroupsText = 10_000
// A runner's address is `host:port`: a DNS name is at most 253 characters, an IPv6
// literal 47 with its brackets. Longer is a row no runner wrote, and an address goes
// whole into every mismatch's message.
const maxAddressText = 300

interface Row {
  readonly address: unknown
  readonly shards_per_group: unknown
  readonly shard_groups: unknown
  readonly lock_expiration_ms: unknown
}

// A stored row is untrusted: each field is checked, and a row that is not a record is
// named (a runner of another version, a row written by hand).
const decode = (row: Row): Result.Result<Settings.Shared, Settings.InvalidSetting> => {
  const address = typeof row.address === "string" ? row.address : String(row.address)
  const bad = (field: string, expected: string, got: unknown) =>
    Result.fail(new Settings.InvalidSetting({ setting: `hookline_cluster_settings.${field} of ${JSON.stringify(address.slice(0, 200))}`, expected, got: String(got).slice(0, 200) }))
  if (address.length > maxAddressText) return bad("address", `a runner's host:port, at most ${maxAddressText} characters`, `${address.length} characters`)
  const shards = Number(row.shards_per_group)
  if (!Number.isSafeInteger(shards) || shards < 1 || shards > 10_000) return bad("shards_per_group", "a whole number from 1 to 10000", row.shards_per_group)
  const lock = Number(row.lock_expiration_ms)
  if (!Number.isSafeInteger(lock) || lock < 1) return bad("lock_expiration_ms", "a positive whole number of milliseconds", row.lock_expiration_ms)
  if (typeof row.shard_groups !== "string" || row.shard_groups.length > maxShardGroupsText) return bad("shard_groups", "a list of group names", row.shard_groups)
  return Result.succeed({ address, shardsPerGroup: shards, shardGroups: row.shard_groups.split(","), lockExpirationMillis: lock })
}

const ensureTable = (sql: SqlClient.SqlClient) =>
  sql`CREATE TABLE IF NOT EXISTS hookline_cluster_settings (
    address text PRIMARY KEY,
    shards_per_group integer NOT NULL,
    shard_groups text NOT NULL,
    lock_expiration_ms integer NOT NULL,
    recorded_at timestamptz NOT NULL DEFAULT now()
  )`

/** The live runners' records, by address. */
const readLive = (sql: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    const present = yield* sql<{ readonly settings: boolean; readonly runners: boolean }>`
      SELECT to_regclass('hookline_cluster_settings') IS NOT NULL AS settings, to_regclass('cluster_runners') IS NOT NULL AS runners`
    if (present[0]?.settings !== true) return []
    const fresh = sql`s.recorded_at > now() - s.lock_expiration_ms * interval '1 millisecond'`
    const rows = present[0]?.runners === true
      ? yield* sql<Row>`
        SELECT s.address, s.shards_per_group, s.shard_groups, s.lock_expiration_ms FROM hookline_cluster_settings s
        WHERE ${fresh} OR EXISTS (SELECT 1 FROM cluster_runners r WHERE r.address = s.address
          AND r.last_heartbeat > now() - s.lock_expiration_ms * interval '1 millisecond')
        ORDER BY s.address`
      : yield* sql<Row>`
        SELECT s.address, s.shards_per_group, s.shard_groups, s.lock_expiration_ms FROM hookline_cluster_settings s
        WHERE ${fresh} ORDER BY s.address`
    const out: Array<Settings.Shared> = []
    for (const row of rows) {
      const decoded = decode(row)
      if (Result.isFailure(decoded)) return yield* decoded.failure
      out.push(decoded.success)
    }
    return out
  })

/**
 * The unprocessed messages stored on shards above `shardsPerGroup` (how many, and the
 * least such shard): a process with a larger count sent them, and no runner with this
 * count reads them. Messages a larger count put on shards within this one are not told
 * apart.
 *
 * @since 0.1.0
 * @category getters
 */
export const beyondShards = (shardsPerGroup: number) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const present = yield* sql<{ readonly messages: boolean }>`SELECT to_regclass('cluster_messages') IS NOT NULL AS messages`
    if (present[0]?.messages !== true) return { count: 0, first: undefined }
    const rows = yield* sql<{ readonly n: unknown; readonly first: unknown }>`
      SELECT count(*)::int AS n, min(substring(shard_id from '([0-9]+)$')::int) AS first FROM cluster_messages
      WHERE NOT processed AND substring(shard_id from '([0-9]+)$')::int > ${shardsPerGroup}`
    const count = Number(rows[0]?.n ?? 0)
    return { count: Number.isSafeInteger(count) ? count : 0, first: rows[0]?.first === null ? undefined : Number(rows[0]?.first) }
  })

/**
 * A runner's start: in one transaction under an advisory lock (so two runners starting
 * at once see each other), reads the live records, refuses with `SettingsMismatch` when
 * one disagrees, and records its own. The warnings (a different lock expiry) are logged.
 *
 * @since 0.1.0
 * @category constructors
 */
export const join = (ours: Settings.Shared) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const warnings = yield* sql.withTransaction(Effect.gen(function*() {
      yield* sql`SELECT pg_advisory_xact_lock(${lockKey})`
      yield* ensureTable(sql)
      const live = yield* readLive(sql)
      const agreed = Settings.agreeRunner(ours, live)
      if (Result.isFailure(agreed)) return yield* agreed.failure
      yield* sql`
        INSERT INTO hookline_cluster_settings (address, shards_per_group, shard_groups, lock_expiration_ms, recorded_at)
        VALUES (${ours.address}, ${ours.shardsPerGroup}, ${ours.shardGroups.join(",")}, ${ours.lockExpirationMillis}, now())
        ON CONFLICT (address) DO UPDATE SET shards_per_group = EXCLUDED.shards_per_group, shard_groups = EXCLUDED.shard_groups,
          lock_expiration_ms = EXCLUDED.lock_expiration_ms, recorded_at = EXCLUDED.recorded_at`
      return agreed.success
    }))
    for (const warning of warnings) yield* Effect.logWarning(warning)
    // A warning, not a refusal: one stray message must not keep a park from starting.
    const beyond = yield* beyondShards(ours.shardsPerGroup)
    if (beyond.count > 0) {
      yield* Effect.logWarning(
        `${beyond.count} unprocessed message(s) are stored on shards above this runner's shardsPerGroup ${ours.shardsPerGroup} ` +
          `(the first on shard ${beyond.first}): a process with a larger count sent them, and no runner with ${ours.shardsPerGroup} reads them; ` +
          `run the park with the count they were sent with until they are processed, or delete them (docs/scaling.md, "The settings a park shares")`,
      )
    }
  })

/**
 * A runner's record removed (its graceful shutdown, after its cluster's).
 *
 * @since 0.1.0
 * @category destructors
 */
export const leave = (address: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.asVoid(sql`DELETE FROM hookline_cluster_settings WHERE address = ${address}`))

/**
 * A client-only process's settings: the live runners' records read every 250 ms until
 * one is there or `waitMillis` passed, then `Settings.agreeClient`; its warnings logged.
 *
 * @since 0.1.0
 * @category constructors
 */
export const forClient = (given: Partial<Settings.Settings>, waitMillis: number) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const until = (yield* Clock.currentTimeMillis) + waitMillis
    let live = yield* readLive(sql)
    while (live.length === 0 && (yield* Clock.currentTimeMillis) < until) {
      yield* Effect.sleep("250 millis")
      live = yield* readLive(sql)
    }
    const agreed = Settings.agreeClient(given, shardGroups, live)
    if (Result.isFailure(agreed)) return yield* agreed.failure
    for (const warning of agreed.success.warnings) yield* Effect.logWarning(warning)
    return agreed.success.settings
  })
