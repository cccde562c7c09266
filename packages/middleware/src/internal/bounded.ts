// The bounds of what a built-in's options hold, the codecs' own (branch edges3). A list
// holds at most `Codecs.defaultLimits.maxItems` items and no hole, each read once (a
// hole was skipped by `every`/`forEach` and copied as `undefined`; a sparse array of
// 2^32 - 1 slots was walked for minutes, then copied until the heap ran out). A record
// used as a table (prices, per-tool limits) holds at most as many keys. A text that
// reaches the state holds at most `Json.maxStringLength` characters: a longer answer,
// placeholder or prompt was taken when the capability was made, then failed every run.
import { AgentError, Codecs, Json } from "@hookline/core"

const invalid = (path: string, detail: string): never => {
  throw new AgentError.HooklineError(AgentError.invalidConfiguration(path, detail))
}

/** The most items an option's list (or keys a table) may hold: the codecs' `maxItems`. */
export const maxItems: number = Codecs.defaultLimits.maxItems

const tooMany = (n: number): string => `expected at most ${maxItems} items (the maxItems limit), got ${n}`

/**
 * `u`'s items as a frozen array, each checked by `item` at `<at>[i]`; a value that is not
 * an array is refused at `at` as not `expected`. A hostile array (a Proxy whose traps
 * throw) is refused at `at`, not thrown through.
 */
export const list = <A>(at: string, u: unknown, expected: string, item: (path: string, value: unknown) => A): ReadonlyArray<A> => {
  try {
    // Inside: `Array.isArray` throws on a revoked Proxy.
    if (!Array.isArray(u)) return invalid(at, `expected ${expected}, got ${Json.excerpt(u, 60)}`)
    const n = u.length
    if (n > maxItems) return invalid(at, tooMany(n))
    const out: Array<A> = []
    for (let i = 0; i < n; i++) {
      if (!(i in u)) invalid(`${at}[${i}]`, `expected ${expected}, got an empty slot (a hole)`)
      out.push(item(`${at}[${i}]`, u[i]))
    }
    return Object.freeze(out)
  } catch (cause) {
    if (cause instanceof AgentError.HooklineError) throw cause
    return invalid(at, `reading it threw: ${AgentError.messageOf(cause)}`)
  }
}

/** A string within `Json.maxStringLength`, else refused at `at` naming its length and the limit. */
export const text = (at: string, u: string): string =>
  Json.withinMaxLength(u, (length, limit) => invalid(at, `a string of ${length} characters, past the limit of ${limit} (Json.maxStringLength)`))

/**
 * An options object's own keys, each one of `keys` (a typo would silently keep the
 * default), and their values read once into a copy (null prototype, so a key
 * `__proto__` of a table is an own key like any other). A hostile object (a Proxy whose
 * traps throw, a throwing getter) is refused at `at`, not thrown through.
 */
export const options = (at: string, u: unknown, keys: ReadonlyArray<string> | undefined, expected: string): Readonly<Record<string, unknown>> => {
  try {
    if (typeof u !== "object" || u === null || Array.isArray(u)) return invalid(at, `expected ${expected}, got ${Json.excerpt(u, 60)}`)
    const own = Object.keys(u)
    if (keys === undefined && own.length > maxItems) return invalid(at, tooMany(own.length))
    const copy: Record<string, unknown> = Object.create(null)
    for (const key of own) {
      if (keys !== undefined && !keys.includes(key)) {
        invalid(`${at === "" ? "" : `${at}.`}${key}`, `unknown option ${Json.excerpt(key, 60)}: expected one of ${keys.join(", ")}`)
      }
      copy[key] = (u as Record<string, unknown>)[key]
    }
    return copy
  } catch (cause) {
    if (cause instanceof AgentError.HooklineError) throw cause
    return invalid(at, `reading it threw: ${AgentError.messageOf(cause)}`)
  }
}
