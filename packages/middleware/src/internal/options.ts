// Checks of a built-in's options where the user gives them: a bad value throws
// `HooklineError(InvalidConfiguration)` naming the path (`retry.maxAttempts`), and a
// key the built-in does not know is refused (a typo would silently keep the default).
import { AgentError, Json } from "@hookline/core"
import * as Bounded from "./bounded.js"

export const invalid = (path: string, detail: string): never => {
  throw new AgentError.HooklineError(AgentError.invalidConfiguration(path, detail))
}

const got = (u: unknown) => Json.excerpt(u, 60)

// Known keys only, each value read once into a copy (internal/bounded.ts).
export const record = (at: string, u: unknown, keys: ReadonlyArray<string>): Readonly<Record<string, unknown>> =>
  u === undefined ? {} : Bounded.options(at, u, keys, "an options object")

export const integer = (at: string, u: unknown, fallback: number, min: number): number => {
  if (u === undefined) return fallback
  if (typeof u !== "number" || !Number.isSafeInteger(u) || u < min) invalid(at, `expected an integer >= ${min}, got ${got(u)}`)
  return u as number
}

export const number = (at: string, u: unknown, fallback: number, min: number, max = Number.POSITIVE_INFINITY): number => {
  if (u === undefined) return fallback
  if (typeof u !== "number" || !Number.isFinite(u) || u < min || u > max) {
    invalid(at, `expected a number from ${min}${max === Number.POSITIVE_INFINITY ? "" : ` to ${max}`}, got ${got(u)}`)
  }
  return u as number
}

export const boolean = (at: string, u: unknown, fallback: boolean): boolean => {
  if (u === undefined) return fallback
  if (typeof u !== "boolean") invalid(at, `expected true or false, got ${got(u)}`)
  return u as boolean
}

// Lists: at most maxItems items, no hole, each read once (internal/bounded.ts).
export const strings = (at: string, u: unknown): ReadonlyArray<string> => {
  const names = Bounded.list(at, u, "a non-empty array of names", (path, s) =>
    typeof s === "string" && s.trim() !== "" ? Bounded.text(path, s) : invalid(path, `expected a name, got ${got(s)}`))
  return names.length === 0 ? invalid(at, "expected a non-empty array of names, got []") : names
}

export const integers = (at: string, u: unknown, fallback: ReadonlyArray<number>): ReadonlyArray<number> => {
  if (u === undefined) return fallback
  return Bounded.list(at, u, "an array of HTTP status codes", (path, n) =>
    typeof n === "number" && Number.isSafeInteger(n) && n >= 100 && n <= 599 ? n : invalid(path, `expected an HTTP status code, got ${got(n)}`))
}

/** A built-in's place in the stack, from the caller's `name`/`priority` or its defaults. */
export interface Placement {
  readonly name: string
  readonly priority: number
}

/** A built-in's hook or wrap with its checked place: a capability registers this, never reads the options again. */
export interface Placed<W> {
  readonly wrap: W
  readonly placement: Placement
}

/** The options every built-in takes for its place in the stack, from the copy read once. */
export const placement = (at: string, o: Readonly<Record<string, unknown>>, name: string, priority: number): Placement => {
  const n = o["name"]
  if (n !== undefined && (typeof n !== "string" || n.trim() === "")) invalid(`${at}.name`, `expected a non-empty name, got ${got(n)}`)
  const p = o["priority"]
  if (p !== undefined && (typeof p !== "number" || !Number.isFinite(p))) invalid(`${at}.priority`, `expected a finite number, got ${got(p)}`)
  return { name: (n as string | undefined) ?? name, priority: (p as number | undefined) ?? priority }
}
