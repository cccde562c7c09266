/**
 * How long a pooled server waits before it is started again: nothing before the first
 * start, then `initial`, doubling with each failure in a row (a death, a failed
 * handshake, a failed health check), never more than `max`. Pure, so the policy is
 * tested without a clock.
 *
 * @internal
 */

/**
 * @internal
 */
export interface Settings {
  readonly initialMs: number
  readonly maxMs: number
}

/** The defaults: 100 ms, doubling, at most 30 s. */
export const defaults: Settings = Object.freeze({ initialMs: 100, maxMs: 30_000 })

/**
 * The wait before the next start after `failures` failures in a row.
 *
 * @internal
 */
export const delayMs = (failures: number, settings: Settings): number => {
  if (!(failures > 0)) return 0
  // 2^30 is past any max; the exponent is capped so the product stays finite.
  const doubled = settings.initialMs * 2 ** Math.min(failures - 1, 30)
  return Math.min(settings.maxMs, doubled)
}
