/**
 * An append-only persistent sequence: O(1) append, one backing array shared by every
 * snapshot of a lineage. A snapshot sees only its first `length` items; appending to an
 * older snapshot (a branch), or to a log made from an array, starts a new backing array
 * on top of that snapshot instead of copying it, so no snapshot ever changes and an
 * append costs O(1) whatever the history.
 *
 * @since 0.1.0
 */
import { dual } from "effect/Function"
import type { Draft } from "immer"
import { deepFreeze } from "./internal/immer.js"

// Array.prototype's index conversion (ToIntegerOrInfinity): NaN is 0, fractions truncate.
const toInteger = (n: number): number => (Number.isNaN(n) ? 0 : Math.trunc(n))

const TypeId: unique symbol = Symbol.for("@hookline/core/AppendLog")

// Branches of branches nest; past this depth a branch copies (once), so a read walks
// at most this many prefixes.
const maxDepth = 8

/**
 * A frozen, append-only list that reads like a `ReadonlyArray`.
 *
 * @since 0.1.0
 * @category models
 */
export class AppendLog<out A> implements Iterable<A> {
  readonly [TypeId] = TypeId
  // Items [0, #offset) are the prefix's (a snapshot, so they never change); items
  // [#offset, #length) are #items[0 .. #length - #offset), a backing array shared with
  // the other snapshots of this lineage.
  readonly #prefix: AppendLog<A> | undefined
  readonly #offset: number
  readonly #depth: number
  readonly #items: Array<A>
  readonly #length: number
  #array: ReadonlyArray<A> | undefined

  private constructor(prefix: AppendLog<A> | undefined, offset: number, depth: number, items: Array<A>, length: number) {
    this.#prefix = prefix
    this.#offset = offset
    this.#depth = depth
    this.#items = items
    this.#length = length
    Object.freeze(this)
  }

  /** @internal */
  static unsafeMake<A>(items: Array<A>, length: number): AppendLog<A> {
    return new AppendLog(undefined, 0, 0, items, length)
  }

  get length(): number {
    return this.#length
  }

  at(index: number): A | undefined {
    const n = toInteger(index)
    const i = n < 0 ? this.#length + n : n
    return i >= 0 && i < this.#length ? this.#get(i) : undefined
  }

  // Item i, for 0 <= i < length.
  #get(i: number): A {
    return i >= this.#offset ? (this.#items[i - this.#offset] as A) : (this.#prefix as AppendLog<A>).#get(i)
  }

  last(): A | undefined {
    return this.#length === 0 ? undefined : this.#get(this.#length - 1)
  }

  *[Symbol.iterator](): Iterator<A> {
    if (this.#prefix !== undefined) yield* this.#prefix
    const own = this.#length - this.#offset
    for (let i = 0; i < own; i++) yield this.#items[i] as A
  }

  /** A frozen array of the items in `[start, end)`, negative indices from the end. */
  slice(start?: number, end?: number): ReadonlyArray<A> {
    const len = this.#length
    const s = toInteger(start ?? 0)
    const e = end === undefined ? len : toInteger(end)
    const from = s < 0 ? Math.max(len + s, 0) : Math.min(s, len)
    const to = Math.max(from, e < 0 ? Math.max(len + e, 0) : Math.min(e, len))
    // Within this lineage's own items, no prefix is read.
    const out = from >= this.#offset
      ? this.#items.slice(from - this.#offset, to - this.#offset)
      : Array.from({ length: to - from }, (_, k) => this.#get(from + k))
    return Object.freeze(out)
  }

  /** A frozen array of every item, made once per snapshot. */
  toArray(): ReadonlyArray<A> {
    if (this.#array === undefined) {
      const items = this.#items
      const own = this.#length - this.#offset
      // fromIterable's frozen copy is that array already.
      this.#array = this.#prefix === undefined && own === items.length && Object.isFrozen(items)
        ? items
        : Object.freeze(this.#prefix === undefined ? items.slice(0, own) : [...this.#prefix.toArray(), ...items.slice(0, own)])
    }
    return this.#array
  }

  /** Serializes as a plain array. */
  toJSON(): ReadonlyArray<A> {
    return this.toArray()
  }

  /**
   * @internal whether this log is `older` with items appended (it shares `older`'s
   * items), in O(depth): the dispatcher checks only the appended items of a log a hook
   * returned.
   */
  extendsUnsafe(older: AppendLog<A>): boolean {
    if (older === this || older.#length === 0) return true
    if (older.#length > this.#length) return false
    // One lineage: the same backing array after the same prefix, never overwritten.
    if (this.#items === older.#items && this.#offset === older.#offset) return true
    return this.#prefix !== undefined && older.#length <= this.#offset && this.#prefix.extendsUnsafe(older)
  }

  /**
   * How fast-check prints a log in a counterexample (the symbol its `stringify` looks
   * for; fast-check is not a dependency): its items, not the type's brand.
   */
  [Symbol.for("fast-check/toStringMethod")](): string {
    return `AppendLog.fromIterable(${JSON.stringify(this.toArray())})`
  }

  /** How Node's `console.log` and `util.inspect` print a log. */
  [Symbol.for("nodejs.util.inspect.custom")](_depth: number, options: unknown, inspect: (value: unknown, options: unknown) => string): string {
    return `AppendLog(${this.#length}) ${inspect(this.toArray(), options)}`
  }

  /** @internal used by `append`: shares the backing array when this is its newest snapshot. */
  appendUnsafe(item: A): AppendLog<A> {
    // An empty log starts a backing array of its own, so the shared empty log never
    // keeps a history alive.
    if (this.#length === 0) return new AppendLog(undefined, 0, 0, [item], 1)
    const own = this.#length - this.#offset
    // A frozen backing array (the exact-size copy fromIterable makes) is never grown:
    // V8 would copy it whole to make room, as a branch would.
    if (this.#items.length === own && !Object.isFrozen(this.#items)) {
      this.#items.push(item)
      return new AppendLog(this.#prefix, this.#offset, this.#depth, this.#items, this.#length + 1)
    }
    // A branch (or a frozen array's first append): this snapshot becomes the new
    // lineage's prefix, or, too deep, is copied.
    if (this.#depth < maxDepth) return new AppendLog(this, this.#length, this.#depth + 1, [item], this.#length + 1)
    const copy = [...this.toArray(), item]
    return new AppendLog(undefined, 0, 0, copy, copy.length)
  }
}

const emptyLog: AppendLog<never> = AppendLog.unsafeMake<never>([], 0)

/**
 * The empty log.
 *
 * @since 0.1.0
 * @category constructors
 */
export const empty = <A = never>(): AppendLog<A> => emptyLog

/**
 * A log of the given items (copied; the items themselves are not frozen here).
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromIterable = <A>(items: Iterable<A>): AppendLog<A> => {
  if (items instanceof AppendLog) return items
  const copy = Array.from(items)
  return copy.length === 0 ? emptyLog : AppendLog.unsafeMake(Object.freeze(copy) as Array<A>, copy.length)
}

/**
 * Whether a value is an `AppendLog`.
 *
 * @since 0.1.0
 * @category guards
 */
export const isAppendLog = (u: unknown): u is AppendLog<unknown> =>
  typeof u === "object" && u !== null && TypeId in u

/**
 * A log as an immer recipe sees it: a value, not a draft (immer does not look inside).
 *
 * @since 0.1.0
 * @category models
 */
export type Drafted<A> = AppendLog<A> | Draft<AppendLog<A>>

/**
 * A new log with `item` (deep-frozen) at the end; `self` is unchanged. Takes the log
 * as an immer recipe sees it too:
 * `draft.context.messages = AppendLog.append(draft.context.messages, message)`.
 *
 * @since 0.1.0
 * @category combinators
 */
export const append: {
  <A>(item: A): (self: Drafted<A>) => AppendLog<A>
  <A>(self: Drafted<A>, item: A): AppendLog<A>
} = dual(2, <A>(self: Drafted<A>, item: A): AppendLog<A> => (self as AppendLog<A>).appendUnsafe(deepFreeze(item)))

/**
 * A new log with every item (deep-frozen) appended in order.
 *
 * @since 0.1.0
 * @category combinators
 */
export const appendAll: {
  <A>(items: Iterable<A>): (self: Drafted<A>) => AppendLog<A>
  <A>(self: Drafted<A>, items: Iterable<A>): AppendLog<A>
} = dual(2, <A>(self: Drafted<A>, items: Iterable<A>): AppendLog<A> => {
  let out = self as AppendLog<A>
  for (const item of items) out = out.appendUnsafe(deepFreeze(item))
  return out
})
