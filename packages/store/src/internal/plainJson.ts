// The writer's fast check of a checkpoint: whether an encoded delta is plain JSON data
// within the load bounds, so that its JSON text parses back to an equal value. A bounded
// counting walk: it never copies, and it stops at the first value it cannot vouch for
// (not JSON, a container past `maxItems`, nested `maxDepth` deep or more from the root,
// which is at least as deep as from any JSON value inside it). Then the caller checks
// the text the slow way, which names the path and the bound as loading would.

const plainObject = (u: object): boolean => {
  const proto: unknown = Object.getPrototypeOf(u)
  return proto === Object.prototype || proto === null
}

const node = (u: unknown, depth: number, maxItems: number, maxDepth: number): boolean => {
  switch (typeof u) {
    case "string":
    case "boolean":
      return true
    case "number":
      return Number.isFinite(u)
    case "object":
      break
    default:
      // undefined, a function, a symbol, a bigint: JSON.stringify drops, nulls or throws.
      return false
  }
  if (u === null) return true
  if (depth >= maxDepth) return false
  if (Array.isArray(u)) {
    const n = u.length
    if (n > maxItems) return false
    // A hole reads as undefined, which fails below.
    for (let i = 0; i < n; i++) if (!node(u[i], depth + 1, maxItems, maxDepth)) return false
    return true
  }
  // A Date, a Map, a class instance, an object with toJSON: its text is not itself.
  if (!plainObject(u) || typeof (u as { toJSON?: unknown }).toJSON === "function") return false
  // The own enumerable string keys, as JSON.stringify reads them, without making their
  // array (on the write path: no allocation per object).
  let n = 0
  for (const key in u) {
    if (!Object.hasOwn(u, key)) continue
    if (++n > maxItems || !node((u as Record<string, unknown>)[key], depth + 1, maxItems, maxDepth)) return false
  }
  return true
}

/** Whether `u` is plain JSON data within the bounds; false when reading it threw. */
export const isPlainWithin = (u: unknown, maxItems: number, maxDepth: number): boolean => {
  try {
    return node(u, 0, maxItems, maxDepth)
  } catch {
    return false
  }
}
