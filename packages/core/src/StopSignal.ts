/**
 * A request to stop the run: its reason, a message for people, and who raised it.
 * Hooks add signals; the loop decides.
 *
 * @since 0.1.0
 */
import * as StopReason from "./StopReason.js"
import { truncate } from "./Truncation.js"
import { finite } from "./internal/finite.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface StopSignal {
  /** A built-in reason, or a custom reason's name. */
  readonly reason: StopReason.Name
  readonly message: string
  readonly source: string
  /** A custom reason's declared priority; absent for a built-in reason. */
  readonly priority?: number | undefined
  /** A custom reason's declared kind; absent for a built-in reason. */
  readonly kind?: StopReason.Kind | undefined
}

/**
 * A signal for a built-in reason, or for a custom one (`StopReason.custom`), whose
 * priority and kind the signal then carries.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (reason: StopReason.StopReason | StopReason.Custom, message: string, source: string): StopSignal =>
  typeof reason === "string"
    ? Object.freeze({ reason, message: truncate(message), source })
    : Object.freeze({ reason: reason.name, message: truncate(message), source, priority: finite("priority", reason.priority), kind: reason.kind })

/**
 * The priority of a signal: its custom reason's, else its built-in reason's.
 *
 * @since 0.1.0
 * @category getters
 */
export const priority = (signal: StopSignal): number =>
  signal.priority ?? (StopReason.isStopReason(signal.reason) ? StopReason.priority(signal.reason) : 0)

/**
 * The signal with the highest-priority reason (the first of equals), if any.
 *
 * @since 0.1.0
 * @category getters
 */
export const highest = (signals: Iterable<StopSignal>): StopSignal | undefined => {
  let best: StopSignal | undefined
  for (const signal of signals) {
    if (best === undefined || priority(signal) > priority(best)) best = signal
  }
  return best
}

/**
 * @since 0.1.0
 * @category guards
 */
export const isHard = (signal: StopSignal): boolean =>
  signal.kind !== undefined ? signal.kind === "hard" : StopReason.isStopReason(signal.reason) ? StopReason.isHard(signal.reason) : true
