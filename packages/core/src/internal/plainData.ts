// "Frozen plain data", the rule for a value kept as it is where it entered: one object's
// own answer (its values are the caller's to walk). Shared by core's check of a hook's
// return (stack/freezeChanged.ts) and the agent's entry check of a caller's state
// (`Json.plainProblem`, @internal); the store's vouching walk keeps its own fused walk
// (it measures bytes and depth in the same pass) and a property test holds it to the same
// answers (packages/store/test/frozenJson.plain.prop.test.ts).
//
// A Proxy may answer a later read otherwise than it answered the check; an accessor
// (own, or at an array index) too; a prototype other than a plain object's or an array's
// may carry accessors or a `toJSON`; a hidden (non-enumerable) own property is read by the
// codecs by name, yet left out of the JSON a store writes and of every walk by keys.

/**
 * Node's `util.types.isProxy`, or `undefined` where the runtime has none (there, a Proxy
 * cannot be told; the agent's entry keeps nothing as it is, and a hook's return is held
 * to the other rules only).
 */
export const isProxy: ((u: unknown) => boolean) | undefined = (() => {
  try {
    const process = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process
    const util = process?.getBuiltinModule?.("node:util") as { types?: { isProxy?: (u: unknown) => boolean } } | undefined
    return util?.types?.isProxy
  } catch {
    return undefined
  }
})()

const keyText = (key: string): string => JSON.stringify(key.length > 64 ? `${key.slice(0, 64)}…` : key)

/**
 * What makes `node` other than plain data, or `undefined`: a Proxy, a prototype other than
 * `Object.prototype` or `null` (`Array.prototype` for an array), an accessor property (a
 * getter or a setter, own or at an index), a hidden (non-enumerable) own property. Whether
 * it is frozen is the caller's rule. Never throws.
 */
export const plainProblem = (node: object): string | undefined => {
  try {
    if (isProxy !== undefined && isProxy(node)) return "a Proxy"
    const prototype: unknown = Object.getPrototypeOf(node)
    const array = Array.isArray(node)
    if (array ? prototype !== Array.prototype : prototype !== Object.prototype && prototype !== null) {
      return array
        ? "an array whose prototype is not Array.prototype"
        : "an object whose prototype is not Object.prototype or null (a class instance, Object.create(…))"
    }
    // One descriptor per key answers both questions: cheaper than asking
    // `__lookupGetter__`, `__lookupSetter__` and `propertyIsEnumerable` each (about 30 ns
    // a call, measured), and no prototype walk.
    for (const key of Object.getOwnPropertyNames(node)) {
      if (array && key === "length") continue
      const property = Object.getOwnPropertyDescriptor(node, key) as PropertyDescriptor
      if (!("value" in property)) return `an accessor (a getter or setter) at ${keyText(key)}`
      if (property.enumerable !== true) return `a hidden (non-enumerable) property ${keyText(key)}`
    }
    return undefined
  } catch {
    return "an object that throws when read"
  }
}
