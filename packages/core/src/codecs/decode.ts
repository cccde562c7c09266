import type * as t from "io-ts"
import { isLeft } from "fp-ts/lib/Either.js"
import { excerpt } from "../Json.js"

// io-ts context entries for the members of unions and intersections carry the
// member's index as key; those are not part of the value's path. Refinements, exact
// types and recursive types validate in their parent's context (they add no entry),
// so the entry after one of them is a real key and must stay in the path.
const isBranch = (type: t.Decoder<unknown, unknown>): boolean => {
  const tag = (type as { readonly _tag?: string })._tag
  return tag === "UnionType" || tag === "IntersectionType"
}

// A key is shown whole in a path up to this length, then cut (`…`): a key may be as
// long as `maxStringLength`, and a path names it, it does not carry it.
const maxKeyShown = 64

const shown = (key: string): string => (key.length > maxKeyShown ? `${key.slice(0, maxKeyShown)}…` : key)

/**
 * `context.messages[3].role` for one io-ts validation error, and the name of the type
 * expected there (for a union, the whole union, not its first member). A key longer
 * than 64 characters is cut in the path.
 */
export const pathOf = (error: t.ValidationError): { readonly path: string; readonly expected: string } => {
  let path = ""
  const entries = error.context
  let expected = entries[0]?.type.name ?? "a valid value"
  for (let i = 1; i < entries.length; i++) {
    const parent = entries[i - 1]!
    const entry = entries[i]!
    if (isBranch(parent.type)) continue
    const key = shown(entry.key)
    path += /^\d+$/.test(key) ? `[${key}]` : path === "" ? key : `.${key}`
    expected = entry.type.name
  }
  return { path, expected }
}

// Bounded and total: a deep or huge value, NaN or a throwing getter still describes.
const describe = (value: unknown): string => excerpt(value, 60)

/** The deepest error is the most specific; ties go to the first reported. */
export const firstError = (errors: t.Errors): { readonly path: string; readonly detail: string } => {
  let best = errors[0]
  for (const error of errors) if (best === undefined || error.context.length > best.context.length) best = error
  if (best === undefined) return { path: "", detail: "invalid value" }
  const { path, expected } = pathOf(best)
  return { path, detail: best.message ?? `expected ${expected}, got ${describe(best.value)}` }
}

/** Decodes or returns the first error's path and detail. */
export const decodeWith = <A, O, I>(
  codec: t.Type<A, O, I>,
  input: I,
): { readonly ok: true; readonly value: A } | { readonly ok: false; readonly path: string; readonly detail: string } => {
  const result = codec.decode(input)
  return isLeft(result) ? { ok: false, ...firstError(result.left) } : { ok: true, value: result.right }
}

/**
 * `decodeWith` for an options object that refuses keys the codec does not know: a
 * typo (`priorty: 5`) would otherwise be dropped and the default used silently.
 */
export const decodeOptions = <P extends t.Props, A, O, I>(
  codec: t.Type<A, O, I> & { readonly props: P },
  input: I,
): ReturnType<typeof decodeWith<A, O, I>> => {
  if (typeof input === "object" && input !== null && !Array.isArray(input)) {
    const known = Object.keys(codec.props)
    const unknown = Object.keys(input).find((key) => !known.includes(key))
    if (unknown !== undefined) {
      return { ok: false, path: unknown, detail: `unknown option ${excerpt(unknown, 60)}: expected one of ${known.join(", ")}` }
    }
  }
  return decodeWith(codec, input)
}
