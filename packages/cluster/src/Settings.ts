/**
 * The cluster's settings a deployment tunes, with the defaults shipped, each a trade
 * (docs/scaling.md explains them). A runner dies: its runs pause for the lock expiry less
 * its last heartbeat's age (up to one lock refresh), plus up to one assignment refresh,
 * plus their recovery on another runner (a fraction of a second), then continue there.
 *
 * @since 0.1.0
 */
import { Data, Duration, Result } from "effect"
import type { ShardingConfig } from "effect/cluster"

/**
 * @since 0.1.0
 * @category models
 */
export interface Settings {
  /**
   * How long a dead runner's shards stay locked (default 10 s): the pause of its runs.
   * Shorter moves runs sooner, but a runner whose event loop stalls longer (GC, CPU
   * starvation) loses its shards while it may still run a tool (a zombie; the run's
   * lease then stops its tools at its next renewal). Give every runner the same value:
   * each counts a runner alive while its heartbeat is younger than its own expiry, so a
   * process with a longer one keeps sending a dead runner's shards to it after the others
   * have moved them (a runner with another expiry than the live runners' logs a warning).
   * A client-only process (`Runner.clientLayer`) takes the runners' value from their records.
   */
  readonly lockExpiration: Duration.Input
  /** How often a runner refreshes its shard locks and heartbeat (default 3 s, at most a third of the expiry). */
  readonly lockRefresh: Duration.Input
  /** How often runners read the assignments again (default 1 s): part of the pause after a death. */
  readonly assignmentsRefresh: Duration.Input
  /** How long an idle entity stays resident (default 1 minute): a suspended run then holds nothing on the runner. */
  readonly idleEviction: Duration.Input
  /** The most runs resident on one runner (default 10,000): past it, messages wait in PostgreSQL (back-pressure). */
  readonly maxResidentEntities: number
  /**
   * Shards per group (default 300, at most 10,000): the same on every runner and client
   * process, and chosen before the park's first start (a run's shard is its id's hash
   * modulo this count, so changing it strands the messages stored under the old one). A
   * runner with another count than the live runners' refuses to start, a client that names
   * another fails its readiness (`SettingsMismatch`); a client that names none takes the
   * runners'. A
   * runner's read of new messages writes the ids of the shards it holds into its SQL: a
   * runner holding 300 spends 0.24–1.7 ms more a read than one holding 30, by the size
   * of the message table (docs/performance.md); a runner of a park of N holds about
   * count / N. Fewer shards than runners leave runners idle, and a count not much above
   * the runners balances them worse (docs/scaling.md).
   */
  readonly shardsPerGroup: number
  /** How often a runner polls the message table for messages it was not sent directly (default 2 s). */
  readonly messagePoll: Duration.Input
  /**
   * How long a runner shutting down (SIGTERM) lets a Start or Resume in flight go on
   * before it interrupts it (default 15 s, effect/cluster's, within Kubernetes' default
   * grace period of 30 s): a run that ends or suspends sooner finishes on the leaving
   * runner; a longer one is handed over at its last committed step. Keep it below the
   * grace period the platform gives before its SIGKILL.
   */
  readonly terminationTimeout: Duration.Input
  /**
   * Whether a runner's replies and its marks of the messages it has read wait for
   * PostgreSQL's WAL flush (default false: they do not, `synchronous_commit = off` on
   * their own connections). Not waiting saves a flush wait on every message a runner
   * handles; a PostgreSQL crash can then lose the last of them (up to three times the
   * server's `wal_writer_delay`, 600 ms by default), and such a message is handled again,
   * which a run answers idempotently from its store. What a runner sends, its shard locks
   * and its row, and the runs' checkpoints always wait for the flush.
   */
  readonly repliesWaitForFlush: boolean
}

/**
 * The defaults shipped.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaults: Settings = Object.freeze({
  lockExpiration: "10 seconds",
  lockRefresh: "3 seconds",
  assignmentsRefresh: "1 second",
  idleEviction: "1 minute",
  maxResidentEntities: 10_000,
  shardsPerGroup: 300,
  messagePoll: "2 seconds",
  terminationTimeout: "15 seconds",
  repliesWaitForFlush: false,
})

const millis = (input: Duration.Input): number => {
  const parsed = Duration.fromInput(input)
  return parsed._tag === "Some" ? Duration.toMillis(parsed.value) : Number.NaN
}

/**
 * The run lease's time to live: the lock expiry (a zombie stops running tools about when
 * its shards move).
 *
 * @since 0.1.0
 * @category getters
 */
export const leaseMillis = (settings: Settings): number => millis(settings.lockExpiration)

/**
 * The settings as effect/cluster's `ShardingConfig` (every field given, so nothing is
 * read from `HOST`, `PORT` or other environment variables).
 *
 * @since 0.1.0
 * @category getters
 */
export const shardingConfig = (settings: Settings): Partial<ShardingConfig.ShardingConfig["Service"]> => ({
  shardLockExpiration: settings.lockExpiration,
  shardLockRefreshInterval: settings.lockRefresh,
  refreshAssignmentsInterval: settings.assignmentsRefresh,
  entityMaxIdleTime: settings.idleEviction,
  maxResidentEntities: settings.maxResidentEntities,
  shardsPerGroup: settings.shardsPerGroup,
  entityMessagePollInterval: settings.messagePoll,
  entityReplyPollInterval: settings.messagePoll,
  entityTerminationTimeout: settings.terminationTimeout,
})

/**
 * A duration in milliseconds.
 *
 * @since 0.1.0
 * @category getters
 */
export const millisOf = (input: Duration.Input): number => millis(input)

/**
 * A setting given that is not one (a flag of `hookline-runner`, a setting in code), or a
 * stored settings record that is not one (`setting` is then
 * `hookline_cluster_settings.<field> of "<address>"`): `setting` names it, `expected`
 * says what it takes, `got` is what it was given. Nothing started; `hookline-runner`
 * exits 2 with the message.
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidSetting extends Data.TaggedError("InvalidSetting")<{
  readonly setting: string
  readonly expected: string
  readonly got: string
}> {
  override get message(): string {
    return `${this.setting}: expected ${this.expected}, got ${JSON.stringify(this.got)}`
  }
}

type DurationKey = "lockExpiration" | "lockRefresh" | "assignmentsRefresh" | "idleEviction" | "messagePoll" | "terminationTimeout"
type CountKey = "maxResidentEntities" | "shardsPerGroup"

/**
 * The settings `hookline-runner` takes as flags, by flag name.
 *
 * @since 0.1.0
 * @category constants
 */
export const flags: { readonly [flag: string]: DurationKey | CountKey | "repliesWaitForFlush" } = Object.freeze({
  "lock-expiration": "lockExpiration",
  "lock-refresh": "lockRefresh",
  "assignments-refresh": "assignmentsRefresh",
  "idle-eviction": "idleEviction",
  "message-poll": "messagePoll",
  "termination-timeout": "terminationTimeout",
  "max-resident": "maxResidentEntities",
  "shards-per-group": "shardsPerGroup",
  "replies-wait-for-flush": "repliesWaitForFlush",
})

const durationExpected = `a positive finite duration such as "10 seconds" or "500 millis", or a number of milliseconds`
const countExpected = "a positive whole number"
// effect/cluster builds an array of every shard on each assignment refresh: bounded.
const maxShardsPerGroup = 10_000
const shardsExpected = `a whole number from 1 to ${maxShardsPerGroup}`
const countKeys: ReadonlyArray<CountKey> = ["maxResidentEntities", "shardsPerGroup"]
const expectedOf = (key: CountKey) => (key === "shardsPerGroup" ? shardsExpected : countExpected)

// The duration settings are the flags' other than the counts and the switch.
const durationKeys: ReadonlyArray<DurationKey> = Object.values(flags).filter((key): key is DurationKey => !countKeys.includes(key as CountKey) && key !== "repliesWaitForFlush")

// `millis` is NaN for an input that denotes no duration; an input it cannot read throws.
const isDuration = (input: unknown): boolean => {
  try {
    const ms = millis(input as Duration.Input)
    return Number.isFinite(ms) && ms > 0
  } catch {
    return false
  }
}

const isCount = (n: unknown, key: CountKey): boolean =>
  typeof n === "number" && Number.isSafeInteger(n) && n > 0 && (key !== "shardsPerGroup" || n <= maxShardsPerGroup)

/**
 * Checks settings given in code (`Runner.layer({ settings })`): each duration positive
 * and finite, each count a positive whole number; the first that is not is named.
 *
 * @since 0.1.0
 * @category constructors
 */
export const check = (settings: Partial<Settings>): Result.Result<Partial<Settings>, InvalidSetting> => {
  for (const key of durationKeys) {
    const value = settings[key]
    if (value !== undefined && !isDuration(value)) return Result.fail(new InvalidSetting({ setting: key, expected: durationExpected, got: String(value) }))
  }
  if (settings.repliesWaitForFlush !== undefined && typeof settings.repliesWaitForFlush !== "boolean") {
    return Result.fail(new InvalidSetting({ setting: "repliesWaitForFlush", expected: "true or false", got: String(settings.repliesWaitForFlush) }))
  }
  for (const key of countKeys) {
    const value = settings[key]
    if (value !== undefined && !isCount(value, key)) return Result.fail(new InvalidSetting({ setting: key, expected: expectedOf(key), got: String(value) }))
  }
  return Result.succeed(settings)
}

/**
 * The settings given as `hookline-runner` flags (`{ "lock-expiration": "3 seconds" }`),
 * each checked: a duration with a unit, or a number of milliseconds, positive and finite;
 * `max-resident` a positive whole number, `shards-per-group` one from 1 to 10,000,
 * `replies-wait-for-flush` true or false. Absent
 * flags are left out (the defaults stand).
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromFlags = (given: { readonly [flag: string]: string | undefined }): Result.Result<Partial<Settings>, InvalidSetting> => {
  const out: { -readonly [K in keyof Settings]?: Settings[K] } = {}
  for (const [flag, key] of Object.entries(flags)) {
    const text = given[flag]
    if (text === undefined) continue
    const trimmed = text.trim()
    if (key === "repliesWaitForFlush") {
      if (trimmed !== "true" && trimmed !== "false") return Result.fail(new InvalidSetting({ setting: `--${flag}`, expected: "true or false", got: text }))
      out.repliesWaitForFlush = trimmed === "true"
    } else if (key === "maxResidentEntities" || key === "shardsPerGroup") {
      const n = /^\d+$/.test(trimmed) ? Number(trimmed) : Number.NaN
      if (!isCount(n, key)) return Result.fail(new InvalidSetting({ setting: `--${flag}`, expected: expectedOf(key), got: text }))
      out[key] = n
    } else {
      // A number alone is milliseconds; otherwise effect's "<number> <unit>".
      const input: Duration.Input = /^\d+(\.\d+)?$/.test(trimmed) ? Number(trimmed) : (trimmed as Duration.Input)
      if (!isDuration(input)) return Result.fail(new InvalidSetting({ setting: `--${flag}`, expected: durationExpected, got: text }))
      out[key] = input
    }
  }
  return Result.succeed(out)
}

/**
 * What a runner records of its settings where every process of the park reads them (a
 * table of ours beside effect/cluster's): the settings that must agree across the park
 * (`shardsPerGroup`, the shard groups) and the lock expiry a client takes from it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Shared {
  /** The runner's address, `host:port`, as effect/cluster records it. */
  readonly address: string
  readonly shardsPerGroup: number
  /** effect/cluster's shard groups, sorted (hookline's entity uses `"default"` only). */
  readonly shardGroups: ReadonlyArray<string>
  readonly lockExpirationMillis: number
}

/**
 * A setting every process of a park must share, given otherwise than the live runners
 * have it: `process` says whose value `ours` is ("this runner", "this client", or a live
 * runner's when two live runners disagree), `theirs` is the live runner `runner`'s.
 * A runner with it did not start; a client with it is not ready.
 *
 * @since 0.1.0
 * @category errors
 */
export class SettingsMismatch extends Data.TaggedError("SettingsMismatch")<{
  readonly setting: "shardsPerGroup" | "shardGroups"
  readonly process: string
  readonly ours: number | string
  readonly theirs: number | string
  readonly runner: string
}> {
  override get message(): string {
    return `${this.setting}: ${this.process} has ${this.ours}, the live runner ${this.runner} has ${this.theirs}; ` +
      `every runner and client process of a park must use the same (a run's shard is its id's hash modulo shardsPerGroup; docs/scaling.md, "Settings")`
  }
}

const groupsText = (groups: ReadonlyArray<string>) => groups.join(",")

// The first setting that must agree and does not, between `ours` and a live runner's.
const mismatch = (process: string, ours: Pick<Shared, "shardsPerGroup" | "shardGroups">, theirs: Shared): SettingsMismatch | undefined =>
  ours.shardsPerGroup !== theirs.shardsPerGroup
    ? new SettingsMismatch({ setting: "shardsPerGroup", process, ours: ours.shardsPerGroup, theirs: theirs.shardsPerGroup, runner: theirs.address })
    : groupsText(ours.shardGroups) !== groupsText(theirs.shardGroups)
    ? new SettingsMismatch({ setting: "shardGroups", process, ours: groupsText(ours.shardGroups), theirs: groupsText(theirs.shardGroups), runner: theirs.address })
    : undefined

const expiryWarning = (process: string, ours: number, theirs: Shared) =>
  `lockExpiration: ${process} has ${ours} ms, the live runner ${theirs.address} has ${theirs.lockExpirationMillis} ms; ` +
  `give every runner and client process the same (each counts a runner alive while its heartbeat is younger than its own expiry)`

/**
 * A runner's start against the live runners' records (its own address left out: a
 * runner restarted at its address replaces its own record): the first shared setting
 * that differs fails it; a different lock expiry is a warning (a rolling change of the
 * expiry passes through it), returned for the log.
 *
 * @since 0.1.0
 * @category constructors
 */
export const agreeRunner = (ours: Shared, live: ReadonlyArray<Shared>): Result.Result<ReadonlyArray<string>, SettingsMismatch> => {
  const warnings: Array<string> = []
  for (const theirs of live) {
    if (theirs.address === ours.address) continue
    const failed = mismatch("this runner", ours, theirs)
    if (failed !== undefined) return Result.fail(failed)
    if (theirs.lockExpirationMillis !== ours.lockExpirationMillis) warnings.push(expiryWarning("this runner", ours.lockExpirationMillis, theirs))
  }
  return Result.succeed(warnings)
}

/**
 * A client process's settings from the live runners' records: the runners'
 * `shardsPerGroup` and `lockExpiration` are taken (the client's own `lockExpiration`,
 * when given and different, is named in a warning); a `shardsPerGroup` the client names
 * that differs, runners that disagree among themselves, or shard groups other than the
 * client's fail it. With no live record (no runner up yet, or runners that record
 * nothing) the client keeps its own settings, with a warning.
 *
 * @since 0.1.0
 * @category constructors
 */
export const agreeClient = (
  given: Partial<Settings>,
  shardGroups: ReadonlyArray<string>,
  live: ReadonlyArray<Shared>,
): Result.Result<{ readonly settings: Settings; readonly warnings: ReadonlyArray<string> }, SettingsMismatch> => {
  const own: Settings = { ...defaults, ...given }
  const first = live[0]
  if (first === undefined) {
    return Result.succeed({ settings: own, warnings: ["no live runner has recorded its settings: this client uses its own shardsPerGroup and lockExpiration, unchecked"] })
  }
  for (const other of live.slice(1)) {
    const failed = mismatch(`the live runner ${first.address}`, first, other)
    if (failed !== undefined) return Result.fail(failed)
  }
  const failed = mismatch("this client", { shardsPerGroup: given.shardsPerGroup ?? first.shardsPerGroup, shardGroups }, first)
  if (failed !== undefined) return Result.fail(failed)
  const warnings: Array<string> = []
  const expiries = new Set(live.map((r) => r.lockExpirationMillis))
  if (expiries.size > 1) warnings.push(`lockExpiration: the live runners have ${[...expiries].join(", ")} ms; this client takes ${first.address}'s, ${first.lockExpirationMillis} ms`)
  if (given.lockExpiration !== undefined && millis(given.lockExpiration) !== first.lockExpirationMillis) {
    warnings.push(`${expiryWarning("this client", millis(given.lockExpiration), first)}; this client takes the runners'`)
  }
  return Result.succeed({ settings: { ...own, shardsPerGroup: first.shardsPerGroup, lockExpiration: first.lockExpirationMillis }, warnings })
}
