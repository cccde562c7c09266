/**
 * A request to stop the run: its reason, a message for people, and who raised it.
 * Hooks add signals; the loop decides.
 *
 * @since 0.1.0
 */
import * as StopReason from "./StopReason.js"
import { truncate } from "./Truncation.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface StopSignal {
  readonly reason: StopReason.StopReason
  readonly message: string
  readonly source: string
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const make = (reason: StopReason.StopReason, message: string, source: string): StopSignal =>
  Object.freeze({ reason, message: truncate(message), source })

/**
 * The signal with the highest-priority reason (the first of equals), if any.
 *
 * @since 0.1.0
 * @category getters
 */
export const highest = (signals: Iterable<StopSignal>): StopSignal | undefined => {
  let best: StopSignal | undefined
  for (const signal of signals) {
    if (best === undefined || StopReason.priority(signal.reason) > StopReason.priority(best.reason)) best = signal
  }
  return best
}

/**
 * @since 0.1.0
 * @category guards
 */
export const isHard = (signal: StopSignal): boolean => StopReason.isHard(signal.reason)
