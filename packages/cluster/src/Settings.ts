/**
 * The cluster's settings a deployment tunes, with the defaults shipped, each a trade
 * (docs/scaling.md explains them). A runner dies: its runs pause for about the lock
 * expiry plus one assignment refresh, then continue on the other runners.
 *
 * @since 0.1.0
 */
import { Duration } from "effect"
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
   * lease then stops its tools at its next renewal).
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
  /** Shards per group, the same on every runner (default 300). */
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
