// Checks of the built-ins' options: an unknown key (a typo) or a value of the wrong
// kind is an InvalidConfiguration naming the path, thrown when the capability is made.
import { AgentError, Json } from "@hookline/core"

export const invalid = (path: string, detail: string): never => {
  throw new AgentError.HooklineError(AgentError.invalidConfiguration(path, detail))
}

export const record = (path: string, u: unknown, keys: ReadonlyArray<string>): Readonly<Record<string, unknown>> => {
  if (typeof u !== "object" || u === null || Array.isArray(u)) return invalid(path, `expected an object, got ${Json.excerpt(u, 60)}`)
  for (const key of Object.keys(u)) {
    if (!keys.includes(key)) invalid(`${path}.${key}`, `unknown option ${JSON.stringify(key)}: expected one of ${keys.join(", ")}`)
  }
  return u as Readonly<Record<string, unknown>>
}

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

export const text = (path: string, u: unknown): string =>
  typeof u === "string" ? u : invalid(path, `expected a string, got ${Json.excerpt(u, 60)}`)

export const names = (path: string, u: unknown): ReadonlyArray<string> =>
  Array.isArray(u) && u.every((n) => typeof n === "string")
    ? Object.freeze([...u] as Array<string>)
    : invalid(path, `expected an array of tool names, got ${Json.excerpt(u, 60)}`)
