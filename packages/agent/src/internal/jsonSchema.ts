/**
 * JSON Schema (draft-07) for the arguments of a tool, derived from an io-ts codec.
 * Covers the combinators tool arguments are written with; anything else (a custom
 * `new t.Type`, functions, bigints, intersections of non-objects) is reported with
 * where it sits, and the tool's author passes `jsonSchema` instead.
 *
 * @internal
 */
import type { JsonObject, JsonValue } from "@hookline/core"
import type * as t from "io-ts"

/** The outcome of a conversion: a schema, or what could not be converted and where. */
export type Conversion =
  | { readonly ok: true; readonly schema: JsonObject }
  | { readonly ok: false; readonly path: string; readonly reason: string }

// io-ts codecs carry a `_tag` naming their combinator; a custom `new t.Type` has none.
interface Node {
  readonly _tag?: string
  readonly name: string
  readonly type?: Node
  readonly types?: ReadonlyArray<Node>
  readonly props?: Readonly<Record<string, Node>>
  readonly value?: unknown
  readonly keys?: Readonly<Record<string, unknown>>
  readonly domain?: Node
  readonly codomain?: Node
}

class Unsupported {
  constructor(readonly path: string, readonly reason: string) {}
}

type Schema = { [key: string]: JsonValue }

const tagOf = (codec: Node): string | undefined => codec._tag

const isIntCodec = (codec: Node): boolean =>
  tagOf(codec) === "RefinementType" && (codec.name === "Int" || codec.name === "Integer")
  && codec.type !== undefined && tagOf(codec.type) === "NumberType"

// `t.union([X, t.undefined])` as a property means "may be left out": JSON has no undefined.
const acceptsUndefined = (codec: Node): boolean => {
  const tag = tagOf(codec)
  if (tag === "UndefinedType" || tag === "VoidType") return true
  if (tag === "UnionType") return (codec.types ?? []).some(acceptsUndefined)
  return false
}

const withoutUndefined = (codec: Node): Node => {
  if (tagOf(codec) !== "UnionType") return codec
  const types = (codec.types ?? [])
    .filter((member) => tagOf(member) !== "UndefinedType" && tagOf(member) !== "VoidType")
    .map(withoutUndefined)
  return types.length === 1 ? types[0]! : { _tag: "UnionType", name: codec.name, types }
}

const join = (path: string, key: string): string => (path === "" ? key : `${path}.${key}`)

const literalSchema = (values: ReadonlyArray<unknown>, path: string): Schema => {
  const kinds = new Set(values.map((v) => (v === null ? "null" : typeof v)))
  for (const kind of kinds) {
    if (kind !== "string" && kind !== "number" && kind !== "boolean" && kind !== "null") {
      throw new Unsupported(path, `a literal of type ${kind} has no JSON form`)
    }
  }
  if (kinds.size === 1) {
    const [kind] = kinds
    if (kind === "null") return { type: "null" }
    return { type: kind!, enum: values as Array<JsonValue> }
  }
  return { enum: values as Array<JsonValue> }
}

const objectSchema = (
  props: Readonly<Record<string, Node>>,
  allOptional: boolean,
  exact: boolean,
  path: string,
  open: Set<Node>,
): Schema => {
  const properties: Schema = {}
  const required: Array<string> = []
  for (const key of Object.keys(props)) {
    const prop = props[key]!
    const optional = allOptional || acceptsUndefined(prop)
    properties[key] = convert(optional ? withoutUndefined(prop) : prop, join(path, `properties.${key}`), open)
    if (!optional) required.push(key)
  }
  const schema: Schema = { type: "object", properties }
  if (required.length > 0) schema.required = required
  if (exact) schema.additionalProperties = false
  return schema
}

// The object schema an intersection member stands for, or undefined if it is not one.
const asObject = (schema: Schema): { properties: Schema; required: ReadonlyArray<string>; exact: boolean } | undefined => {
  if (schema.type !== "object" || typeof schema.properties !== "object" || schema.properties === null) return undefined
  const extra = Object.keys(schema).filter((k) => !["type", "properties", "required", "additionalProperties"].includes(k))
  if (extra.length > 0 || (schema.additionalProperties !== undefined && schema.additionalProperties !== false)) return undefined
  return {
    properties: schema.properties as Schema,
    required: Array.isArray(schema.required) ? (schema.required as ReadonlyArray<string>) : [],
    exact: schema.additionalProperties === false,
  }
}

const convert = (codec: Node, path: string, open: Set<Node>): Schema => {
  if (isIntCodec(codec)) return { type: "integer" }
  switch (tagOf(codec)) {
    case "StringType":
      return { type: "string" }
    case "NumberType":
      return { type: "number" }
    case "BooleanType":
      return { type: "boolean" }
    case "NullType":
      return { type: "null" }
    case "UnknownType":
    case "AnyType":
      return {}
    case "AnyArrayType":
      return { type: "array" }
    case "AnyDictionaryType":
    case "ObjectType":
      return { type: "object" }
    case "LiteralType":
      return literalSchema([codec.value], path)
    case "KeyofType":
      return { type: "string", enum: Object.keys(codec.keys ?? {}) }
    case "RefinementType":
    case "ReadonlyType":
      return convert(codec.type!, path, open)
    case "ArrayType":
    case "ReadonlyArrayType":
      return { type: "array", items: convert(codec.type!, join(path, "items"), open) }
    case "TupleType": {
      const types = codec.types ?? []
      return {
        type: "array",
        items: types.map((member, i) => convert(member, join(path, `items[${i}]`), open)),
        minItems: types.length,
        maxItems: types.length,
      }
    }
    case "InterfaceType":
      return objectSchema(codec.props ?? {}, false, false, path, open)
    case "PartialType":
      return objectSchema(codec.props ?? {}, true, false, path, open)
    case "StrictType":
      return objectSchema(codec.props ?? {}, false, true, path, open)
    case "ExactType": {
      const inner = convert(codec.type!, path, open)
      return inner.type === "object" && inner.properties !== undefined ? { ...inner, additionalProperties: false } : inner
    }
    case "DictionaryType":
      return recordSchema(codec, path, open)
    case "UnionType":
      return unionSchema(codec, path, open)
    case "IntersectionType":
      return intersectionSchema(codec, path, open)
    case "RecursiveType": {
      // A recursive codec is expanded once; where it refers to itself the schema is `{}`.
      if (open.has(codec)) return {}
      open.add(codec)
      try {
        return convert(codec.type!, path, open)
      } finally {
        open.delete(codec)
      }
    }
    default:
      throw new Unsupported(path, `the codec ${codec.name} has no JSON Schema equivalent here`)
  }
}

const recordSchema = (codec: Node, path: string, open: Set<Node>): Schema => {
  const domain = codec.domain!
  let base = domain
  while (tagOf(base) === "RefinementType" && base.type !== undefined) base = base.type
  const value = convert(codec.codomain!, join(path, "additionalProperties"), open)
  if (tagOf(base) === "StringType") return { type: "object", additionalProperties: value }
  // A finite domain (`t.keyof`, a union of string literals) asks for every key.
  const keys = finiteKeys(domain)
  if (keys === undefined) throw new Unsupported(path, `a record with keys ${domain.name} has no JSON Schema equivalent`)
  const properties: Schema = {}
  for (const key of keys) properties[key] = value
  return { type: "object", properties, required: keys, additionalProperties: false }
}

const finiteKeys = (domain: Node): Array<string> | undefined => {
  switch (tagOf(domain)) {
    case "KeyofType":
      return Object.keys(domain.keys ?? {})
    case "LiteralType":
      return typeof domain.value === "string" ? [domain.value] : undefined
    case "UnionType": {
      const keys: Array<string> = []
      for (const member of domain.types ?? []) {
        const more = finiteKeys(member)
        if (more === undefined) return undefined
        keys.push(...more)
      }
      return keys
    }
    default:
      return undefined
  }
}

const unionSchema = (codec: Node, path: string, open: Set<Node>): Schema => {
  const types = codec.types ?? []
  // All string / number literals (and keyofs): one `enum`.
  const literals: Array<unknown> = []
  let allLiterals = types.length > 0
  for (const member of types) {
    if (tagOf(member) === "LiteralType" && (typeof member.value === "string" || typeof member.value === "number")) {
      literals.push(member.value)
    } else if (tagOf(member) === "KeyofType") {
      literals.push(...Object.keys(member.keys ?? {}))
    } else {
      allLiterals = false
      break
    }
  }
  if (allLiterals) return literalSchema(literals, path)
  return { anyOf: types.map((member, i) => convert(member, join(path, `anyOf[${i}]`), open)) }
}

const intersectionSchema = (codec: Node, path: string, open: Set<Node>): Schema => {
  const properties: Schema = {}
  const required: Array<string> = []
  let exact = true
  const types = codec.types ?? []
  types.forEach((member, i) => {
    const object = asObject(convert(member, path, open))
    if (object === undefined) {
      throw new Unsupported(join(path, `allOf[${i}]`), `an intersection of ${member.name}, which is not an object type`)
    }
    for (const key of Object.keys(object.properties)) {
      if (key in properties) throw new Unsupported(join(path, `properties.${key}`), `"${key}" is declared twice in an intersection`)
      properties[key] = object.properties[key]!
    }
    for (const key of object.required) if (!required.includes(key)) required.push(key)
    exact &&= object.exact
  })
  const schema: Schema = { type: "object", properties }
  if (required.length > 0) schema.required = required
  if (exact && types.length > 0) schema.additionalProperties = false
  return schema
}

/**
 * The JSON Schema of an io-ts codec's input, or where it could not be converted.
 */
export const fromCodec = (codec: t.Any): Conversion => {
  try {
    return { ok: true, schema: convert(codec as unknown as Node, "", new Set()) }
  } catch (error) {
    if (error instanceof Unsupported) return { ok: false, path: error.path, reason: error.reason }
    throw error
  }
}
