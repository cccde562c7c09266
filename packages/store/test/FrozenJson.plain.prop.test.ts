// The store's vouching walk (internal/frozenJson.ts) keeps its own fused walk (it measures
// bytes and depth in the same pass, on every step), so it does not call core's predicate
// of plain data (`Json.plainProblem`, which core holds a hook's changed parts to and the
// agent's entry a state it keeps). This holds the two to the same answers: over values
// with hostile nodes anywhere (accessors, setter-only ones, hidden properties, foreign
// prototypes, Proxies, unfrozen containers), the walk vouches for a value exactly when
// every container in it is frozen plain data by core's rule (the values within bounds).
// One exception, on purpose: of an array the store's walk asks its prototype and whether
// an index is an accessor, not whether an index is enumerable nor what non-index own
// properties it has (JSON and the codecs read an array by index, so its text is the
// same); listing them allocates every index's name, on every step. Core's checks
// upstream (a hook's return, the agent's entry) refuse those too. So the reference
// below holds an array to that part of the rule, an object to all of it.
import { Json } from "@hookline/core"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import * as FrozenJson from "../src/internal/frozenJson.js"

type Node = { readonly _tag: "leaf"; readonly value: unknown } | { readonly _tag: "array" | "object"; readonly items: ReadonlyArray<Node>; readonly odd: Odd; readonly frozen: boolean }

type Odd = "none" | "getter" | "setter" | "hidden" | "proxy" | "nullProto" | "foreignProto" | "classInstance"

const odd = fc.constantFrom<Odd>("none", "none", "none", "none", "none", "none", "getter", "setter", "hidden", "proxy", "nullProto", "foreignProto", "classInstance")

const tree: fc.Arbitrary<Node> = fc.letrec<{ node: Node }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.oneof(fc.string({ maxLength: 4 }), fc.integer(), fc.boolean(), fc.constant(null)).map((value): Node => ({ _tag: "leaf", value })),
    fc.record({
      _tag: fc.constantFrom("array" as const, "object" as const),
      items: fc.array(tie("node"), { maxLength: 3 }),
      odd,
      // Mostly frozen: an unfrozen container is refused by both at once.
      frozen: fc.constantFrom(true, true, true, false),
    }),
  ),
})).node

class Instance {}

const isProxy = (u: unknown): boolean => Json.isProxy?.(u) ?? true

const build = (node: Node): unknown => {
  if (node._tag === "leaf") return node.value
  const values = node.items.map(build)
  let out: Record<string, unknown> | Array<unknown>
  if (node._tag === "array") {
    out = values
    if (node.odd === "foreignProto" || node.odd === "nullProto") Object.setPrototypeOf(out, node.odd === "nullProto" ? null : Object.create(Array.prototype))
  } else {
    const base: Record<string, unknown> = node.odd === "nullProto"
      ? Object.create(null)
      : node.odd === "foreignProto"
      ? Object.create({ inherited: 1 })
      : node.odd === "classInstance"
      ? new Instance() as Record<string, unknown>
      : {}
    values.forEach((v, i) => (base[`k${i}`] = v))
    out = base
  }
  // On an array, at an index: the one exception below.
  const key = (name: string): string | number => (Array.isArray(out) ? 0 : name)
  if (node.odd === "getter") Object.defineProperty(out, key("g"), { get: () => 1, enumerable: true, configurable: true })
  if (node.odd === "setter") Object.defineProperty(out, key("s"), { set: () => {}, enumerable: true, configurable: true })
  if (node.odd === "hidden") Object.defineProperty(out, key("h"), { value: 1, enumerable: false, configurable: true, writable: true })
  if (node.frozen) Object.freeze(out)
  return node.odd === "proxy" ? new Proxy(out, {}) : out
}

// Core's rule, walked: every container frozen and plain (`Json.plainProblem`), every value
// JSON (a plain object's `undefined` aside, which the text leaves out).
const plainThrough = (root: unknown): boolean => {
  const stack: Array<unknown> = [root]
  while (stack.length > 0) {
    const u = stack.pop()
    if (typeof u === "string" || typeof u === "boolean" || u === null) continue
    if (typeof u === "number") {
      if (!Number.isFinite(u)) return false
      continue
    }
    if (typeof u !== "object") return false
    if (Array.isArray(u)) {
      if (isProxy(u) || !Object.isFrozen(u) || Object.getPrototypeOf(u) !== Array.prototype) return false
      for (let i = 0; i < u.length; i++) if (Object.getOwnPropertyDescriptor(u, i)?.get !== undefined || Object.getOwnPropertyDescriptor(u, i)?.set !== undefined) return false
      for (let i = 0; i < u.length; i++) if (u[i] === undefined) return false
      stack.push(...u)
    } else if (Json.plainProblem(u) !== undefined || !Object.isFrozen(u)) return false
    else for (const key of Object.keys(u)) if ((u as Record<string, unknown>)[key] !== undefined) stack.push((u as Record<string, unknown>)[key])
  }
  return true
}

describe("the store's vouching walk and core's plain-data rule", () => {
  it("vouch for the same values", () => {
    fc.assert(
      fc.property(tree, (node) => {
        const value = build(node)
        const vouched = FrozenJson.make(100_000, Json.maxDepth, 64 * 1024 * 1024).bytes(value) >= 0
        expect(vouched).toBe(plainThrough(value))
      }),
      { numRuns: 2_000 },
    )
  })
})
