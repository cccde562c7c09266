// Checks of the built-ins' options: an unknown key (a typo) or a value of the wrong
// kind is an InvalidConfiguration naming the path, thrown when the capability is made.
import { AgentError, Json } from "@hookline/core"
import * as Bounded from "./bounded.js"

export const invalid = (path: string, detail: string): never => {
  throw new AgentError.HooklineError(AgentError.invalidConfiguration(path, detail))
}

// Known keys only, each value read once into a copy (internal/bounded.ts).
export const record = (path: string, u: unknown, keys: ReadonlyArray<string>): Readonly<Record<string, unknown>> =>
  Bounded.options(path, u, keys, "an object")

export const count = (path: string, u: unknown, min = 0): number =>
  typeof u === "number" && Number.isSafeInteger(u) && u >= min
    ? u
    : invalid(path, `expected a whole number >= ${min}, got ${Json.excerpt(u, 60)}`)

export const amount = (path: string, u: unknown): number =>
  typeof u === "number" && Number.isFinite(u) && u >= 0 ? u : invalid(path, `expected a finite number >= 0, got ${Json.excerpt(u, 60)}`)

export const oneOf = <A extends string>(path: string, u: unknown, values: ReadonlyArray<A>): A =>
  typeof u === "string" && (values as ReadonlyArray<string>).includes(u)
    ? u as A
    : invalid(path, `expected one of ${values.map((v) => JSON.stringify(v)).join(", ")}, got ${Json.excerpt(u, 60)}`)

// Within Json.maxStringLength: a text an option gives may reach the state.
export const text = (path: string, u: unknown): string =>
  typeof u === "string" ? Bounded.text(path, u) : invalid(path, `expected a string, got ${Json.excerpt(u, 60)}`)

// At most maxItems names, no hole, each a string within the bound.
export const names = (path: string, u: unknown): ReadonlyArray<string> =>
  Bounded.list(path, u, "an array of names", (at, n) => (typeof n === "string" ? Bounded.text(at, n) : invalid(at, `expected a name, got ${Json.excerpt(n, 60)}`)))

// A table's entries (prices by model, limits by tool): any own key, at most maxItems of them.
export const table = (path: string, u: unknown): Readonly<Record<string, unknown>> => Bounded.options(path, u, undefined, "an object")
