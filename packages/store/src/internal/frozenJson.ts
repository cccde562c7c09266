// A frozen value's JSON text, measured without writing it: whether the value is plain,
// frozen JSON data (so its text can be written later and will be the text of today),
// within the load bounds, and an upper bound of its text's UTF-8 bytes. Each object is
// measured once: the result is kept per object, and a frozen object cannot change
// (a Proxy over a frozen target cannot lie about its data properties either), so a step
// measures only what it made new; the history, the tool calls and the answers it shares
// with earlier steps and with the journal are looked up.
//
// Stricter than `plainJson.ts` (which reads an encoded copy): a container that is not
// frozen, or has an accessor property, is not vouched for; the caller then encodes the
// value at once, the plain way.

// Annex B, on every engine: an own or inherited getter of `key`, without allocating a
// property descriptor per key.
const lookupGetter = (Object.prototype as unknown as { __lookupGetter__: (this: object, key: string) => unknown }).__lookupGetter__

// A measure packs the bytes bound and the height (containers nested, at most maxDepth,
// which is far below `scale`) in one number: no object per measured value.
const scale = 1024

const plainObject = (u: object): boolean => {
  const proto: unknown = Object.getPrototypeOf(u)
  return proto === Object.prototype || proto === null
}

/** Measures values within bounds; `bytes` answers a bound of the UTF-8 bytes of a value's JSON text, or -1. */
export interface Measure {
  readonly bytes: (u: unknown) => number
}

/**
 * A measure for values within `maxItems` items per container, `maxDepth` containers
 * nested and `maxBytes` bytes, with its own cache (what it has measured, by object).
 */
export const make = (maxItems: number, maxDepth: number, maxBytes: number): Measure => {
  const measured = new WeakMap<object, number>()

  // The packed measure of `u` at `depth` containers from the root, or -1.
  const node = (u: unknown, depth: number): number => {
    switch (typeof u) {
      case "string":
        // At most 6 bytes per UTF-16 unit (an escape such as \u001f), and the quotes.
        return (u.length * 6 + 2) * scale
      case "boolean":
        return 5 * scale
      case "number":
        // "-1.7976931348623157e+308" is the longest a number prints.
        return Number.isFinite(u) ? 24 * scale : -1
      case "object":
        break
      default:
        // undefined (as an array item), a function, a symbol, a bigint.
        return -1
    }
    if (u === null) return 4 * scale
    const known = measured.get(u)
    if (known !== undefined) return depth + (known % scale) <= maxDepth ? known : -1
    // A cycle meets the depth bound.
    if (depth >= maxDepth || !Object.isFrozen(u)) return -1
    let bytes = 2
    let height = 0
    if (Array.isArray(u)) {
      const n = u.length
      if (n > maxItems) return -1
      for (let i = 0; i < n; i++) {
        const m = node(u[i], depth + 1)
        if (m < 0) return -1
        bytes += Math.floor(m / scale) + 1
        if (bytes > maxBytes) return -1
        const h = m % scale
        if (h > height) height = h
      }
    } else {
      if (!plainObject(u) || typeof (u as { toJSON?: unknown }).toJSON === "function") return -1
      let n = 0
      for (const key in u) {
        if (!Object.hasOwn(u, key)) continue
        if (lookupGetter.call(u, key) !== undefined) return -1
        const value = (u as Record<string, unknown>)[key]
        // Left out of the text, as JSON.stringify and the codecs leave it out.
        if (value === undefined) continue
        if (++n > maxItems) return -1
        const m = node(value, depth + 1)
        if (m < 0) return -1
        bytes += key.length * 6 + 3 + Math.floor(m / scale) + 1
        if (bytes > maxBytes) return -1
        const h = m % scale
        if (h > height) height = h
      }
    }
    const packed = bytes * scale + height + 1
    measured.set(u, packed)
    return packed
  }

  return {
    bytes: (u) => {
      try {
        const m = node(u, 0)
        return m < 0 ? -1 : Math.floor(m / scale)
      } catch {
        // A throwing proxy trap: not vouched for.
        return -1
      }
    },
  }
}
