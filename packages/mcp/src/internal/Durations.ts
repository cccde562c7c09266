/**
 * Duration options as users give them (`"30 seconds"`, a number of milliseconds, a
 * `Duration`): decoded without throwing, so each option's check names its own path.
 *
 * @internal
 */
import { Duration, Option } from "effect"

/**
 * The duration `input` denotes, or `undefined` when it denotes none.
 *
 * @internal
 */
export const decode = (input: unknown): Duration.Duration | undefined => {
  try {
    return Option.getOrUndefined(Duration.fromInput(input as Duration.Input))
  } catch {
    return undefined
  }
}

/**
 * A duration option in milliseconds; `undefined` when not given, not a duration, or
 * not finite.
 *
 * @internal
 */
export const millisOf = (input: unknown): number | undefined => {
  if (input === undefined) return undefined
  const duration = decode(input)
  return duration !== undefined && Duration.isFinite(duration) ? Duration.toMillis(duration) : undefined
}
