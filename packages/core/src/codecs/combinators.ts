/**
 * The io-ts combinators the codecs are built from: finite numbers, closed sets of
 * strings, optional fields, records rebuilt by their module's constructor, unions
 * dispatched on a tag field, frozen arrays and append logs.
 *
 * Every combinator validates its children in the parent's io-ts context (adding only
 * real keys and indices), so an error's path reads `context.messages[3].role`.
 *
 * @since 0.1.0
 */
import * as t from "io-ts"
import { isLeft } from "fp-ts/lib/Either.js"
import * as AppendLog_ from "../AppendLog.js"
import { deepFreeze } from "../internal/immer.js"
import { maxStringLength } from "../internal/limits.js"

/**
 * A codec from unknown input (what crosses a boundary as JSON).
 *
 * @since 0.1.0
 * @category models
 */
export type Codec<A, O = A> = t.Type<A, O, unknown>

type AnyCodec = t.Type<any, any, unknown>

type Fields<P extends t.Props> = { readonly [K in keyof P]: t.TypeOf<P[K]> }

type OptionalKeys<P extends t.Props> = { [K in keyof P]: undefined extends t.OutputOf<P[K]> ? K : never }[keyof P]

type Simplify<A> = { [K in keyof A]: A[K] } & {}

/**
 * The encoded form of a record: absent optional fields are left out.
 *
 * @since 0.1.0
 * @category models
 */
export type EncodedFields<P extends t.Props> = Simplify<
  & { readonly [K in Exclude<keyof P, OptionalKeys<P>>]: t.OutputOf<P[K]> }
  & { readonly [K in OptionalKeys<P>]?: Exclude<t.OutputOf<P[K]>, undefined> }
>

const identity = <A>(a: A): A => a

/**
 * The size limits of a decode (`Codecs.decode`, `Codecs.fromJson`).
 *
 * @since 0.1.0
 * @category models
 */
export interface Limits {
  /** The most items one array (messages, steps, JSON arrays) or one JSON object may hold. */
  readonly maxItems: number
  /** The longest JSON text `fromJson` parses, in UTF-8 bytes. */
  readonly maxBytes: number
  /** The longest string (UTF-16 code units) a value may hold: texts, ids, names, JSON strings and keys. */
  readonly maxStringLength: number
}

/**
 * The defaults: 100,000 items per array or object, 64 MiB of JSON text, strings of at
 * most 32 Mi characters (`Json.maxStringLength`). Far beyond a real state (10,000
 * messages of tool output each cut at 100,000 characters would be 1 GB; a long run is a
 * few MB; a 32 Mi-character text is about eight million tokens, past any model's
 * context), small enough that hostile input fails in milliseconds rather than blocking
 * the event loop for seconds, or holding a 100 MB string.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultLimits: Limits = Object.freeze({ maxItems: 100_000, maxBytes: 64 * 1024 * 1024, maxStringLength })

// The limits travel in the io-ts context's root entry (a decode is synchronous, so no
// state outside the call is needed); a plain `codec.decode` gets the defaults.
/** @internal */
export const limitsOf = (c: t.Context): Limits => (c[0] as { readonly limits?: Limits } | undefined)?.limits ?? defaultLimits

/** @internal the root context of a decode under `limits`. */
export const rootContext = (type: t.Decoder<unknown, unknown>, actual: unknown, limits: Limits): t.Context =>
  [{ key: "", type, actual, limits } as t.ContextEntry]

// An array's items, failing fast: at the first bad item, or before any when there
// are more than `maxItems`.
const validateItems = <A>(u: unknown, c: t.Context, item: t.Decoder<unknown, A>): t.Validation<Array<A>> => {
  if (!Array.isArray(u)) return t.failure(u, c)
  const { maxItems } = limitsOf(c)
  if (u.length > maxItems) return t.failure(u, c, `expected at most ${maxItems} items (the maxItems limit), got ${u.length}`)
  const out: Array<A> = []
  for (let i = 0; i < u.length; i++) {
    const value: unknown = u[i]
    const result = item.validate(value, t.appendContext(c, String(i), item as t.Decoder<unknown, A> & t.Any, value))
    if (isLeft(result)) return result
    out.push(result.right)
  }
  return t.success(out)
}

/**
 * @internal the bound of a string under the decode's limits: `undefined` when `u` is
 * within it, else the failure's message (naming the limit and the length).
 */
export const stringProblem = (u: string, c: t.Context): string | undefined => {
  const { maxStringLength: max } = limitsOf(c)
  return u.length > max ? `expected a string of at most ${max} characters (the maxStringLength limit), got ${u.length}` : undefined
}

/**
 * @internal a string within the decode's `maxStringLength` (its guard, `is`, holds the
 * default): every text, id and name of a state, so one 100 MB string fails where it
 * enters, naming its path and the limit.
 */
export const string: Codec<string> = new t.Type<string, string, unknown>(
  "string",
  (u): u is string => typeof u === "string" && u.length <= maxStringLength,
  (u, c) => {
    if (typeof u !== "string") return t.failure(u, c)
    const problem = stringProblem(u, c)
    return problem === undefined ? t.success(u) : t.failure(u, c, problem)
  },
  identity,
)

/** @internal a number JSON can carry: NaN and the infinities are rejected; -0 reads as 0. */
export const finite: Codec<number> = new t.Type<number, number, unknown>(
  "finite number",
  (u): u is number => typeof u === "number" && Number.isFinite(u),
  (u, c) =>
    typeof u === "number" && Number.isFinite(u)
      ? t.success(u === 0 ? 0 : u)
      : t.failure(u, c, typeof u === "number" ? `expected a finite number, got ${u}` : undefined),
  identity,
)

/** @internal one of a closed set of strings; its name lists them (`"a" | "b"`). */
export const literals = <L extends string>(values: ReadonlyArray<L>, name?: string): Codec<L> => {
  const set: ReadonlySet<unknown> = new Set(values)
  const is = (u: unknown): u is L => set.has(u)
  return new t.Type<L, L, unknown>(
    name ?? values.map((v) => JSON.stringify(v)).join(" | "),
    is,
    (u, c) => (is(u) ? t.success(u) : t.failure(u, c)),
    identity,
  )
}

/**
 * @internal an optional field: `undefined` (or a missing key) decodes to `undefined`
 * and encodes to nothing; `null` is not absent and is rejected like any other value.
 */
export const optional = <A, O>(codec: Codec<A, O>): Codec<A | undefined, O | undefined> =>
  new t.Type<A | undefined, O | undefined, unknown>(
    `${codec.name} | undefined`,
    (u): u is A | undefined => u === undefined || codec.is(u),
    (u, c) => (u === undefined ? t.success(undefined) : codec.validate(u, c)),
    (a) => (a === undefined ? undefined : codec.encode(a)),
  )

/**
 * @internal a record of known fields, rebuilt by `build` (the module's constructor).
 * Unknown keys are ignored; encoding leaves out fields whose value is absent.
 */
export const struct = <P extends t.Props, A extends { readonly [K in keyof P]?: t.TypeOf<P[K]> }>(
  name: string,
  props: P,
  build: (fields: Fields<P>) => A,
): Codec<A, EncodedFields<P>> => {
  const raw = t.type(props, name)
  const keys = Object.keys(props)
  const fields = keys.map((key) => [key, props[key]!] as const)
  return new t.Type<A, EncodedFields<P>, unknown>(
    name,
    // Not `raw.is`: io-ts's `type.is` refuses a missing optional key that `validate`
    // accepts as `undefined`, so a decoded value (absent keys stay absent) failed `is`.
    (u): u is A => {
      if (typeof u !== "object" || u === null) return false
      for (const [key, codec] of fields) if (!codec.is((u as Record<string, unknown>)[key])) return false
      return true
    },
    // Fails fast: at the first bad field (io-ts's `type` validates them all).
    (u, c) => {
      const record = t.UnknownRecord.validate(u, c)
      if (isLeft(record)) return record
      const out: Record<string, unknown> = {}
      for (const [key, codec] of fields) {
        const value = record.right[key]
        const result = codec.validate(value, t.appendContext(c, key, codec, value))
        if (isLeft(result)) return result
        out[key] = result.right
      }
      return t.success(build(out as Fields<P>))
    },
    (a) => {
      // The keys are this codec's own field names, never `__proto__`.
      const out: Record<string, unknown> = {}
      for (const key of keys) {
        const value = props[key]!.encode((a as Record<string, unknown>)[key])
        if (value !== undefined) out[key] = value
      }
      return out as EncodedFields<P>
    },
  )
}

/**
 * @internal a union dispatched on the string field `key`: an unknown tag fails at
 * that field (`messages[1].role`) and a known one reports only its own member's errors.
 */
export const tagged = <M extends Readonly<Record<string, AnyCodec>>>(
  name: string,
  key: string,
  members: M,
): Codec<t.TypeOf<M[keyof M]>, t.OutputOf<M[keyof M]>> => {
  type A = t.TypeOf<M[keyof M]>
  const byTag: ReadonlyMap<unknown, AnyCodec> = new Map(Object.entries(members))
  const tag = literals(Object.keys(members))
  const memberOf = (u: unknown): AnyCodec | undefined =>
    typeof u === "object" && u !== null ? byTag.get((u as Record<string, unknown>)[key]) : undefined
  return new t.Type<A, t.OutputOf<M[keyof M]>, unknown>(
    name,
    (u): u is A => memberOf(u)?.is(u) === true,
    (u, c) => {
      const record = t.UnknownRecord.validate(u, c)
      if (isLeft(record)) return record
      const value = record.right[key]
      const member = byTag.get(value)
      return member === undefined ? t.failure(value, t.appendContext(c, key, tag, value)) : member.validate(u, c)
    },
    (a) => memberOf(a)!.encode(a),
  )
}

/** @internal a readonly array decoded into a new frozen array (the input is never frozen). */
export const array = <A, O>(item: Codec<A, O>): Codec<ReadonlyArray<A>, ReadonlyArray<O>> => {
  const raw = t.readonlyArray(item)
  return new t.Type<ReadonlyArray<A>, ReadonlyArray<O>, unknown>(
    raw.name,
    raw.is,
    (u, c) => {
      const items = validateItems(u, c, item)
      return isLeft(items) ? items : t.success(Object.freeze(items.right))
    },
    (as) => as.map((a) => item.encode(a)),
  )
}

/**
 * A codec for an `AppendLog`: it encodes to a plain array and decodes from an array
 * (or from a log) into a new log of frozen items.
 *
 * @since 0.1.0
 * @category combinators
 */
export const appendLog = <A, O>(item: Codec<A, O>): Codec<AppendLog_.AppendLog<A>, ReadonlyArray<O>> => {
  const raw = t.readonlyArray(item)
  return new t.Type<AppendLog_.AppendLog<A>, ReadonlyArray<O>, unknown>(
    `AppendLog<${item.name}>`,
    (u): u is AppendLog_.AppendLog<A> => AppendLog_.isAppendLog(u) && u.toArray().every(item.is),
    (u, c) => {
      const items = validateItems(AppendLog_.isAppendLog(u) ? u.toArray() : u, c, item)
      return isLeft(items) ? items : t.success(AppendLog_.fromIterable(items.right.map(deepFreeze)))
    },
    (log) => Array.from(log, (a) => item.encode(a)),
  )
}
