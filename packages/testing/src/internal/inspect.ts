// Structural views of contexts for the laws: a canonical text to compare outputs, a
// map of paths to compare an input before and after a call, a thawed (unfrozen) deep
// copy, a separately built equal copy, and the first unfrozen path of a value.
import { AppendLog, Codecs, HookContext } from "@hookline/core"

const isObject = (u: unknown): u is object => (typeof u === "object" && u !== null) || typeof u === "function"

// The children of a node as [key, value] pairs: an AppendLog's items, an array's
// indices, an object's own enumerable string keys (in sorted order).
const children = (value: object): ReadonlyArray<readonly [string, unknown]> => {
  if (AppendLog.isAppendLog(value)) return [...value].map((item, i) => [`[${i}]`, item] as const)
  if (Array.isArray(value)) return value.map((item, i) => [`[${i}]`, item] as const)
  return Object.keys(value).sort().map((key) => [prop(key), (value as Record<string, unknown>)[key]] as const)
}

// `.name` for identifiers, `["rate_limit:search"]` for other keys.
const prop = (key: string): string => (/^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`)

const join = (path: string, key: string): string => (path === "" ? key.replace(/^\./, "") : `${path}${key}`)

/**
 * A canonical text of any value: object keys sorted, `undefined` fields left out (as
 * the codecs and JSON do), an `AppendLog` as the array of its items, numbers as
 * `String(n)` (so `-0` and `0` agree, `NaN` and `Infinity` stay visible).
 */
export const canonical = (value: unknown): string => {
  const open = new Set<object>()
  const go = (v: unknown): string => {
    switch (typeof v) {
      case "undefined":
        return "undefined"
      case "number":
        return String(v)
      case "string":
        return JSON.stringify(v)
      case "boolean":
        return String(v)
      case "bigint":
        return `${v}n`
      case "symbol":
        return v.toString()
      case "function":
        return `[function ${v.name || "anonymous"}]`
    }
    if (typeof v !== "object" || v === null) return "null"
    if (open.has(v)) return "[circular]"
    open.add(v)
    try {
      if (AppendLog.isAppendLog(v) || Array.isArray(v)) return `[${[...(v as Iterable<unknown>)].map(go).join(",")}]`
      const entries = Object.keys(v).sort()
        .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
        .map((k) => `${JSON.stringify(k)}:${go((v as Record<string, unknown>)[k])}`)
      return `{${entries.join(",")}}`
    } finally {
      open.delete(v)
    }
  }
  return go(value)
}

/** Every path of a value mapped to its primitive value or its object reference. */
export type Snapshot = ReadonlyMap<string, unknown>

/** Paths to primitives and object identities: a later mutation or replacement shows up. */
export const snapshot = (value: unknown): Snapshot => {
  const out = new Map<string, unknown>()
  const seen = new Set<object>()
  const go = (v: unknown, path: string): void => {
    out.set(path, v)
    if (!isObject(v) || typeof v === "function" || seen.has(v)) return
    seen.add(v)
    for (const [key, child] of children(v)) go(child, join(path, key))
  }
  go(value, "")
  return out
}

const show = (v: unknown): string =>
  v === undefined ? "absent" : isObject(v) ? (Array.isArray(v) ? "an array" : "an object") : JSON.stringify(v) ?? String(v)

/** The first difference between two snapshots, as `path: was X, now Y`; undefined if none. */
export const difference = (before: Snapshot, after: Snapshot): string | undefined => {
  for (const [path, was] of before) {
    const now = after.has(path) ? after.get(path) : undefined
    if (!after.has(path)) return `${path || "the context"} was removed (was ${show(was)})`
    if (!Object.is(was, now)) {
      return isObject(was) && isObject(now)
        ? `${path || "the context"} was replaced by another object`
        : `${path || "the context"} changed from ${show(was)} to ${show(now)}`
    }
  }
  for (const [path, now] of after) {
    if (!before.has(path)) return `${path} was added (${show(now)})`
  }
  return undefined
}

/** A plain, unfrozen deep copy (AppendLogs are rebuilt around unfrozen items). */
export const thaw = <A>(value: A): A => {
  const go = (v: unknown): unknown => {
    if (typeof v !== "object" || v === null) return v
    if (AppendLog.isAppendLog(v)) return AppendLog.fromIterable([...v].map(go))
    if (Array.isArray(v)) return v.map(go)
    // fromEntries defines keys: `__proto__` stays data.
    return Object.fromEntries(Object.keys(v).map((key) => [key, go((v as Record<string, unknown>)[key])]))
  }
  return go(value) as A
}

/**
 * An equal context built anew from its encoded form: no object is shared with `ctx`.
 * The per-run context is not encoded (it is never stored): it is copied.
 */
export const rebuild = (ctx: HookContext): HookContext => {
  const decoded = Codecs.decodeUnsafe(Codecs.HookContext, JSON.parse(JSON.stringify(Codecs.encode(Codecs.HookContext, ctx))))
  return ctx.runContext === undefined ? decoded : HookContext.make({ ...decoded, runContext: thaw(ctx.runContext) })
}

/**
 * The path of the first object reachable from `value` that is not frozen; undefined if
 * none. Objects in `shared` are not looked into (a run's context, the caller's own).
 */
export const firstUnfrozen = (value: unknown, shared: ReadonlyArray<unknown> = []): string | undefined => {
  const seen = new Set<object>(shared.filter((v): v is object => typeof v === "object" && v !== null))
  const go = (v: unknown, path: string): string | undefined => {
    if (typeof v !== "object" || v === null || seen.has(v)) return undefined
    seen.add(v)
    if (!Object.isFrozen(v)) return path === "" ? "the root" : path
    for (const [key, child] of children(v)) {
      const found = go(child, join(path, key))
      if (found !== undefined) return found
    }
    return undefined
  }
  return go(value, "")
}

/** Whether a value and everything reachable from it (AppendLog items included) is frozen. */
export const isDeepFrozen = (value: unknown): boolean => firstUnfrozen(value) === undefined

/**
 * The first place where two values differ structurally (same walk as `canonical`),
 * as `path: X in the first, Y in the second`; undefined when they are equal.
 */
export const structuralDifference = (a: unknown, b: unknown): { readonly path: string; readonly first: string; readonly second: string } | undefined => {
  const go = (x: unknown, y: unknown, path: string, depth: number): { path: string; first: string; second: string } | undefined => {
    const xo = typeof x === "object" && x !== null
    const yo = typeof y === "object" && y !== null
    if (!xo || !yo || depth > 64) {
      const cx = canonical(x)
      const cy = canonical(y)
      return cx === cy ? undefined : { path: path || "the result", first: brief(cx), second: brief(cy) }
    }
    const xs = AppendLog.isAppendLog(x) || Array.isArray(x)
    const ys = AppendLog.isAppendLog(y) || Array.isArray(y)
    if (xs !== ys) return { path: path || "the result", first: brief(canonical(x)), second: brief(canonical(y)) }
    if (xs) {
      const xa = [...(x as Iterable<unknown>)]
      const ya = [...(y as Iterable<unknown>)]
      for (let i = 0; i < Math.min(xa.length, ya.length); i++) {
        const d = go(xa[i], ya[i], join(path, `[${i}]`), depth + 1)
        if (d !== undefined) return d
      }
      return xa.length === ya.length
        ? undefined
        : { path: `${path || "the result"} (length)`, first: String(xa.length), second: String(ya.length) }
    }
    const keys = [...new Set([...Object.keys(x), ...Object.keys(y)])].sort()
    for (const key of keys) {
      const d = go((x as Record<string, unknown>)[key], (y as Record<string, unknown>)[key], join(path, prop(key)), depth + 1)
      if (d !== undefined) return d
    }
    return undefined
  }
  return go(a, b, "", 0)
}

const brief = (text: string): string => (text.length > 120 ? `${text.slice(0, 117)}...` : text)
