import { Duration } from "effect"

const units = ["weeks", "days", "hours", "minutes", "seconds", "milliseconds", "microseconds", "nanoseconds"]
const amount = (n: unknown): boolean => typeof n === "number" && Number.isFinite(n) && n >= 0

// Effect reads anything object-shaped as a duration (`{}` and `{ minutes: "x" }` are
// zero, `-5` is negative, `Infinity` is forever), so a limit given by mistake would
// fire at once or never. This accepts only a finite, non-negative duration.
/** A finite duration >= 0, or the reason the input is not one. */
export const finiteDuration = (input: unknown): Duration.Duration | string => {
  const got = `got ${typeof input === "number" || typeof input === "bigint" ? String(input) : describe(input)}`
  if (typeof input === "number" && !amount(input)) return `expected a finite number of milliseconds >= 0, ${got}`
  if (typeof input === "bigint" && input < 0n) return `expected a duration >= 0, ${got}`
  if (Array.isArray(input) && !(input.length === 2 && input.every(amount))) return `expected [seconds, nanos] >= 0, ${got}`
  if (typeof input === "object" && input !== null && !Array.isArray(input) && !Duration.isDuration(input)) {
    const entries = Object.entries(input)
    const bad = entries.find(([key, value]) => !units.includes(key) || !amount(value))
    if (entries.length === 0 || bad !== undefined) {
      return `expected an object of ${units.join(", ")} (each a finite number >= 0), ${got}`
    }
  }
  const parsed = Duration.fromInput(input as Duration.Input)
  if (parsed._tag === "None") return `expected a duration ("30 seconds", a number of ms), ${got}`
  const duration = parsed.value
  if (!Duration.isFinite(duration) || Duration.isNegative(duration)) return `expected a finite duration >= 0, ${got}`
  return duration
}

const describe = (input: unknown): string => {
  try {
    return JSON.stringify(input) ?? String(input)
  } catch {
    return typeof input
  }
}
