/**
 * JSON values: what metadata, tool arguments and tool outputs are made of, so that
 * every state can be serialized.
 *
 * @since 0.1.0
 */
import * as limits from "./internal/limits.js"
import * as plainData from "./internal/plainData.js"
import type { JsonValue, Metadata } from "./internal/jsonValue.js"
import { isSealed as isSealedValue, seal } from "./internal/sealed.js"
import * as stringBound from "./internal/stringBound.js"

/**
 * JSON nested deeper than this (arrays and objects) is refused wherever it enters: the
 * codecs, a driver's answer, a tool call's arguments.
 *
 * @since 0.1.0
 * @category constants
 */
export const maxDepth: number = limits.maxDepth

/**
 * The most JSON values (every array, object and scalar) one untrusted value may hold
 * where it enters: a tool call's arguments, a driver answer's metadata.
 *
 * @since 0.1.0
 * @category constants
 */
export const maxValues: number = limits.maxValues

/**
 * The longest string (UTF-16 code units) an untrusted value may hold where it enters: a
 * state's texts, ids and names (`Codecs`, `Codecs.defaultLimits.maxStringLength`), a
 * driver's answer, a tool's output, a JSON value's strings and keys. 32 Mi characters,
 * about eight million tokens: past any model's context, and past every string a
 * checkpoint's fast check vouches for (its text at most a third of 64 MiB).
 *
 * @since 0.1.0
 * @category constants
 */
export const maxStringLength: number = limits.maxStringLength

export type { JsonObject, JsonValue, Metadata } from "./internal/jsonValue.js"

/**
 * The empty metadata object (frozen, shared).
 *
 * @since 0.1.0
 * @category constructors
 */
export const emptyMetadata: Metadata = seal(Object.freeze({}))

/**
 * Renders a JSON value as text: strings as they are, everything else as JSON.
 *
 * @since 0.1.0
 * @category getters
 */
export const toText = (value: JsonValue): string => (typeof value === "string" ? value : JSON.stringify(value))

/**
 * A short rendering of any value for an error message: JSON-like, at most
 * `maxLength` characters followed by `…` when cut. It reads only what it shows, so a
 * 10 MB string or a 100,000-level array costs no more than a small one, and it never
 * throws (a throwing getter or proxy ends the excerpt with `…`).
 *
 * @example
 * ```ts
 * Json.excerpt({ a: [1, "x"] })     // '{"a":[1,"x"]}'
 * Json.excerpt("x".repeat(1e7), 5)  // '"xxxx…'
 * ```
 *
 * @since 0.1.0
 * @category getters
 */
export const excerpt = (value: unknown, maxLength = 200): string => {
  const budget = Math.max(0, Math.floor(maxLength))
  let out = ""
  const open = new Set<object>()
  // Each step writes at least one character, so recursion is bounded by the budget.
  const full = () => out.length > budget
  const write = (text: string): void => {
    out += text.length > budget + 1 - out.length ? text.slice(0, budget + 1 - out.length) : text
  }
  const string = (s: string): void => write(JSON.stringify(s.length > budget ? s.slice(0, budget) : s))
  const go = (v: unknown): void => {
    switch (typeof v) {
      case "string":
        return string(v)
      case "number":
        return write(Object.is(v, -0) ? "-0" : String(v))
      case "boolean":
        return write(String(v))
      case "undefined":
        return write("undefined")
      case "bigint":
        return write(`${v}n`)
      case "symbol":
        return write(v.toString())
      case "function":
        return write(`[function ${v.name === "" ? "(anonymous)" : v.name}]`)
    }
    if (v === null) return write("null")
    const object = v as object
    if (open.has(object)) return write("[circular]")
    if (Array.isArray(object)) {
      open.add(object)
      write("[")
      for (let i = 0; i < object.length && !full(); i++) {
        if (i > 0) write(",")
        go(object[i])
      }
      write("]")
      open.delete(object)
      return
    }
    const proto: unknown = Object.getPrototypeOf(object)
    if (proto !== Object.prototype && proto !== null) return write(Object.prototype.toString.call(object))
    open.add(object)
    write("{")
    let first = true
    for (const key in object) {
      if (full()) break
      if (!Object.hasOwn(object, key)) continue
      if (!first) write(",")
      first = false
      string(key)
      write(":")
      go((object as Record<string, unknown>)[key])
    }
    write("}")
    open.delete(object)
  }
  try {
    go(value)
  } catch {
    return `${out.slice(0, budget)}…`
  }
  return out.length > budget ? `${out.slice(0, budget)}…` : out
}

/**
 * @internal whether core built `u` itself from valid, bounded parts (a response from
 * `InferenceResponse.make`, a call from `ToolCall.make`, ...): frozen, never a proxy,
 * and cannot change. The agent's driver boundary skips its check for these.
 */
export const isSealed = (u: unknown): boolean => isSealedValue(u)

/**
 * @internal Node's `util.types.isProxy`, or `undefined` where the runtime has none. A
 * Proxy over a frozen target passes `Object.isFrozen`, yet its `get` may answer anything
 * for a key the target lacks, and JavaScript has no test for one: the walks that keep a
 * frozen value as it is (the agent's entry check, the store's vouching) refuse one, and
 * keep nothing as it is where this is missing.
 */
export const isProxy: ((u: unknown) => boolean) | undefined = plainData.isProxy

/**
 * @internal What makes one object other than plain data, or `undefined`: a Proxy, a
 * prototype but a plain object's (or `null`) or an array's, an accessor, a hidden
 * (non-enumerable) own property. The rule core holds a hook's changed parts to, and the
 * agent's entry a state it keeps as it is; its values are the caller's to walk.
 */
export const plainProblem: (node: object) => string | undefined = plainData.plainProblem

/**
 * @internal `s` itself when it holds at most `maxStringLength` characters, else what
 * `refuse` throws for its length and the limit: the one length check of the places a
 * caller's string enters (a hook's name, a built-in's text, a context config's prompt),
 * each refusing with its own typed error naming its field.
 */
export const withinMaxLength: (s: string, refuse: (length: number, limit: number) => never) => string = stringBound.withinMaxLength
