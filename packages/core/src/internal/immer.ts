import { Immer, freeze, isDraft, isDraftable } from "immer"

/** hookline's own immer instance: auto-freeze stays on whatever a user sets globally. */
export const immer = new Immer({ autoFreeze: true })

const isPlain = (value: object): boolean => {
  const proto: unknown = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

// Arrays and plain objects with an explicit stack: data from outside (a model's tool
// arguments) may be nested 10,000 levels deep, and a recursive freeze overflows the
// call stack there. Maps, Sets and immerable classes are rare and never outside JSON:
// immer freezes those.
const freezeTree = (root: object): void => {
  const stack: Array<object> = [root]
  while (stack.length > 0) {
    const node = stack.pop() as object
    if (Object.isFrozen(node) || isDraft(node)) continue
    if (Array.isArray(node)) {
      Object.freeze(node)
      for (let i = 0; i < node.length; i++) {
        const item: unknown = node[i]
        if (typeof item === "object" && item !== null && !Object.isFrozen(item)) stack.push(item)
      }
    } else if (isPlain(node)) {
      Object.freeze(node)
      for (const key of Object.keys(node)) {
        const item: unknown = (node as Record<string, unknown>)[key]
        if (typeof item === "object" && item !== null && !Object.isFrozen(item)) stack.push(item)
      }
    } else if (isDraftable(node)) freeze(node, true)
  }
}

/**
 * Freezes plain data deeply, stopping at anything already frozen (frozen data is
 * deeply frozen by this library's invariant) and at non-plain objects such as
 * `AppendLog`, which freeze themselves. Iterative: any depth is safe.
 */
export const deepFreeze = <A>(value: A): A => {
  // The check first: on the hot path almost everything is frozen already.
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return value
  freezeTree(value)
  return value
}
