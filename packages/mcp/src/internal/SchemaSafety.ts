/**
 * Whether a server's JSON Schema can be validated safely, decided before it is
 * compiled: no cycle through `$ref` (a root `{"$ref":"#"}` overflows the stack on every
 * call), bounded in depth and in size with every `$ref` expanded (shared `$ref`s can
 * blow up exponentially), only local `$ref`s (`#`, `#/json/pointer`) and no nested
 * `$id` (which would change what they point to), and every pattern runnable in linear
 * time. An accepted schema is a finite tree of at most `maxNodes` nodes, so checking a
 * value against it is bounded by that tree times the value.
 *
 * The check itself is iterative and visits each node of the schema's JSON once.
 *
 * @internal
 */
import * as LinearRegExp from "./LinearRegExp.js"

/** The deepest schema accepted, counted through its expanded `$ref`s. */
export const maxDepth = 64

/** The most nodes a schema may have once its `$ref`s are expanded. */
export const maxNodes = 20_000

/**
 * The verdict on a schema. `steps` counts the nodes the check visited (for tests: the
 * check is linear in the schema's JSON).
 */
export type Verdict =
  | { readonly ok: true; readonly nodes: number; readonly steps: number }
  | { readonly ok: false; readonly reason: string; readonly steps: number }

// Keywords whose value is data, not a schema: a `$ref` or `pattern` inside means nothing.
const dataKeywords = new Set(["enum", "const", "default", "examples"])

class Unsafe {
  constructor(readonly reason: string) {}
}

const isObject = (u: unknown): u is Readonly<Record<string, unknown>> => typeof u === "object" && u !== null

const resolve = (root: unknown, ref: string): unknown => {
  if (ref !== "#" && !ref.startsWith("#/")) {
    throw new Unsafe(`its $ref ${JSON.stringify(ref.slice(0, 80))} is not local (only "#" and "#/json/pointer" are followed)`)
  }
  let pointer: string
  try {
    pointer = decodeURIComponent(ref.slice(1))
  } catch {
    throw new Unsafe(`its $ref ${JSON.stringify(ref.slice(0, 80))} is not a valid URI fragment`)
  }
  let node = root
  for (const token of pointer === "" ? [] : pointer.slice(1).split("/")) {
    const key = token.replace(/~1/g, "/").replace(/~0/g, "~")
    const next = Array.isArray(node)
      ? (/^(0|[1-9][0-9]*)$/.test(key) ? node[Number(key)] : undefined)
      : isObject(node) && Object.hasOwn(node, key)
      ? node[key]
      : undefined
    if (next === undefined) throw new Unsafe(`its $ref ${JSON.stringify(ref.slice(0, 80))} points to nothing`)
    node = next
  }
  return node
}

const checkPattern = (pattern: string): void => {
  try {
    LinearRegExp.compile(pattern)
  } catch (error) {
    throw new Unsafe(error instanceof Error ? error.message : String(error))
  }
}

interface Frame {
  readonly node: object
  readonly data: boolean
  readonly children: ReadonlyArray<readonly [unknown, boolean]>
  index: number
  size: number
}

// What a node leads to: its values (data under a data keyword), and the target of its
// `$ref`. Its patterns and `$id` are checked here, once per node.
const childrenOf = (root: unknown, node: object, data: boolean, isRoot: boolean): Array<readonly [unknown, boolean]> => {
  if (Array.isArray(node)) return node.map((child) => [child, data] as const)
  const record = node as Readonly<Record<string, unknown>>
  const children: Array<readonly [unknown, boolean]> = []
  for (const key of Object.keys(record)) children.push([record[key], data || dataKeywords.has(key)])
  if (data) return children
  if (!isRoot && record.$id !== undefined) throw new Unsafe("it has a nested $id (its $refs could not be followed safely)")
  if (typeof record.pattern === "string") checkPattern(record.pattern)
  if (isObject(record.patternProperties) && !Array.isArray(record.patternProperties)) {
    for (const pattern of Object.keys(record.patternProperties)) checkPattern(pattern)
  }
  if (typeof record.$ref === "string") children.push([resolve(root, record.$ref), false])
  return children
}

/**
 * The verdict on one schema (see the module's note).
 */
export const check = (schema: unknown): Verdict => {
  // Sizes of the nodes finished, as schemas and as data (a `$ref` may point into data).
  const done = { schema: new Map<object, number>(), data: new Map<object, number>() }
  const onPath = new Set<object>()
  const stack: Array<Frame> = []
  let steps = 0
  let total = 1
  const enter = (node: object, data: boolean): void => {
    if (stack.length >= maxDepth) throw new Unsafe(`it is nested deeper than ${maxDepth} levels (with its $refs expanded)`)
    stack.push({ node, data, children: childrenOf(schema, node, data, stack.length === 0 && node === schema), index: 0, size: 1 })
    onPath.add(node)
  }
  try {
    if (isObject(schema)) enter(schema, false)
    while (stack.length > 0) {
      const frame = stack[stack.length - 1]!
      if (frame.index < frame.children.length) {
        const [child, data] = frame.children[frame.index++]!
        steps++
        const finished = data ? done.data : done.schema
        if (!isObject(child)) frame.size += 1
        else if (finished.has(child)) frame.size += finished.get(child)!
        else if (onPath.has(child)) throw new Unsafe("its $refs form a cycle (a schema that refers to itself)")
        else enter(child, data)
      } else {
        stack.pop()
        onPath.delete(frame.node)
        if (frame.size > maxNodes) throw new Unsafe(`it has more than ${maxNodes} nodes with its $refs expanded`)
        const finished = frame.data ? done.data : done.schema
        finished.set(frame.node, frame.size)
        const parent = stack[stack.length - 1]
        if (parent === undefined) total = frame.size
        else parent.size += frame.size
      }
    }
  } catch (error) {
    if (error instanceof Unsafe) return { ok: false, reason: error.reason, steps }
    throw error
  }
  return { ok: true, nodes: total, steps }
}
