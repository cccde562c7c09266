// A read-only view of a Map that nothing outside can change: a frozen Map still has its
// `set` (freezing does not reach a Map's entries), so `Tools.byName` would change under a
// cast. The Map sits in a private field: no cast or `Map.prototype.set.call` reaches it
// (the latter throws: this is not a Map). A lookup is one more call, which the JIT inlines.

/** A frozen `ReadonlyMap` over a copy of `entries`. */
export class FrozenIndex<K, V> implements ReadonlyMap<K, V> {
  readonly #map: Map<K, V>

  constructor(entries: Iterable<readonly [K, V]>) {
    this.#map = new Map(entries)
    Object.freeze(this)
  }

  get size(): number {
    return this.#map.size
  }

  get(key: K): V | undefined {
    return this.#map.get(key)
  }

  has(key: K): boolean {
    return this.#map.has(key)
  }

  keys(): MapIterator<K> {
    return this.#map.keys()
  }

  values(): MapIterator<V> {
    return this.#map.values()
  }

  entries(): MapIterator<[K, V]> {
    return this.#map.entries()
  }

  forEach(f: (value: V, key: K, map: ReadonlyMap<K, V>) => void, thisArg?: unknown): void {
    this.#map.forEach((value, key) => f.call(thisArg, value, key, this))
  }

  [Symbol.iterator](): MapIterator<[K, V]> {
    return this.#map.entries()
  }

  get [Symbol.toStringTag](): string {
    return "FrozenIndex"
  }
}

Object.freeze(FrozenIndex.prototype)
Object.freeze(FrozenIndex)

/** Whether `u` reads like a `ReadonlyMap` (a Map, or a `FrozenIndex`). */
export const isIndex = (u: unknown): u is ReadonlyMap<unknown, unknown> =>
  u instanceof Map || u instanceof FrozenIndex
