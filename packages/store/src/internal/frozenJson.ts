// A frozen value's JSON text, measured without writing it: whether the value is plain,
// frozen JSON data with no accessor and no Proxy (so its text can be written later and
// will be the text of today), within the load bounds, and an upper bound of its text's
// UTF-8 bytes.
//
// The roots measured with `keep` since `forget` are remembered (a frozen object's
// measure cannot change), so a step's checkpoint does not walk again the answer and the
// tool results its journal entries measured. A few roots in an array, compared by
// identity: a Map or WeakMap entry per new object cost more than the walk it saves
// (hashing a new object; docs/performance.md, "MemoryStore's step"), and a step's delta
// never holds the history, so nothing needs keeping longer than a step. With each root,
// the codec whose guard accepted it (`check`), so the step's checkpoint need not ask that
// guard again of the same frozen value (internal/deltaGuard.ts).
//
// Stricter than `plainJson.ts` (which reads an encoded copy): a container that is not
// frozen, has an accessor or a hidden (non-enumerable) property, or an array whose
// prototype is not Array.prototype, is not vouched for; the caller then encodes the value
// at once, the plain way.
//
// A container core sealed (`Json.isSealed`: built by core's constructors, such as a
// model answer from `InferenceResponse.make`, from parts it copied; a real object,
// frozen, data properties only, of a plain prototype, every part sealed too) is not
// asked those questions again, nor is anything under it: only its bounds are counted.
// Core alone fills that set and never puts a caller's object in it (it copies), so no
// value can claim the short cut (test/FrozenJson.sealed.test.ts).
import { Json } from "@hookline/core"

// Annex B, on every engine: an own or inherited getter of `key`, without allocating a
// property descriptor per key.
const lookupGetter = (Object.prototype as unknown as { __lookupGetter__: (this: object, key: string | number) => unknown }).__lookupGetter__
const lookupSetter = (Object.prototype as unknown as { __lookupSetter__: (this: object, key: string | number) => unknown }).__lookupSetter__

// A Proxy over a frozen target passes every check below, yet its `get` may answer anything
// for a key the target lacks, and the codecs read their fields by name: its text written
// later need not be the text of now. So a Proxy is never vouched for (`Json.isProxy`,
// about 8 ns a call); where it is missing, nothing is vouched for but what core sealed (a
// real object it made), and every other write takes the plain path.
const isProxy = Json.isProxy

// Core's mark of what it built itself (a WeakSet only core fills; about 10 ns a miss).
const isSealed = Json.isSealed

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
  /**
   * `bytes` of `u`, which with `own1`…`own3` (containers in it) is the caller's own: plain
   * objects it made with data properties only, frozen, that no one else holds (a delta
   * and its tails, made by `Checkpoint.diff` for this write). Their values are walked and
   * counted as `bytes` does; they are not asked again whether they are plain.
   */
  readonly bytesOwn: (u: object, own1: object | undefined, own2: object | undefined, own3: object | undefined) => number
  /** `bytes`, remembering the measure of `u` until `forget` (at most a few roots are kept). */
  readonly keep: (u: unknown) => number
  /** Notes that `tag` (a codec) accepted `u`, a root kept since `forget`; anything else is not noted. */
  readonly check: (u: unknown, tag: unknown) => void
  /** Whether `u` is a root kept since `forget` that `tag` accepted (`check`). */
  readonly checked: (u: unknown, tag: unknown) => boolean
  /** Drops what was kept. */
  readonly forget: () => void
}

/** Roots remembered at most (a step's answer and its tool results); past it, the oldest goes. */
const keepAtMost = 8

/**
 * Containers under the kept roots remembered at most (the answer's tool calls, which the
 * tool results and the assistant message hold again); past it, no more are.
 */
const innerAtMost = 24

/** A measure for values within `maxItems` items per container, `maxDepth` containers nested and `maxBytes` bytes. */
export const make = (maxItems: number, maxDepth: number, maxBytes: number): Measure => {
  // The roots, their measures and the codec whose guard accepted each (`check`), in
  // fixed arrays with a count.
  const kept: Array<object | undefined> = Array.from({ length: keepAtMost }, () => undefined)
  const keptMeasures: Array<number> = Array.from({ length: keepAtMost }, () => 0)
  const keptTags: Array<unknown> = Array.from({ length: keepAtMost }, () => undefined)
  let count = 0
  // Containers walked under a root while it was kept, and their measures: the same frozen
  // object met again within the step (a tool call in its result, the assistant message's
  // tool calls) is not walked twice.
  const inner: Array<object | undefined> = Array.from({ length: innerAtMost }, () => undefined)
  const innerMeasures: Array<number> = Array.from({ length: innerAtMost }, () => 0)
  let innerCount = 0
  let keeping = false
  // The caller's own containers (`bytesOwn`), while it measures.
  let own0: object | undefined
  let own1: object | undefined
  let own2: object | undefined
  let own3: object | undefined
  // The packed measure of `u` at `depth` containers from the root, or -1; `sealed`: `u`
  // is under a container core sealed, so it is one too (or a scalar).
  const node = (u: unknown, depth: number, sealed: boolean): number => {
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
    for (let i = 0; i < count; i++) {
      if (kept[i] === u) {
        const known = keptMeasures[i] as number
        return depth + (known % scale) <= maxDepth ? known : -1
      }
    }
    for (let i = 0; i < innerCount; i++) {
      if (inner[i] === u) {
        const known = innerMeasures[i] as number
        return depth + (known % scale) <= maxDepth ? known : -1
      }
    }
    // A cycle meets the depth bound.
    if (depth >= maxDepth) return -1
    if (u === own0 || u === own1 || u === own2 || u === own3) return ownNode(u as Record<string, unknown>, depth)
    // Sealed: frozen plain data by construction; its bounds are still counted below.
    if (!sealed) sealed = isSealed(u)
    if (!sealed && (isProxy === undefined || isProxy(u) || !Object.isFrozen(u))) return -1
    let bytes = 2
    let height = 0
    if (Array.isArray(u)) {
      // JSON.stringify reads an array's `toJSON`, and a hole, through its prototype.
      if (!sealed && Object.getPrototypeOf(u) !== Array.prototype) return -1
      const n = u.length
      if (n > maxItems) return -1
      for (let i = 0; i < n; i++) {
        // An accessor at an index may answer otherwise later (a hole reads undefined: refused below).
        if (!sealed && lookupGetter.call(u, i) !== undefined) return -1
        const m = node(u[i], depth + 1, sealed)
        if (m < 0) return -1
        bytes += Math.floor(m / scale) + 1
        if (bytes > maxBytes) return -1
        const h = m % scale
        if (h > height) height = h
      }
    } else {
      // A `toJSON` is asked of a sealed object too: its prototype, Object.prototype, may have one since.
      if ((!sealed && !plainObject(u)) || typeof (u as { toJSON?: unknown }).toJSON === "function") return -1
      let n = 0
      let own = 0
      for (const key in u) {
        if (!Object.hasOwn(u, key)) continue
        own++
        if (!sealed && lookupGetter.call(u, key) !== undefined) return -1
        const value = (u as Record<string, unknown>)[key]
        // Left out of the text, as JSON.stringify and the codecs leave it out; a
        // setter-only accessor reads so too, and is an accessor (Json.plainProblem).
        if (value === undefined) {
          if (!sealed && lookupSetter.call(u, key) !== undefined) return -1
          continue
        }
        if (++n > maxItems) return -1
        const m = node(value, depth + 1, sealed)
        if (m < 0) return -1
        bytes += key.length * 6 + 3 + Math.floor(m / scale) + 1
        if (bytes > maxBytes) return -1
        const h = m % scale
        if (h > height) height = h
      }
      // A hidden (non-enumerable) property: the codecs read their fields by name and
      // encode it, this walk did not see it (its bounds, whether it is frozen).
      if (!sealed && Object.getOwnPropertyNames(u).length !== own) return -1
    }
    const m = bytes * scale + height + 1
    if (keeping && innerCount < innerAtMost) {
      inner[innerCount] = u
      innerMeasures[innerCount] = m
      innerCount++
    }
    return m
  }
  // A container of the caller's own (`bytesOwn`): its values walked and counted, as above.
  const ownNode = (u: Record<string, unknown>, depth: number): number => {
    let bytes = 2
    let height = 0
    let n = 0
    for (const key in u) {
      // Inherited keys are not its own (a polluted Object.prototype): skipped as above.
      if (!Object.hasOwn(u, key)) continue
      const value = u[key]
      if (value === undefined) continue
      if (++n > maxItems) return -1
      const m = node(value, depth + 1, false)
      if (m < 0) return -1
      bytes += key.length * 6 + 3 + Math.floor(m / scale) + 1
      if (bytes > maxBytes) return -1
      const h = m % scale
      if (h > height) height = h
    }
    return bytes * scale + height + 1
  }

  const packedOf = (u: unknown): number => {
    try {
      return node(u, 0, false)
    } catch {
      // A throwing proxy trap: not vouched for.
      return -1
    }
  }
  return {
    bytes: (u) => {
      const m = packedOf(u)
      return m < 0 ? -1 : Math.floor(m / scale)
    },
    bytesOwn: (u, one, two, three) => {
      own0 = u
      own1 = one
      own2 = two
      own3 = three
      const m = packedOf(u)
      own0 = own1 = own2 = own3 = undefined
      return m < 0 ? -1 : Math.floor(m / scale)
    },
    keep: (u) => {
      keeping = true
      const m = packedOf(u)
      keeping = false
      if (m < 0) return -1
      if (typeof u === "object" && u !== null) {
        if (count === keepAtMost) {
          // The oldest goes.
          for (let i = 1; i < count; i++) (kept[i - 1] = kept[i]), (keptMeasures[i - 1] = keptMeasures[i] as number), (keptTags[i - 1] = keptTags[i])
          count--
        }
        kept[count] = u
        keptMeasures[count] = m
        keptTags[count] = undefined
        count++
      }
      return Math.floor(m / scale)
    },
    check: (u, tag) => {
      for (let i = count - 1; i >= 0; i--) {
        if (kept[i] === u) {
          keptTags[i] = tag
          return
        }
      }
    },
    checked: (u, tag) => {
      if (tag === undefined) return false
      // From the newest, as `check` notes (a root kept twice is found where it was noted).
      for (let i = count - 1; i >= 0; i--) if (kept[i] === u) return keptTags[i] === tag
      return false
    },
    forget: () => {
      // The references go too: nothing kept past the step.
      for (let i = 0; i < count; i++) (kept[i] = undefined), (keptTags[i] = undefined)
      count = 0
      for (let i = 0; i < innerCount; i++) inner[i] = undefined
      innerCount = 0
    },
  }
}
