/**
 * Codecs for JSON values, JSON objects and metadata. Decoding validates the whole
 * tree and builds a deeply frozen copy: objects are made with `Object.fromEntries`,
 * so a parsed own key `__proto__` stays an own data key and never sets a prototype.
 *
 * A rule added to a codec of the state's parts (a field's bound, a value its builder
 * rewrites) goes into `itself.ts` too: the agent's entry keeps a state that check vouches
 * for without decoding it.
 *
 * @since 0.1.0
 */
import * as t from "io-ts"
import { isLeft } from "fp-ts/lib/Either.js"
import type { JsonObject as JsonObject_, JsonValue as JsonValue_, Metadata as Metadata_ } from "../Json.js"
import { maxDepth, maxStringLength } from "../internal/limits.js"
import { limitsOf, stringProblem, type Codec } from "./combinators.js"
import { remembering } from "./built.js"

const isPlainObject = (u: object): boolean => {
  const proto: unknown = Object.getPrototypeOf(u)
  return proto === Object.prototype || proto === null
}

const kindOf = (u: unknown): string =>
  u === undefined ? "undefined" : typeof u === "object" ? Object.prototype.toString.call(u) : `a ${typeof u}`

const messageOf = (cause: unknown): string => {
  try {
    return cause instanceof Error ? cause.message : String(cause)
  } catch {
    return "an exception"
  }
}

// A property read that may run a hostile getter or proxy trap: a throw is a failure
// at that key, not a crash.
const read = (u: object, key: string | number, c: t.Context): t.Validation<unknown> => {
  try {
    return t.success((u as Record<string | number, unknown>)[key])
  } catch (cause) {
    return t.failure(undefined, t.appendContext(c, String(key), JsonValue, undefined), `reading it threw: ${messageOf(cause)}`)
  }
}

// Validates and copies in one pass; each new node is frozen as it is built, so the
// result is deeply frozen. `open` holds the ancestors, to refuse cycles.
const walk = (u: unknown, c: t.Context, depth: number, open: Set<object>): t.Validation<JsonValue_> => {
  try {
    return walkNode(u, c, depth, open)
  } catch (cause) {
    // A revoked proxy, a throwing trap: a bad value at this path.
    return t.failure(u, c, `expected a JSON value, but inspecting it threw: ${messageOf(cause)}`)
  }
}

const walkNode = (u: unknown, c: t.Context, depth: number, open: Set<object>): t.Validation<JsonValue_> => {
  switch (typeof u) {
    case "string": {
      const problem = stringProblem(u, c)
      return problem === undefined ? t.success(u) : t.failure(u, c, problem)
    }
    case "boolean":
      return t.success(u)
    case "number":
      // -0 reads as 0: JSON carries no -0, so a value equals itself after a checkpoint.
      return Number.isFinite(u) ? t.success(u === 0 ? 0 : u) : t.failure(u, c, `expected a finite number, got ${u}`)
    case "object":
      break
    default:
      return t.failure(u, c, `expected a JSON value, got ${kindOf(u)}`)
  }
  if (u === null) return t.success(null)
  if (!Array.isArray(u) && !isPlainObject(u)) return t.failure(u, c, `expected a JSON value, got ${kindOf(u)}`)
  if (open.has(u)) return t.failure(u, c, "expected a JSON value, got a circular reference")
  if (depth >= maxDepth) return t.failure(u, c, `expected JSON nested at most ${maxDepth} deep`)
  const { maxItems } = limitsOf(c)
  const size = Array.isArray(u) ? u.length : Object.keys(u).length
  if (size > maxItems) return t.failure(u, c, `expected at most ${maxItems} items (the maxItems limit), got ${size}`)
  open.add(u)
  try {
    if (Array.isArray(u)) {
      const out: Array<JsonValue_> = []
      for (let i = 0; i < u.length; i++) {
        const item = read(u, i, c)
        if (isLeft(item)) return item
        const r = walk(item.right, t.appendContext(c, String(i), JsonValue, item.right), depth + 1, open)
        if (isLeft(r)) return r
        out.push(r.right)
      }
      return t.success(Object.freeze(out))
    }
    const entries: Array<[string, JsonValue_]> = []
    for (const key of Object.keys(u)) {
      // A key is a string like any other: a 100 MB key is refused at that key.
      const long = stringProblem(key, c)
      if (long !== undefined) return t.failure(key, t.appendContext(c, key, JsonValue, key), `a key: ${long}`)
      const value = read(u, key, c)
      if (isLeft(value)) return value
      const r = walk(value.right, t.appendContext(c, key, JsonValue, value.right), depth + 1, open)
      if (isLeft(r)) return r
      entries.push([key, r.right])
    }
    return t.success(Object.freeze(Object.fromEntries(entries)))
  } finally {
    open.delete(u)
  }
}

// The guard (`is`): the same rules as `walk`, without building a copy or a path. A
// cycle is refused by the depth bound. On the dispatcher's path (a hook changed its
// context's metadata), so it allocates nothing.
const isJsonNode = (u: unknown, depth: number): boolean => {
  switch (typeof u) {
    case "string":
      return u.length <= maxStringLength
    case "boolean":
      return true
    case "number":
      return Number.isFinite(u)
    case "object":
      break
    default:
      return false
  }
  if (u === null) return true
  if (depth >= maxDepth) return false
  if (Array.isArray(u)) {
    for (let i = 0; i < u.length; i++) if (!isJsonNode(u[i], depth + 1)) return false
    return true
  }
  if (!isPlainObject(u)) return false
  for (const key in u) {
    if (Object.hasOwn(u, key) && (key.length > maxStringLength || !isJsonNode((u as Record<string, unknown>)[key], depth + 1))) return false
  }
  return true
}

const isJson = (u: unknown): boolean => {
  try {
    return isJsonNode(u, 0)
  } catch {
    // A throwing getter or proxy trap: not JSON.
    return false
  }
}

/**
 * Any JSON value: finite numbers, strings, booleans, null, arrays and plain objects;
 * strings and keys of at most `maxStringLength` characters (the decode's limit; the
 * guard, `is`, holds the default, `Json.maxStringLength`).
 * Functions, `undefined` (also as an array item or a property value), holes, class
 * instances, cycles and non-finite numbers are rejected.
 *
 * @since 0.1.0
 * @category codecs
 */
export const JsonValue: Codec<JsonValue_> = new t.Type<JsonValue_, JsonValue_, unknown>(
  "JsonValue",
  (u): u is JsonValue_ => isJson(u),
  (u, c) => walk(u, c, 0, new Set()),
  (a) => a,
)

const jsonObject = (name: string): Codec<JsonObject_> =>
  new t.Type<JsonObject_, JsonObject_, unknown>(
    name,
    (u): u is JsonObject_ => typeof u === "object" && u !== null && !Array.isArray(u) && isJson(u),
    (u, c) =>
      typeof u === "object" && u !== null && !Array.isArray(u) && isPlainObject(u)
        ? (walk(u, c, 0, new Set()) as t.Validation<JsonObject_>)
        : t.failure(u, c),
    (a) => a,
  )

/**
 * A JSON object (not an array, not null).
 *
 * @since 0.1.0
 * @category codecs
 */
export const JsonObject: Codec<JsonObject_> = jsonObject("JsonObject")

/** @internal `Metadata` without remembering what it builds: the codecs built on it. */
export const plainMetadata: Codec<Metadata_> = jsonObject("Metadata")

/**
 * Metadata: a JSON object.
 *
 * @since 0.1.0
 * @category codecs
 */
export const Metadata: Codec<Metadata_> = remembering(plainMetadata)
